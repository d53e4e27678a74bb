"""Pillow renderers: a view -> PNG bytes. No discord."""
