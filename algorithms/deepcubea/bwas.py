"""Batch weighted A* (BWAS) with a learned cost-to-go, and the shipped models.

`solve` runs `puzzle_solvers.batch_astar.batch_weighted_astar` over a
puzzle's batched engine with a `davi.CostToGo` network as the heuristic:
N nodes expanded per step, one jitted network call on all their children,
f = λ·g + h, a closed set that reopens nodes reached by a cheaper path.
`shipped_model` loads the network trained for a puzzle that ships inside the
package (`algorithms/deepcubea/models/`).
"""

import os
from typing import Callable, Optional

import numpy as np

from open_spiel_ext.algorithms.deepcubea import davi
from open_spiel_ext.algorithms.deepcubea import puzzles
from open_spiel_ext.algorithms.puzzle_solvers import batch_astar


def shipped_model_path(puzzle: str, size: int) -> str:
  """The packaged model file of a puzzle; ValueError if none ships."""
  path = puzzles.shipped_path(puzzles.model_name(puzzle, size))
  if not os.path.exists(path):
    raise ValueError(
        f"no shipped model for puzzle={puzzle!r} size={size}; shipped: "
        f"{puzzles.shipped_stems()}. Train one with "
        "examples/deepcubea_train.py and pass its model.npz")
  return path


def shipped_model(puzzle: str, size: int) -> davi.CostToGo:
  """The cost-to-go network shipped for a puzzle."""
  return davi.CostToGo.load(shipped_model_path(puzzle, size))


def solve(model: davi.CostToGo,
          start: np.ndarray,
          weight: float,
          batch_size: int,
          max_nodes: int = 50_000_000,
          memory_limit: Optional[int] = None,
          progress: Optional[Callable[[batch_astar.SearchProgress],
                                      None]] = None,
          progress_seconds: float = 5.0,
          max_seconds: float = float("inf")) -> batch_astar.AStarResult:
  """BWAS from `start` with the model's puzzle engine and network.

  Raises ValueError if `start` is not a state the puzzle can be in (an
  impossible cube, an unsolvable sliding board). `memory_limit`, `progress`,
  `progress_seconds` and `max_seconds` are
  `batch_astar.batch_weighted_astar`'s.
  """
  engine = model.engine
  if np.shape(start) != tuple(engine.goal.shape):
    raise ValueError(f"start has shape {np.shape(start)}, but "
                     f"{puzzles.model_name(model.config.puzzle, model.config.size)}"
                     f" states have shape {tuple(engine.goal.shape)}")
  engine.check_states(np.asarray(start)[None])
  return batch_astar.batch_weighted_astar(
      np.asarray(start, np.int8), batch_astar.engine_expander(engine), model,
      lambda states: np.asarray(engine.is_goal(states)), weight=weight,
      batch_size=batch_size, max_nodes=max_nodes, memory_limit=memory_limit,
      progress=progress, progress_seconds=progress_seconds,
      max_seconds=max_seconds)
