"""Discord components: one DynamicItem button/select pair shared by every game
(:mod:`bot.messages.ui.items`), fed by per-game adapters (:mod:`bot.core.choices`)."""
