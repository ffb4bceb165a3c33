"""Recipes for the puzzle solvers: DeepCubeA's and the free-label trainers'
settings per puzzle.

`davi_settings(puzzle, size)` is how the shipped DAVI models were trained
and are searched (K, network, BWAS's λ and N): DeepCubeA's K is 500 for the
15-puzzle and Lights Out and 30 for cubes; here 100 for Lights Out, where 100
random presses already give a near-uniform board, and 20 for the 2×2×2,
whose diameter is 14; networks small enough to search fast on a laptop CPU.
λ and N are what `deepcubea_solve` searches with by default
(benchmarks/deepcubea_eval.py measures others).

`free_label_config(puzzle, size, target)` is what `free_label_train` starts
from: walks as long as the puzzle's diameter calls for (26 quarter turns on
the 3×3×3 cube, CayleyPy's and EfficientCube's; 14 on the 2×2×2, its
diameter; every button of a Lights Out board, once), the history that keeps
a walk from undoing itself, and a network small enough to train and search
on a CPU (CayleyPy's 0.73 M-parameter cube network: 1024, 256, one residual
block). The default target is "pressed" on Lights Out, "distance" on the
3×3×3 cube (at equal training minutes it solved 8 of 10 cubes at beam 1,024
where "last_move" solved none; runs/free_label_campaign/), "last_move"
elsewhere.
"""

import dataclasses
from typing import Any, Optional

from open_spiel_ext.algorithms.deepcubea import free_labels
from open_spiel_ext.algorithms.deepcubea import puzzles


@dataclasses.dataclass(frozen=True)
class _Recipe:
  walk_length: int
  walks: int
  history: int
  hidden_sizes: tuple[int, ...]
  num_blocks: int
  target: str


_RECIPES = {
    ("rubiks_cube", 3): _Recipe(26, 400, 4, (1024, 256), 1,
                                free_labels.DISTANCE),
    ("rubiks_cube", 2): _Recipe(14, 200, 4, (256, 128), 1,
                                free_labels.LAST_MOVE),
    ("sliding_puzzle", 3): _Recipe(31, 200, 2, (256, 128), 1,
                                   free_labels.LAST_MOVE),
    ("sliding_puzzle", 4): _Recipe(100, 100, 2, (1024, 256), 1,
                                   free_labels.LAST_MOVE),
}


@dataclasses.dataclass(frozen=True)
class DaviSettings:
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


# The settings of the shipped DAVI models (algorithms/deepcubea/models/).
DAVI_SHIPPED = {
    ("sliding_puzzle", 4): DaviSettings(500, (1000, 300), 2, 0.8, 1000),
    ("lights_out", 7): DaviSettings(100, (1000, 300), 2, 0.2, 1000),
    ("rubiks_cube", 2): DaviSettings(20, (1000, 300), 2, 0.6, 1000),
    ("rubiks_cube", 3): DaviSettings(30, (2000, 500), 4, 0.6, 10000),
}


def davi_settings(puzzle: str, size: int) -> DaviSettings:
  """The shipped model's settings, or for a size that ships none those of
  the puzzle's largest shipped size. ValueError for an unknown puzzle or a
  size its game refuses."""
  puzzles.make_engine(puzzle, size)
  if (puzzle, size) in DAVI_SHIPPED:
    return DAVI_SHIPPED[(puzzle, size)]
  sizes = [s for p, s in DAVI_SHIPPED if p == puzzle]
  if not sizes:
    raise ValueError(f"no DAVI settings for puzzle={puzzle!r}; there are for "
                     f"{sorted({p for p, _ in DAVI_SHIPPED})}")
  return DAVI_SHIPPED[(puzzle, max(sizes))]


def _recipe(puzzle: str, size: int) -> _Recipe:
  """The puzzle's recipe; Lights Out's for any size, other puzzles' the
  nearest listed size's."""
  engine = puzzles.make_engine(puzzle, size)
  if puzzle == "lights_out":
    return _Recipe(engine.num_actions, max(10_000 // engine.num_actions, 1),
                   0, (1000, 300), 2, free_labels.PRESSED)
  if (puzzle, size) in _RECIPES:
    return _RECIPES[(puzzle, size)]
  sizes = [s for p, s in _RECIPES if p == puzzle]
  return _RECIPES[(puzzle, min(sizes, key=lambda s: abs(s - size)))]


def free_label_config(puzzle: str, size: int,
                      target: Optional[str] = None) -> free_labels.Config:
  """The recipe's config for a puzzle and target (default: the puzzle's).
  ValueError for an unknown puzzle, a size it lacks, or a target it cannot
  train ("pressed" only on Lights Out, whose moves commute)."""
  recipe = _recipe(puzzle, size)
  target = target or recipe.target
  if target not in free_labels.TARGETS:
    raise ValueError(f"target must be one of {free_labels.TARGETS}, got "
                     f"target={target!r}")
  lights_out = puzzle == "lights_out"
  if target == free_labels.PRESSED and not lights_out:
    raise ValueError(f"target='pressed' needs moves that commute and undo "
                     f"themselves (Lights Out), not {puzzle}")
  config = free_labels.Config(
      puzzle=puzzle, size=size, target=target,
      walk_length=recipe.walk_length, walks=recipe.walks,
      distinct=lights_out, history=recipe.history,
      hidden_sizes=recipe.hidden_sizes, num_blocks=recipe.num_blocks)
  config.validate()
  return config


def replace(config: free_labels.Config, **changes: Any) -> free_labels.Config:
  """The config with `changes` (flags a command line set)."""
  return dataclasses.replace(config, **changes)
