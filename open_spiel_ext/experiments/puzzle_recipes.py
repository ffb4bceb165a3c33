"""Recipes for the free-label puzzle networks: settings per puzzle.

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
