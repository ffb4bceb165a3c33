"""Writes solvable Sokoban levels made by reverse play, in the Boxoban format.

The package's `games/puzzles/data/sokoban_levels.txt` was written by

  python -m open_spiel_ext.examples.generate_sokoban_levels \
      --num_levels=1000 --seed=0 --output=games/puzzles/data/sokoban_levels.txt
"""

import time
from typing import Sequence

from absl import app
from absl import flags

from open_spiel_ext.games.puzzles import sokoban_generator
from open_spiel_ext.utils import cli

_NUM_LEVELS = flags.DEFINE_integer("num_levels", 1000, "Levels to write.",
                                   lower_bound=1)
# numpy's RandomState takes seeds below 2**32.
_SEED = flags.DEFINE_integer("seed", 0, "Random seed.", lower_bound=0,
                             upper_bound=2**32 - 1)
# The generator also refuses a board too small for the boxes.
_ROWS = flags.DEFINE_integer("rows", 10, "Board rows, walls included.",
                             lower_bound=4)
_COLS = flags.DEFINE_integer("cols", 10, "Board columns, walls included.",
                             lower_bound=4)
_BOXES = flags.DEFINE_integer("boxes", 4, "Boxes (and goals) per level.",
                              lower_bound=1)
_REVERSE_STEPS = flags.DEFINE_integer(
    "reverse_steps", 300, "Random reverse moves from the solved position.",
    lower_bound=1)
_OUTPUT = flags.DEFINE_string("output", "sokoban_levels.txt", "Output file.")


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  began = time.perf_counter()
  with cli.user_input():
    levels = sokoban_generator.generate_levels(
        _NUM_LEVELS.value, _SEED.value, rows=_ROWS.value, cols=_COLS.value,
        boxes=_BOXES.value, reverse_steps=_REVERSE_STEPS.value)
  with open(_OUTPUT.value, "w") as output:
    output.write(sokoban_generator.format_levels(levels))
  print(f"wrote {len(levels)} levels to {_OUTPUT.value} in "
        f"{time.perf_counter() - began:.1f} s")


if __name__ == "__main__":
  cli.run(main)
