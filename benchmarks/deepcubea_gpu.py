"""DeepCubeA training sized for a lent GPU, continuing from a model, and the
step that ships its model if it beats the shipped one.

Training (the default): DAVI on --puzzle from --init_model (default: the
shipped model; a model an earlier call brought back continues the run), with
the model's settings at --batch_size (others by the flags; --hidden_sizes
or --num_blocks start a new network of that size instead), for
--minutes of wall time, in --run_dir; every --checkpoint_minutes it exports
the model and copies it with the metrics and the training plot into
--output_dir (model.npz, at --model_dtype, a few MiB; the checkpoint with
Adam's moments is larger than the device tool brings back, and a later call
starts Adam afresh from the model). At the end it compares the new model
with the one it started from by their greedy policies' solve rates on the
same scrambles at --eval_depths and writes verdict.json. On the device
machine, through `benchmarks/deepcubea_gpu.sh` (which installs the carried
wheels):

  bash benchmarks/deepcubea_gpu.sh --puzzle=rubiks_cube --size=3

Shipping (--candidate=<model.npz>, on this machine): the same comparison
against the shipped model and, with --ship, the candidate copied over the
shipped file if its greedy policy solves more:

  python benchmarks/deepcubea_gpu.py --candidate=/work/.device/.../model.npz \\
      --puzzle=rubiks_cube --size=3 --eval_states=100 --ship
"""

import dataclasses
import json
import os
import time
from typing import Sequence

from absl import app
from absl import flags
import jax

from open_spiel_ext.algorithms.deepcubea import bwas
from open_spiel_ext.algorithms.deepcubea import davi
from open_spiel_ext.algorithms.deepcubea import puzzles
from open_spiel_ext.algorithms.deepcubea import shipping
from open_spiel_ext.utils import cli

_PUZZLE = flags.DEFINE_enum("puzzle", "rubiks_cube", puzzles.PUZZLES,
                            "The puzzle.")
_SIZE = flags.DEFINE_integer("size", 3, "The puzzle's size parameter.")
_INIT_MODEL = flags.DEFINE_string(
    "init_model", None, "The model training continues from (default: the "
    "shipped one).")
_MINUTES = flags.DEFINE_float(
    "minutes", 6.0, "Training minutes, compiling included (with installing "
    "and the comparison, the default run ends within the device tool's 10 "
    "minutes a command).")
_CHECKPOINT_MINUTES = flags.DEFINE_float(
    "checkpoint_minutes", 1.0, "How often the output is refreshed.")
_BATCH_SIZE = flags.DEFINE_integer("batch_size", 10_000,
                                   "States per iteration.")
_LOSS_THRESHOLD = flags.DEFINE_float(
    "loss_threshold", None, "ε (default: the model's).")
_CHECK_EVERY = flags.DEFINE_integer("check_every", None,
                                    "C (default: the model's).")
_HIDDEN_SIZES = flags.DEFINE_list(
    "hidden_sizes", None, "Another network's dense layers (default: the "
    "model's): a new network then starts from scratch with the model's "
    "other settings (DeepCubeA's paper: 5000,1000).")
_NUM_BLOCKS = flags.DEFINE_integer(
    "num_blocks", None, "Another network's residual blocks (default: the "
    "model's; likewise a new network).")
_MODEL_DTYPE = flags.DEFINE_enum("model_dtype", "float16",
                                 ["float16", "float32"],
                                 "Precision of the exported weights.")
_EVAL_DEPTHS = flags.DEFINE_integer("eval_depths", 10,
                                    "Scramble depths compared (over 1..K).")
_EVAL_STATES = flags.DEFINE_integer("eval_states", 1_000,
                                    "Scrambles per depth compared.")
_RUN_DIR = flags.DEFINE_string("run_dir", "/tmp/deepcubea_gpu",
                               "The run's own folder (checkpoint, model).")
_OUTPUT_DIR = flags.DEFINE_string(
    "output_dir", os.environ.get("OUT", "deepcubea_gpu_output"),
    "Where the files to bring back go (default: $OUT).")
_CANDIDATE = flags.DEFINE_string(
    "candidate", None, "Compare this model with the shipped one instead of "
    "training.")
_SHIP = flags.DEFINE_bool("ship", False, "With --candidate: replace the "
                          "shipped model if the candidate solves more.")


def training_config(init_model: str) -> davi.Config:
  """The model's settings at --batch_size (and the flags given); ValueError
  for settings DAVI refuses."""
  changes = {"batch_size": _BATCH_SIZE.value}
  if _LOSS_THRESHOLD.value is not None:
    changes["loss_threshold"] = _LOSS_THRESHOLD.value
  if _CHECK_EVERY.value is not None:
    changes["check_every"] = _CHECK_EVERY.value
  if _HIDDEN_SIZES.value is not None:
    changes["hidden_sizes"] = tuple(int(w) for w in _HIDDEN_SIZES.value)
  if _NUM_BLOCKS.value is not None:
    changes["num_blocks"] = _NUM_BLOCKS.value
  config = dataclasses.replace(davi.CostToGo.load(init_model).config,
                               **changes)
  config.validate()
  return config


def is_new_network(config: davi.Config, init_model: str) -> bool:
  """Whether `config`'s network is not the model's (it starts afresh)."""
  model = davi.CostToGo.load(init_model).config
  return (config.hidden_sizes, config.num_blocks) != (model.hidden_sizes,
                                                      model.num_blocks)


def train(config: davi.Config, init_model: str) -> None:
  """Continues training (or starts a new network) for --minutes,
  mirroring the model into the output folder."""
  fresh = is_new_network(config, init_model)
  print(f"DAVI on {puzzles.model_name(config.puzzle, config.size)} "
        f"{'from a new network' if fresh else 'from ' + init_model}, "
        f"{jax.devices()[0].device_kind}: {config}", flush=True)
  started = time.perf_counter()
  davi.train(config, davi.RunConfig(
      iterations=10**12, output_dir=_RUN_DIR.value,
      max_seconds=_MINUTES.value * 60,
      checkpoint_seconds=_CHECKPOINT_MINUTES.value * 60,
      log_every=100, eval_every=0, model_dtype=_MODEL_DTYPE.value,
      init_model="" if fresh else init_model, mirror_dir=_OUTPUT_DIR.value),
             log=lambda line: print(line, flush=True))
  print(f"trained for {(time.perf_counter() - started) / 60:.1f} minutes",
        flush=True)
  result = shipping.compare(os.path.join(_OUTPUT_DIR.value, davi.MODEL),
                            init_model, _EVAL_DEPTHS.value, _EVAL_STATES.value)
  print(shipping.describe(result))
  with open(os.path.join(_OUTPUT_DIR.value, "verdict.json"), "w",
            encoding="utf-8") as f:
    json.dump(result, f, indent=1)


def ship(shipped_path: str) -> None:
  """Compares --candidate with the shipped model; copies it over with
  --ship if it solves more."""
  result = shipping.compare(_CANDIDATE.value, shipped_path,
                            _EVAL_DEPTHS.value, _EVAL_STATES.value)
  print(shipping.describe(result))
  if _SHIP.value and shipping.ship_if_better(result, shipped_path):
    print(f"shipped: {_CANDIDATE.value} -> {shipped_path}")


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  with cli.user_input():
    shipped_path = bwas.shipped_model_path(_PUZZLE.value, _SIZE.value)
    if _CANDIDATE.value:
      davi.CostToGo.load(_CANDIDATE.value)  # Names a file that is none.
    else:
      init_model = _INIT_MODEL.value or shipped_path
      config = training_config(init_model)
  if _CANDIDATE.value:
    ship(shipped_path)
  else:
    os.makedirs(_OUTPUT_DIR.value, exist_ok=True)
    train(config, init_model)


if __name__ == "__main__":
  cli.run(main)
