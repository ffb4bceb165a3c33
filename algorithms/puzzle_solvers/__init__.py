"""Exact and classical solvers for the puzzles in open_spiel_ext.games.puzzles."""
