"""The puzzles DeepCubeA trains on: their batched engines and model files.

A puzzle here is a batched engine (`single_player.BatchedPuzzle`, see
`games/puzzles/`) with a single goal state `goal`: `next_states` [B, A, D],
`legal_mask` [B, A], `prev_states` (the reverse transition model: scrambles
walk it from the goal), `is_goal` and `encode`. Every move costs 1. Which
puzzles have one is the games' business (`single_player.sized_puzzles`);
the settings each is trained and searched with are recipes
(`open_spiel_ext/experiments/puzzle_recipes.py`). The models shipped in
`models/` are named `model_name(puzzle, size)`, with the free-label
trainers' target after it (`lights_out_7_pressed`).
"""

import importlib.resources
import os

from open_spiel_ext.games.puzzles import single_player

PUZZLES = single_player.sized_puzzles()


def make_engine(puzzle: str, size: int) -> single_player.BatchedPuzzle:
  """The batched engine of a puzzle with a single goal state; ValueError
  naming a puzzle without one or a size its game refuses."""
  return single_player.sized_engine(puzzle, size)


def model_name(puzzle: str, size: int) -> str:
  """The file stem of a puzzle's model: `sliding_puzzle_4`."""
  return f"{puzzle}_{size}"


def shipped_path(stem: str) -> str:
  """The path of the packaged model `stem`.npz (which may not exist)."""
  return str(importlib.resources.files(
      "open_spiel_ext.algorithms.deepcubea").joinpath("models", stem + ".npz"))


def shipped_stems() -> list[str]:
  """The stems of the packaged models, sorted."""
  folder = os.path.dirname(shipped_path("any"))
  return sorted(name[:-len(".npz")] for name in os.listdir(folder)
                if name.endswith(".npz"))
