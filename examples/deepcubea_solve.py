"""Solves a puzzle by BWAS with a DeepCubeA cost-to-go network.

  python -m open_spiel_ext.examples.deepcubea_solve --puzzle=sliding_puzzle \
      --size=4 --scramble=200 --seed=3
  python -m open_spiel_ext.examples.deepcubea_solve --puzzle=rubiks_cube \
      --size=2 --state="UUUU/RRRR/FFFF/DDDD/LLLL/BBBB"

The start is `--state` in the game's notation (as `pyspiel.load_game(
"<puzzle>(size=..,state=..)")` takes it; a state no real puzzle can be in is
refused) or the goal moved by `--scramble` seeded random moves. The network
is the one shipped for the puzzle unless `--model` names a model.npz from
`deepcubea_train`. Prints a progress line every few seconds (nodes, open
list, best f and h, memory), then the solution in move notation, its length,
nodes generated, seconds and nodes per second, and checks the solution by
playing it in the pyspiel game. The search gives up after --max_nodes nodes
or --max_memory_gb; the exit code is then 1 (2 for bad flags).
"""

from typing import Sequence

from absl import app
from absl import flags
import pyspiel

from open_spiel_ext.algorithms.deepcubea import bwas
from open_spiel_ext.algorithms.deepcubea import davi
from open_spiel_ext.algorithms.deepcubea import puzzles
from open_spiel_ext.algorithms.puzzle_solvers import batch_astar
from open_spiel_ext.algorithms.puzzle_solvers import instances
from open_spiel_ext.utils import cli

_PUZZLE = flags.DEFINE_enum("puzzle", "sliding_puzzle", puzzles.PUZZLES,
                            "Which puzzle.")
# Each puzzle checks its own range of sizes (2 is the smallest of any).
_SIZE = flags.DEFINE_integer("size", 4, "The puzzle's size parameter.",
                             lower_bound=2)
_STATE = flags.DEFINE_string("state", "", "The start, in the game's notation.")
_SCRAMBLE = flags.DEFINE_integer(
    "scramble", 100, "Without --state: random moves from the goal.",
    lower_bound=0)
# numpy's RandomState takes seeds below 2**32.
_SEED = flags.DEFINE_integer("seed", 0, "Seed of the scramble.",
                             lower_bound=0, upper_bound=2**32 - 1)
_MODEL = flags.DEFINE_string("model", "",
                             "A model.npz (default: the shipped model).")
_WEIGHT = flags.DEFINE_float("weight", None,
                             "λ in f = λ·g + h, in [0, 1] (default: the "
                             "puzzle's).", lower_bound=0.0, upper_bound=1.0)
_BATCH = flags.DEFINE_integer(
    "batch_size", None, "N, nodes expanded per step (default: the puzzle's).",
    lower_bound=1)
_MAX_NODES = flags.DEFINE_integer("max_nodes", 50_000_000,
                                  "Give up after generating this many nodes.",
                                  lower_bound=1)
_MAX_MEMORY = flags.DEFINE_float(
    "max_memory_gb", None, "Give up once the search has taken this many GiB "
    "(default, or 0: 80% of the memory available when it starts).",
    lower_bound=0.0)
_PROGRESS_SECONDS = flags.DEFINE_float("progress_seconds", 5.0,
                                       "Seconds between progress lines.",
                                       lower_bound=0.0)

NO_SOLUTION_EXIT_CODE = 1


def _progress_line(progress: batch_astar.SearchProgress) -> None:
  print(f"  {progress.seconds:7.1f} s  {progress.nodes_generated:>12,} nodes "
        f"({progress.nodes_per_second:,.0f}/s)  open {progress.open_size:,}  "
        f"best f {progress.best_f:.1f} h {progress.best_h:.1f}  memory "
        f"{progress.memory_used / 2**30:.1f} of "
        f"{progress.memory_limit / 2**30:.1f} GiB", flush=True)


def main(argv: Sequence[str]) -> int:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  puzzle_name, size = _PUZZLE.value, _SIZE.value
  with cli.user_input("size"):
    settings = puzzles.defaults(puzzle_name, size)
  with cli.user_input("model"):
    model = (davi.CostToGo.load(_MODEL.value) if _MODEL.value else
             bwas.shipped_model(puzzle_name, size))
  if (model.config.puzzle, model.config.size) != (puzzle_name, size):
    raise app.UsageError(
        f"--model is for {model.config.puzzle} size {model.config.size}, not "
        f"{puzzle_name} size {size}")
  puzzle = instances.make_puzzle(puzzle_name, size)
  with cli.user_input("state" if _STATE.value else "scramble"):
    start = (puzzle.parse(_STATE.value) if _STATE.value else
             puzzle.scramble(_SCRAMBLE.value, _SEED.value))
  weight = settings.weight if _WEIGHT.value is None else _WEIGHT.value
  batch = settings.search_batch if _BATCH.value is None else _BATCH.value
  memory_limit = (int(_MAX_MEMORY.value * 2**30) if _MAX_MEMORY.value else
                  batch_astar.default_memory_limit())
  print(f"start: {puzzle.to_string(start)}")
  print(f"BWAS λ={weight} N={batch}, cost-to-go estimate of the start "
        f"{float(model(start[None])[0]):.1f}; stops after "
        f"{_MAX_NODES.value:,} nodes or {memory_limit / 2**30:.1f} GiB",
        flush=True)
  with cli.user_input():
    solution = bwas.solve(model, start, weight, batch, _MAX_NODES.value,
                          memory_limit, _progress_line,
                          _PROGRESS_SECONDS.value)
  if solution.actions is None:
    print(f"no solution: {solution.stop_reason} after "
          f"{solution.nodes_generated:,} nodes ({solution.seconds:.1f} s)")
    return NO_SOLUTION_EXIT_CODE
  state = pyspiel.load_game(puzzle_name, {
      "size": size, "state": puzzle.to_string(start),
      "max_length": len(solution.actions) + 1}).new_initial_state()
  for action in solution.actions:
    state.apply_action(action)
  if not state.is_solved():
    raise RuntimeError("the solution does not solve the puzzle")
  print("solution: " + " ".join(puzzle.action_name(a)
                                for a in solution.actions))
  print(f"length {len(solution.actions)}, {solution.nodes_generated:,} nodes "
        f"generated in {solution.seconds:.2f} s "
        f"({solution.nodes_per_second:,.0f} nodes/s); checked in pyspiel")
  return 0


if __name__ == "__main__":
  cli.run(main)
