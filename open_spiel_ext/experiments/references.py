"""Published and exactly computed reference values that tests and benchmarks
hold results against."""

# Tiny Hanabi Suite (CAPI paper): the best expected payoff of a joint policy
# of each game, also found by brute force over joint policies in
# tests/games/tiny_hanabi_test.py.
TINY_HANABI_OPTIMAL_VALUES = {
    "a": 2.25,
    "b": 1.0,
    "c": 2.5,
    "d": 2.5,
    "e": 10.0,
    "f": 7 / 3,
}
