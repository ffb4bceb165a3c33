"""Barrage and classic Stratego: shared rules, the pyspiel games, a batched engine."""
