"""Helpers every part of the plugin shares: the example binaries' edges."""
