"""How the papers ran their experiments: per-game recipes, the published
reference values the benchmarks compare against, and multi-seed runners.

Algorithms take plain configs and know no game by name; what the reference
used on which game lives here, above them.
"""
