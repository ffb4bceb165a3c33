"""Solves a puzzle with a learned model: BWAS, beam search or greedy search.

  python -m open_spiel_ext.examples.deepcubea_solve --puzzle=sliding_puzzle \
      --size=4 --scramble=200 --seed=3
  python -m open_spiel_ext.examples.deepcubea_solve --puzzle=rubiks_cube \
      --size=3 --search=beam --beam_width=4096 --scramble=100 --seed=5
  python -m open_spiel_ext.examples.deepcubea_solve --puzzle=lights_out \
      --size=7 --search=greedy --scramble=1000

The start is `--state` in the game's notation (as `pyspiel.load_game(
"<puzzle>(size=..,state=..)")` takes it; a state no real puzzle can be in is
refused) or the goal moved by `--scramble` seeded random moves.

--search=bwas: batch weighted A* with a cost-to-go network (DeepCubeA's
DAVI model, or a free-label "distance" model); prints a progress line every
few seconds (nodes, open list, best f and h, memory) and gives up after
--max_nodes children, --max_memory_gb or --max_seconds (10 minutes unless
told). --search=beam: batch beam search of --beam_width states a depth with
a free-label model (a policy keeps the likeliest paths, a distance model the
nearest children; duplicates dropped), giving up after --max_depth depths,
--max_nodes expanded states or --max_seconds. --search=greedy: the cheapest
move each time (on Lights Out with a "pressed" model, never a button
twice). The model is the one shipped for
the puzzle and search unless --model names a model.npz from
`deepcubea_train` or `free_label_train`.

Prints the solution in move notation, its length, the states expanded and
the children evaluated, and seconds, after checking the solution by playing
it in the pyspiel game. Exit code 0 when solved, 1 when not, 2 for bad
flags.
"""

from typing import Sequence

from absl import app
from absl import flags
import pyspiel

from open_spiel_ext.algorithms.deepcubea import beam
from open_spiel_ext.algorithms.deepcubea import bwas
from open_spiel_ext.algorithms.deepcubea import free_labels
from open_spiel_ext.algorithms.deepcubea import puzzles
from open_spiel_ext.algorithms.puzzle_solvers import batch_astar
from open_spiel_ext.experiments import puzzle_recipes
from open_spiel_ext.experiments.puzzle_references import instances
from open_spiel_ext.utils import cli

SEARCHES = ("bwas", "beam", "greedy")

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
_SEARCH = flags.DEFINE_enum("search", "bwas", SEARCHES,
                            "bwas: batch weighted A*; beam: batch beam "
                            "search; greedy: the cheapest move each time.")
_MODEL = flags.DEFINE_string("model", "",
                             "A model.npz (default: the one shipped for the "
                             "puzzle and search).")
_BEAM_WIDTH = flags.DEFINE_integer("beam_width", 4096,
                                   "--search=beam: states kept a depth.",
                                   lower_bound=1)
_MAX_DEPTH = flags.DEFINE_integer("max_depth", 100,
                                  "--search=beam: give up after this many "
                                  "depths.", lower_bound=1)
_WEIGHT = flags.DEFINE_float("weight", None,
                             "λ in f = λ·g + h, in [0, 1] (default: the "
                             "puzzle's).", lower_bound=0.0, upper_bound=1.0)
_BATCH = flags.DEFINE_integer(
    "batch_size", None, "N, nodes expanded per step (default: the puzzle's).",
    lower_bound=1)
_MAX_NODES = flags.DEFINE_integer(
    "max_nodes", 50_000_000, "Give up after this many nodes (bwas: children "
    "generated; beam: states expanded).", lower_bound=1)
_MAX_MEMORY = flags.DEFINE_float(
    "max_memory_gb", None, "Give up once the search has taken this many GiB "
    "(default, or 0: 80% of the memory available when it starts).",
    lower_bound=0.0)
_MAX_SECONDS = flags.DEFINE_float(
    "max_seconds", 600.0, "Give up after searching this long (bwas and "
    "beam).", lower_bound=0.001)
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


def _model(puzzle_name: str, size: int, search: str):
  """The --model file, or the one shipped for the puzzle and search."""
  if _MODEL.value:
    with cli.user_input("model"):
      model = free_labels.load_model(_MODEL.value)
  elif search == "bwas":
    with cli.user_input("size"):
      model = bwas.shipped_model(puzzle_name, size)
  else:
    with cli.user_input("size"):
      model = free_labels.Model.load(
          free_labels.shipped_model_path(puzzle_name, size))
  if (model.config.puzzle, model.config.size) != (puzzle_name, size):
    raise app.UsageError(
        f"--model is for {model.config.puzzle} size {model.config.size}, not "
        f"{puzzle_name} size {size}")
  if search != "bwas" and not isinstance(model, free_labels.Model):
    raise app.UsageError(f"--search={search} needs a free-label model "
                         f"(free_label_train's); {_MODEL.value} is a DAVI "
                         "cost-to-go model: use --search=bwas")
  if search == "bwas" and getattr(model, "is_policy", False):
    raise app.UsageError(f"--search=bwas needs a cost-to-go model; "
                         f"{_MODEL.value} is a {model.config.target!r} policy:"
                         " use --search=beam or --search=greedy")
  return model


def _bwas(model, start):
  """BWAS with the flags' settings and progress lines."""
  with cli.user_input("size"):
    settings = puzzle_recipes.davi_settings(model.config.puzzle,
                                            model.config.size)
  weight = settings.weight if _WEIGHT.value is None else _WEIGHT.value
  batch = settings.search_batch if _BATCH.value is None else _BATCH.value
  memory_limit = (int(_MAX_MEMORY.value * 2**30) if _MAX_MEMORY.value else
                  batch_astar.default_memory_limit())
  print(f"BWAS λ={weight} N={batch}, cost-to-go estimate of the start "
        f"{float(model(start[None])[0]):.1f}; stops after "
        f"{_MAX_NODES.value:,} nodes, {memory_limit / 2**30:.1f} GiB or "
        f"{_MAX_SECONDS.value:g} s", flush=True)
  with cli.user_input():
    result = bwas.solve(model, start, weight, batch, _MAX_NODES.value,
                        memory_limit, _progress_line, _PROGRESS_SECONDS.value,
                        _MAX_SECONDS.value)
  return (result.actions, result.stop_reason, result.expansions,
          result.nodes_generated, result.seconds)


def _learned_search(model, start, search: str):
  """Beam or greedy search with a free-label model."""
  if search == "beam":
    print(f"beam search, width {_BEAM_WIDTH.value:,}, {model.config.target} "
          f"model; stops after {_MAX_DEPTH.value} depths, "
          f"{_MAX_NODES.value:,} states expanded or {_MAX_SECONDS.value:g} s",
          flush=True)
    with cli.user_input():
      result = beam.beam_search(model, start, _BEAM_WIDTH.value,
                                _MAX_DEPTH.value, _MAX_NODES.value,
                                _MAX_SECONDS.value)
  else:
    print(f"greedy search, {model.config.target} model", flush=True)
    with cli.user_input():
      result = beam.greedy(model, start)
  return (result.actions, result.stop_reason, result.nodes_expanded,
          result.children, result.seconds)


def main(argv: Sequence[str]) -> int:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  puzzle_name, size, search = _PUZZLE.value, _SIZE.value, _SEARCH.value
  model = _model(puzzle_name, size, search)
  puzzle = instances.make_puzzle(puzzle_name, size)
  with cli.user_input("state" if _STATE.value else "scramble"):
    start = (puzzle.parse(_STATE.value) if _STATE.value else
             puzzle.scramble(_SCRAMBLE.value, _SEED.value))
  print(f"start: {puzzle.to_string(start)}")
  actions, stop_reason, expanded, children, seconds = (
      _bwas(model, start) if search == "bwas" else
      _learned_search(model, start, search))
  if actions is None:
    print(f"no solution: {stop_reason} after {expanded:,} states expanded, "
          f"{children:,} children evaluated ({seconds:.1f} s)")
    return NO_SOLUTION_EXIT_CODE
  state = pyspiel.load_game(puzzle_name, {
      "size": size, "state": puzzle.to_string(start),
      "max_length": len(actions) + 1}).new_initial_state()
  for action in actions:
    state.apply_action(action)
  if not state.is_solved():
    raise RuntimeError("the solution does not solve the puzzle")
  print("solution: " + " ".join(puzzle.action_name(a) for a in actions))
  print(f"length {len(actions)}, {expanded:,} states expanded, "
        f"{children:,} children evaluated in {seconds:.2f} s "
        f"({children / max(seconds, 1e-9):,.0f} nodes/s); checked in pyspiel")
  return 0


if __name__ == "__main__":
  cli.run(main)
