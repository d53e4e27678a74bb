"""End-to-end tests: the real bot process against the Discord emulator (marker ``e2e``)."""
