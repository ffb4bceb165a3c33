"""Trains a puzzle network on free labels from random walks, on CPU or GPU.

  python -m open_spiel_ext.examples.free_label_train --puzzle=rubiks_cube \
      --size=3 --target=last_move --minutes=60 --output_dir=cube_last_move
  python -m open_spiel_ext.examples.free_label_train --puzzle=lights_out \
      --size=7 --target=pressed --minutes=10 --output_dir=lights_out_pressed

Targets (`algorithms/deepcubea/free_labels.py`): `distance`, the steps of a
non-backtracking random walk from the goal (CayleyPy); `last_move`, the move
that undoes the walk's last step (EfficientCube); `pressed`, the set of
moves a walk that never repeats one has taken (Lights Out). Prints progress
and every --eval_every iterations the greedy search's solve rate by walk
depth, writes metrics.jsonl and training.png, checkpoints every
--checkpoint_seconds and resumes from output_dir/checkpoint.pkl when run
again with the same settings (--iterations and --minutes count the resumed
run's too). The model is output_dir/model.npz, which `deepcubea_solve
--search=beam --model=...` reads. Settings left unset take the recipe's
(`open_spiel_ext/experiments/puzzle_recipes.py`).
"""

import math
from typing import Sequence

from absl import app
from absl import flags

from open_spiel_ext.algorithms.deepcubea import free_labels
from open_spiel_ext.algorithms.deepcubea import puzzles
from open_spiel_ext.experiments import puzzle_recipes
from open_spiel_ext.utils import cli

_PUZZLE = flags.DEFINE_enum("puzzle", "rubiks_cube", puzzles.PUZZLES,
                            "Which puzzle.")
_SIZE = flags.DEFINE_integer("size", 3, "The puzzle's size parameter.",
                             lower_bound=2)
_TARGET = flags.DEFINE_enum("target", None, free_labels.TARGETS,
                            "What the network learns (default: the "
                            "recipe's for the puzzle).")
_ITERATIONS = flags.DEFINE_integer("iterations", 10**9,
                                   "Training iterations in all.",
                                   lower_bound=1)
_MINUTES = flags.DEFINE_float(
    "minutes", math.inf, "Stop once the run has trained this many minutes "
    "in all (resumed sessions included).", lower_bound=0.0)
_MAX_SECONDS = flags.DEFINE_float("max_seconds", math.inf,
                                  "Also stop this process after this many "
                                  "seconds.", lower_bound=0.0)
_WALK_LENGTH = flags.DEFINE_integer("walk_length", None,
                                    "Steps of each walk.", lower_bound=1)
_WALKS = flags.DEFINE_integer("walks", None, "Walks per iteration.",
                              lower_bound=1)
_HISTORY = flags.DEFINE_integer(
    "history", None, "A walk never returns to any of its last this many "
    "states.", lower_bound=0)
_HIDDEN_SIZES = flags.DEFINE_list("hidden_sizes", None,
                                  "Dense layers before the residual blocks.")
_NUM_BLOCKS = flags.DEFINE_integer("num_blocks", None, "Residual blocks.",
                                   lower_bound=0)
_LEARNING_RATE = flags.DEFINE_float("learning_rate", None, "Adam step size.",
                                    lower_bound=0.0)
_LR_DECAY = flags.DEFINE_float("lr_decay", None,
                               "Step size multiplier per iteration, in (0, 1].",
                               lower_bound=0.0, upper_bound=1.0)
_SEED = flags.DEFINE_integer("seed", 0, "Random seed.", lower_bound=0)
_OUTPUT_DIR = flags.DEFINE_string("output_dir", "free_label_output",
                                  "Checkpoint, model, metrics and plot.")
_MIRROR_DIR = flags.DEFINE_string(
    "mirror_dir", "", "Also copy the model, metrics and plot here at every "
    "checkpoint.")
_CHECKPOINT_SECONDS = flags.DEFINE_float("checkpoint_seconds", 300,
                                         "Seconds between checkpoints.",
                                         lower_bound=0.0)
_LOG_EVERY = flags.DEFINE_integer("log_every", 100,
                                  "Iterations between progress lines (0: "
                                  "never).", lower_bound=0)
_EVAL_EVERY = flags.DEFINE_integer(
    "eval_every", 1000, "Iterations between greedy evaluations (0: never).",
    lower_bound=0)
_EVAL_STATES = flags.DEFINE_integer("eval_states", 100,
                                    "States per evaluated depth.",
                                    lower_bound=1)


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  with cli.user_input("size"):
    recipe = puzzle_recipes.free_label_config(_PUZZLE.value, _SIZE.value,
                                              _TARGET.value)
  overrides = cli.given({
      "walk_length": _WALK_LENGTH, "walks": _WALKS, "history": _HISTORY,
      "num_blocks": _NUM_BLOCKS, "learning_rate": _LEARNING_RATE,
      "lr_decay": _LR_DECAY})
  if _HIDDEN_SIZES.value:
    with cli.user_input("hidden_sizes"):
      overrides["hidden_sizes"] = tuple(int(h) for h in _HIDDEN_SIZES.value)
  config = puzzle_recipes.replace(recipe, seed=_SEED.value, **overrides)
  with cli.user_input():
    config.validate()
  run_config = free_labels.RunConfig(
      iterations=_ITERATIONS.value, output_dir=_OUTPUT_DIR.value,
      max_seconds=_MAX_SECONDS.value,
      max_training_seconds=60 * _MINUTES.value,
      checkpoint_seconds=_CHECKPOINT_SECONDS.value,
      log_every=_LOG_EVERY.value, eval_every=_EVAL_EVERY.value,
      eval_states=_EVAL_STATES.value, mirror_dir=_MIRROR_DIR.value)
  cli.check_memory(free_labels.Trainer(config).training_bytes(),
                   ["walks", "walk_length"], on_device=True)
  print(f"free labels ({config.target}) on "
        f"{puzzles.model_name(config.puzzle, config.size)}: {config}",
        flush=True)
  free_labels.train(config, run_config,
                    log=lambda line: print(line, flush=True))


if __name__ == "__main__":
  cli.run(main)
