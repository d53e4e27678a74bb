"""The web front-end: the table as a Discord Activity, an interactive board in the
Discord client's iframe. Like every front-end it reads the table service's outboxes and
views and calls its ``play()``/``choose()`` (:mod:`bot.core.tables`); it imports no other
front-end. ARCHITECTURE.md, "Front-ends", says how one plugs in."""
