"""Writes solvable Sokoban levels made by reverse play, in the Boxoban format.

The package's `games/puzzles/data/sokoban_levels.txt` was written by

  python -m open_spiel_ext.examples.generate_sokoban_levels \
      --num_levels=1000 --seed=0 --output=games/puzzles/data/sokoban_levels.txt

Levels made so far and the random state are saved beside the output every few
seconds and on Ctrl-C (`<output>.progress`), so an interrupted run goes on
with the same command and writes the same file as one never stopped.
"""

import time
from typing import Sequence

from absl import app
from absl import flags
import numpy as np

from open_spiel_ext.games.puzzles import sokoban_generator
from open_spiel_ext.utils import checkpoints
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
SAVE_EVERY_SECONDS = 5.0


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  settings = {"num_levels": _NUM_LEVELS.value, "seed": _SEED.value,
              "rows": _ROWS.value, "cols": _COLS.value, "boxes": _BOXES.value,
              "reverse_steps": _REVERSE_STEPS.value}
  progress = checkpoints.output_progress(_OUTPUT.value, settings)
  levels, rng = progress.get("levels", []), np.random.RandomState(_SEED.value)
  if levels:
    rng.set_state(progress["random_state"])
    print(f"resuming: {len(levels)} levels already made", flush=True)
  began = saved = time.perf_counter()

  def save() -> None:
    checkpoints.save_output_progress(
        _OUTPUT.value, settings,
        {"levels": levels, "random_state": rng.get_state()})

  # A stop signal waits for the level being made: saved, then raised.
  with checkpoints.interrupts_held() as interrupts:
    while len(levels) < _NUM_LEVELS.value:
      with cli.user_input():
        levels.append(sokoban_generator.generate_level(
            rng, rows=_ROWS.value, cols=_COLS.value, boxes=_BOXES.value,
            reverse_steps=_REVERSE_STEPS.value))
      if interrupts.requested:
        save()
        interrupts.stop()
      if time.perf_counter() - saved > SAVE_EVERY_SECONDS:
        save()
        saved = time.perf_counter()
        print(f"{len(levels)}/{_NUM_LEVELS.value} levels "
              f"({saved - began:.1f} s)", flush=True)
  checkpoints.finish_output(_OUTPUT.value,
                            sokoban_generator.format_levels(levels))
  print(f"wrote {len(levels)} levels to {_OUTPUT.value} in "
        f"{time.perf_counter() - began:.1f} s")


if __name__ == "__main__":
  cli.run(main)
