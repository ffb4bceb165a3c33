"""Trains a DeepCubeA cost-to-go network by DAVI, on CPU or GPU.

  python -m open_spiel_ext.examples.deepcubea_train --puzzle=sliding_puzzle \
      --size=4 --iterations=100000 --output_dir=davi_fifteen

Prints progress (loss, target updates, and every --eval_every iterations the
greedy policy's solve rate and mean cost-to-go by scramble depth), writes
metrics.jsonl and training.png, checkpoints every --checkpoint_seconds and
resumes from output_dir/checkpoint.pkl when run again with the same
settings. The trained network is output_dir/model.npz, which
`deepcubea_solve --model=...` reads. Settings left unset take the shipped
model's (`algorithms/deepcubea/puzzles.py`).
"""

import math
from typing import Sequence

from absl import app
from absl import flags

from open_spiel_ext.algorithms.deepcubea import davi
from open_spiel_ext.algorithms.deepcubea import puzzles
from open_spiel_ext.experiments import puzzle_recipes
from open_spiel_ext.utils import cli

_PUZZLE = flags.DEFINE_enum("puzzle", "sliding_puzzle", puzzles.PUZZLES,
                            "Which puzzle.")
# Each puzzle checks its own range of sizes (2 is the smallest of any).
_SIZE = flags.DEFINE_integer("size", 4, "The puzzle's size parameter.",
                             lower_bound=2)
_ITERATIONS = flags.DEFINE_integer("iterations", 100_000,
                                   "Training iterations in all.",
                                   lower_bound=1)
_MAX_SECONDS = flags.DEFINE_float("max_seconds", math.inf,
                                  "Also stop after this many seconds.",
                                  lower_bound=0.0)
_MINUTES = flags.DEFINE_float(
    "minutes", math.inf, "Stop once the run has trained this many minutes "
    "in all (resumed sessions included).", lower_bound=0.0)
_BATCH_SIZE = flags.DEFINE_integer("batch_size", 10_000,
                                   "States per iteration.", lower_bound=1)
_MAX_SCRAMBLE = flags.DEFINE_integer(
    "max_scramble", None, "K: training states are 1..K reverse moves from "
    "the goal (default: the puzzle's).", lower_bound=1)
_SCRAMBLE = flags.DEFINE_enum(
    "scramble", "walk", davi.SCRAMBLES, "walk: random reverse moves, "
    "repeats allowed (DeepCubeA's); distinct: no move twice in a scramble.")
_LOSS_THRESHOLD = flags.DEFINE_float(
    "loss_threshold", 0.05, "ε: the target network is updated only when the "
    "mean loss since the last check is below this.", lower_bound=0.0)
flags.register_validator("loss_threshold", lambda value: value > 0,
                         message="must be above 0")
_CHECK_EVERY = flags.DEFINE_integer(
    "check_every", 1000, "C: iterations between target-update checks.",
    lower_bound=1)
_GENERATION_BATCHES = flags.DEFINE_integer(
    "generation_batches", 1, "Iterations whose states one scramble call draws "
    "(check_every must be a multiple).", lower_bound=1)
_HIDDEN_SIZES = flags.DEFINE_list(
    "hidden_sizes", None, "Dense layers before the residual blocks "
    "(default: the puzzle's; DeepCubeA's paper: 5000,1000).")
_NUM_BLOCKS = flags.DEFINE_integer(
    "num_blocks", None, "Residual blocks (default: the puzzle's; paper: 4).",
    lower_bound=0)
_BATCH_NORM = flags.DEFINE_bool("batch_norm", True,
                                "Batch norm after each dense layer.")
_LEARNING_RATE = flags.DEFINE_float("learning_rate", 1e-3, "Adam step size.",
                                    lower_bound=0.0)
flags.register_validator("learning_rate", lambda value: value > 0,
                         message="must be above 0")
_LR_DECAY = flags.DEFINE_float("lr_decay", 1.0,
                               "Step size multiplier per iteration, in (0, 1].",
                               lower_bound=0.0, upper_bound=1.0)
flags.register_validator("lr_decay", lambda value: value > 0,
                         message="must be above 0")
_SEED = flags.DEFINE_integer("seed", 0, "Random seed.", lower_bound=0)
_OUTPUT_DIR = flags.DEFINE_string("output_dir", "davi_output",
                                  "Checkpoint, model, metrics and plot.")
_CHECKPOINT_SECONDS = flags.DEFINE_float("checkpoint_seconds", 300,
                                         "Seconds between checkpoints.",
                                         lower_bound=0.0)
_LOG_EVERY = flags.DEFINE_integer("log_every", 100,
                                  "Iterations between progress lines (0: "
                                  "never).", lower_bound=0)
_EVAL_EVERY = flags.DEFINE_integer(
    "eval_every", 5000, "Iterations between greedy evaluations (0: never).",
    lower_bound=0)
_EVAL_DEPTHS = flags.DEFINE_integer("eval_depths", 10,
                                    "Scramble depths evaluated.",
                                    lower_bound=1)
_EVAL_STATES = flags.DEFINE_integer("eval_states", 100,
                                    "States per evaluated depth.",
                                    lower_bound=1)
_INIT_MODEL = flags.DEFINE_string(
    "init_model", "", "Start a new run from this model.npz's network (a "
    "DAVI model, or a free_label_train distance model of the same layers: "
    "warm-started DAVI; Adam starts afresh).")
_MIRROR_DIR = flags.DEFINE_string(
    "mirror_dir", "", "Also copy the model, metrics and plot here at every "
    "checkpoint; a run whose output_dir holds no checkpoint resumes from "
    "the mirrored model (Adam afresh).")
_MODEL_DTYPE = flags.DEFINE_enum("model_dtype", "float32",
                                 ["float32", "float16"],
                                 "Precision of the exported weights.")


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  with cli.user_input("size"):
    shipped = puzzle_recipes.davi_settings(_PUZZLE.value, _SIZE.value)
  with cli.user_input("hidden_sizes"):
    hidden_sizes = (tuple(int(h) for h in _HIDDEN_SIZES.value)
                    if _HIDDEN_SIZES.value else shipped.hidden_sizes)
  config = davi.Config(
      puzzle=_PUZZLE.value, size=_SIZE.value,
      max_scramble=_MAX_SCRAMBLE.value or shipped.max_scramble,
      batch_size=_BATCH_SIZE.value, hidden_sizes=hidden_sizes,
      num_blocks=(shipped.num_blocks if _NUM_BLOCKS.value is None
                  else _NUM_BLOCKS.value),
      batch_norm=_BATCH_NORM.value, learning_rate=_LEARNING_RATE.value,
      lr_decay=_LR_DECAY.value, loss_threshold=_LOSS_THRESHOLD.value,
      check_every=_CHECK_EVERY.value,
      generation_batches=_GENERATION_BATCHES.value,
      scramble=_SCRAMBLE.value, seed=_SEED.value)
  run_config = davi.RunConfig(
      iterations=_ITERATIONS.value, output_dir=_OUTPUT_DIR.value,
      max_seconds=_MAX_SECONDS.value,
      max_training_seconds=60 * _MINUTES.value,
      checkpoint_seconds=_CHECKPOINT_SECONDS.value,
      log_every=_LOG_EVERY.value, eval_every=_EVAL_EVERY.value,
      eval_depths=_EVAL_DEPTHS.value, eval_states=_EVAL_STATES.value,
      model_dtype=_MODEL_DTYPE.value, init_model=_INIT_MODEL.value,
      mirror_dir=_MIRROR_DIR.value)
  with cli.user_input():
    config.validate()
  if run_config.init_model:  # A model of this network, before any work.
    with cli.user_input("init_model"):
      davi.Davi(config).from_model(run_config.init_model)
  cli.check_memory(davi.Davi(config).training_bytes(),
                   ["batch_size", "generation_batches"], on_device=True)
  print(f"DAVI on {puzzles.model_name(config.puzzle, config.size)}: {config}",
        flush=True)
  davi.train(config, run_config, log=lambda line: print(line, flush=True))


if __name__ == "__main__":
  cli.run(main)
