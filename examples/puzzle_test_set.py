"""Writes a seeded puzzle test set with optimal solution lengths, as JSON.

  python -m open_spiel_ext.examples.puzzle_test_set --puzzle=sliding_puzzle \
      --size=4 --count=100 --seed=0 --output=fifteen_puzzle_test.json

Each instance's `state` loads as `pyspiel.load_game("<puzzle>(size=..,
state=..)")`; `optimal_length` and `solution` come from the exact solvers
(`open_spiel_ext/experiments/puzzle_references/instances.py` says which), or are null where no
exact solver is within reach (3×3×3 cube, sliding puzzles above 15).
Instances are saved beside the output as they are solved (`<output>.progress`),
so an interrupted run goes on from there with the same command.
"""

import dataclasses
import json
import time
from typing import Sequence

from absl import app
from absl import flags

from open_spiel_ext.experiments.puzzle_references import instances
from open_spiel_ext.utils import checkpoints
from open_spiel_ext.utils import cli

_PUZZLE = flags.DEFINE_enum("puzzle", "sliding_puzzle", instances.PUZZLES,
                            "Which puzzle.")
# Each puzzle checks its own range of sizes (2 is the smallest of any).
_SIZE = flags.DEFINE_integer("size", 4, "The puzzle's size parameter.",
                             lower_bound=2)
_COUNT = flags.DEFINE_integer("count", 100, "Instances.", lower_bound=1)
# numpy's RandomState takes seeds below 2**32.
_SEED = flags.DEFINE_integer("seed", 0, "Random seed of the instances.",
                             lower_bound=0, upper_bound=2**32 - 1)
_SOLVE = flags.DEFINE_bool("solve", True, "Compute optimal lengths.")
_OUTPUT = flags.DEFINE_string("output", "puzzle_test_set.json", "Output file.")


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  with cli.user_input("size"):
    instances.make_puzzle(_PUZZLE.value, _SIZE.value)
  settings = {"puzzle": _PUZZLE.value, "size": _SIZE.value,
              "count": _COUNT.value, "seed": _SEED.value,
              "solve": _SOLVE.value}
  records = checkpoints.output_progress(_OUTPUT.value, settings).get(
      "instances", [])
  if records:
    print(f"resuming: {len(records)} instances already solved", flush=True)
  began = time.perf_counter()
  for index, instance in enumerate(
      instances.generate(_PUZZLE.value, _SIZE.value, _COUNT.value, _SEED.value,
                         _SOLVE.value, start=len(records)), len(records)):
    records.append(dataclasses.asdict(instance))
    checkpoints.save_output_progress(_OUTPUT.value, settings,
                                     {"instances": records})
    print(f"instance {index + 1}/{_COUNT.value}: optimal length "
          f"{instance.optimal_length} ({time.perf_counter() - began:.1f} s)",
          flush=True)
  checkpoints.finish_output(_OUTPUT.value, json.dumps(
      {"puzzle": _PUZZLE.value, "size": _SIZE.value, "seed": _SEED.value,
       "instances": records}, indent=1))
  print(f"wrote {len(records)} instances to {_OUTPUT.value}")


if __name__ == "__main__":
  cli.run(main)
