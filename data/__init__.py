"""Content files (JSON) per game, validated by pydantic on load."""
