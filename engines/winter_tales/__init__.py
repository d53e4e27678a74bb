"""Winter Tales: the storytelling game of the Fabletop project."""
