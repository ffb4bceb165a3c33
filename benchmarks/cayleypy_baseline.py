"""CayleyPy as a baseline for our 3×3×3 cube solvers (its model, its search).

Trains CayleyPy's random-walk-distance model on the cube for --minutes of one
CPU core (resuming a saved model of the same recipe and seed) and solves
seeded scrambles of each --scramble_moves with CayleyPy's beam search, every
solution replayed in our game; `cayleypy_solver.py` says what is CayleyPy's
and what is ours, and how the states are mapped.

  python benchmarks/cayleypy_baseline.py --minutes=10 \
      --output_dir=/tmp/cayleypy --beam_width=1024 --scramble_moves=10,20
"""

import os
from typing import Sequence

from absl import app
from absl import flags
import torch

import cayleypy_solver
from open_spiel_ext.games.puzzles import rubiks_cube
from open_spiel_ext.utils import cli

_OUTPUT_DIR = flags.DEFINE_string("output_dir", "benchmark_results/cayleypy",
                                  "Where the model and its record go.")
_MINUTES = flags.DEFINE_float("minutes", 10.0,
                              "Training wall time, on one CPU core.")
_SEED = flags.DEFINE_integer("seed", 0, "Seed of the training run.")
_BEAM_WIDTH = flags.DEFINE_integer("beam_width", 1024, "Beam width.")
_MAX_STEPS = flags.DEFINE_integer("max_steps", 100,
                                  "Beam search depth limit.")
_SCRAMBLES = flags.DEFINE_list("scramble_moves", ["5", "10", "20", "100"],
                               "Random quarter turns of the solved cubes.")
_COUNT = flags.DEFINE_integer("count", 5, "Cubes per scramble length.")


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"unexpected arguments: {argv[1:]}")
  torch.set_num_threads(1)  # The search too, like the training.
  faces = cayleypy_solver.colour_map()
  names = cayleypy_solver.graph_definition().generator_names
  print("our faces -> CayleyPy's blocks: " + ", ".join(
      f"{f}->{cayleypy_solver.THEIR_FACES[faces[i]]}" for i, f in enumerate(
          rubiks_cube.FACES)))
  print("our moves -> CayleyPy's generators: " + ", ".join(
      f"{rubiks_cube.MOVE_NAMES[a]}->{names[g]}"
      for a, g in enumerate(cayleypy_solver.move_map())))
  path = cayleypy_solver.train(_MINUTES.value, _OUTPUT_DIR.value, _SEED.value)
  solver = cayleypy_solver.load(path)
  game = rubiks_cube.RubiksCube(cayleypy_solver.SIZE)
  results = []
  for moves in map(int, _SCRAMBLES.value):
    for index in range(_COUNT.value):
      state = game.scramble(moves, seed=1000 * moves + index)
      run = cayleypy_solver.solve(solver, state, _BEAM_WIDTH.value,
                                  _MAX_STEPS.value)
      results.append(dict(run, scramble_moves=moves, index=index))
      length = "-" if run["actions"] is None else len(run["actions"])
      print(f"scramble {moves} #{index}: length {length}, "
            f"{run['nodes_expanded']} expanded, {run['seconds']:.2f} s",
            flush=True)
  cayleypy_solver.write_json(
      os.path.join(_OUTPUT_DIR.value, f"solves_beam{_BEAM_WIDTH.value}.json"),
      {"weights": path, "beam_width": _BEAM_WIDTH.value,
       "max_steps": _MAX_STEPS.value, "runs": results})


if __name__ == "__main__":
  cli.run(main)
