"""Winter Tales content (JSON), loaded and validated by engines/winter_tales/content.py."""
