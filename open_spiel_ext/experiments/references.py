"""Published and exactly computed reference values that tests and benchmarks
hold results against."""

from typing import Optional

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

# Abstracted Tiny Bridge (the CAPI paper's fig. 5): joint policies worth
# 20.79 exist; the best policy that does not coordinate is worth 20.32.
TINY_BRIDGE = "tiny_bridge_2p(abstracted=True)"
TINY_BRIDGE_TARGET = 20.79
TINY_BRIDGE_NO_COORDINATION = 20.32


def best_known_value(game: str) -> Optional[float]:
  """The best value a joint policy of the cooperative `game` (a game
  string) is known to reach: the Tiny Hanabi Suite's optima, Tiny Bridge's
  published 20.79; None for other games."""
  if game == TINY_BRIDGE:
    return TINY_BRIDGE_TARGET
  prefix = "tiny_hanabi_"
  if game.startswith(prefix):
    return TINY_HANABI_OPTIMAL_VALUES.get(game[len(prefix):])
  return None
