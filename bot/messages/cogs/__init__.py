"""discord.py cogs: the lobby, one per game, and the owner tools."""
