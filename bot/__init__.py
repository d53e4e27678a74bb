"""Everything that talks to the outside world: service, store, Discord, console."""
