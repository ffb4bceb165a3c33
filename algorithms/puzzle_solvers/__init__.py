"""Search over the puzzles' batched engines and move tables: batch weighted
A* and IDA*, knowing no puzzle by name (the exact solvers of each puzzle are
in open_spiel_ext.experiments.puzzle_references)."""
