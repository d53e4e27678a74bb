"""Fairy Tale in My Pocket (game id ``pocket``), for 1 to 4 co-operating players.

``content`` reads ``data/pocket.json``; ``state`` holds the state, actions, events and
view; ``game`` the rules (:class:`engines.pocket.game.Pocket`) and the declaration
``SPEC``.
"""
