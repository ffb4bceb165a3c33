"""Single-player puzzles: pyspiel games and batched JAX engines sharing rules."""
