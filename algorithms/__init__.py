"""The plugin's algorithms (installed as open_spiel_ext.algorithms)."""
