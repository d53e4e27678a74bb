"""The console front-end: a table played at a terminal (``fabletop play``), through the
same table service as Discord, with its own SQLite file (:mod:`bot.console.table`)."""
