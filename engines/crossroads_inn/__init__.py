"""Crossroads Inn: The Innkeeper's Creed (game id ``crossroads-inn``), 2 to 4 innkeepers.

So far only ``content``: the validated pieces of the game read from ``data/crossroads_inn/``.
"""
