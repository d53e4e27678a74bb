"""The Discord messages front-end: a table played in a channel through slash commands,
buttons, selects and DMs (:mod:`bot.messages.client` is the bot)."""
