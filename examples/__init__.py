"""Example binaries with absl flags, run as `python -m open_spiel_ext.examples.NAME`."""
