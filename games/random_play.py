"""Uniformly random play of any pyspiel game, chance sampled as the game says."""

import numpy as np

import pyspiel


def sample_action(state: pyspiel.State, rng: np.random.RandomState) -> int:
  """A chance outcome drawn by its probability, or a uniform legal action."""
  if state.is_chance_node():
    actions, probs = zip(*state.chance_outcomes())
    return int(rng.choice(actions, p=probs))
  return int(rng.choice(state.legal_actions()))
