"""The puzzles DeepCubeA trains on: batched engines, defaults, the goal.

A puzzle here is a batched engine (`single_player.BatchedPuzzle`, see
`games/puzzles/`) with a single goal state `goal`: `next_states` [B, A, D],
`legal_mask` [B, A], `prev_states` (the reverse transition model: scrambles
walk it from the goal), `is_goal` and `encode`. Every move costs 1.
"""

import dataclasses
from typing import Any

from open_spiel_ext.games.puzzles import lights_out
from open_spiel_ext.games.puzzles import rubiks_cube
from open_spiel_ext.games.puzzles import sliding_puzzle


@dataclasses.dataclass(frozen=True)
class PuzzleDefaults:
  """DeepCubeA's settings for one puzzle, as this package uses them.

  Attributes:
    max_scramble: K, training states are 1..K reverse moves from the goal.
    hidden_sizes: the dense layers before the residual blocks.
    num_blocks: residual blocks (width hidden_sizes[-1]).
    weight: BWAS λ.
    search_batch: BWAS N, nodes expanded per step.
  """
  max_scramble: int
  hidden_sizes: tuple[int, ...]
  num_blocks: int
  weight: float
  search_batch: int


# K as the shipped models were trained (DeepCubeA: 500 for the 15-puzzle and
# Lights Out, 30 for cubes; here 100 for Lights Out, where 100 random presses
# already give a near-uniform board, and 20 for the 2×2×2, whose diameter is
# 14). Networks are small enough to search fast on a laptop CPU. λ and N are
# the settings `deepcubea_solve` uses by default (see
# benchmarks/deepcubea_eval.py for others).
DEFAULTS = {
    ("sliding_puzzle", 4): PuzzleDefaults(500, (1000, 300), 2, 0.8, 1000),
    ("lights_out", 7): PuzzleDefaults(100, (1000, 300), 2, 0.2, 1000),
    ("rubiks_cube", 2): PuzzleDefaults(20, (1000, 300), 2, 0.6, 1000),
    ("rubiks_cube", 3): PuzzleDefaults(30, (2000, 500), 4, 0.6, 10000),
}

SHIPPED = tuple(DEFAULTS)

# The free-label models shipped (`free_labels.py`), by their target; trained
# by the campaign in runs/free_label_campaign/.
SHIPPED_FREE_LABEL = {
    ("rubiks_cube", 3): "distance",
    ("lights_out", 7): "pressed",
}


def model_name(puzzle: str, size: int) -> str:
  """The file stem of a puzzle's model: `sliding_puzzle_4`."""
  return f"{puzzle}_{size}"


def free_label_model_name(puzzle: str, size: int) -> str:
  """The file stem of a shipped free-label model: `lights_out_7_pressed`."""
  return f"{model_name(puzzle, size)}_{SHIPPED_FREE_LABEL[(puzzle, size)]}"


# Engine class and the sizes its game accepts.
_ENGINES = {
    "sliding_puzzle": (sliding_puzzle.BatchedSlidingPuzzle, 3, 7),
    "rubiks_cube": (rubiks_cube.BatchedCube, 2, 3),
    "lights_out": (lights_out.BatchedLightsOut, 2, 20),
}
PUZZLES = tuple(_ENGINES)


def make_engine(puzzle: str, size: int) -> Any:
  """The batched engine of a puzzle with a single goal state."""
  if puzzle not in _ENGINES:
    raise ValueError(
        f"puzzle must be one of {sorted(_ENGINES)}, got puzzle={puzzle!r}")
  maker, low, high = _ENGINES[puzzle]
  if not low <= size <= high:
    raise ValueError(f"{puzzle} size must be in [{low}, {high}], got "
                     f"size={size}")
  return maker(size)


def defaults(puzzle: str, size: int) -> PuzzleDefaults:
  """The shipped model's settings, or scaled ones for other sizes."""
  if (puzzle, size) in DEFAULTS:
    return DEFAULTS[(puzzle, size)]
  make_engine(puzzle, size)
  like = {"sliding_puzzle": 4, "lights_out": 7, "rubiks_cube": 3}[puzzle]
  return DEFAULTS[(puzzle, like)]
