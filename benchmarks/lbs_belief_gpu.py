"""Belief-model training sized for a lent GPU, and the step that ships its
model if it beats the shipped one.

Training (the default): trains the belief model of --blueprint on --preset
with the GPU's settings (`experiments.hanabi_recipes.belief_config`, device
"gpu") for --minutes of training, in --run_dir; after every evaluation (about
every --checkpoint_minutes: the first updates' speed sets the interval)
copies what is there into --output_dir: belief.npz, metrics.jsonl and the
checkpoint when it is at most 16 MiB (the device tool brings back no larger
file). At the end it scores the new model and the shipped one on the same
held-out games and writes verdict.json. On the device machine, through
`benchmarks/lbs_belief_gpu.sh` (which installs the carried wheels):

  bash benchmarks/lbs_belief_gpu.sh --blueprint=rules

With --warm_start it goes on training the shipped model (the checkpoint,
model and optimiser, is too large to carry to a later device session; the
shipped model travels with the repository).

Shipping (--candidate=<belief.npz>, on this machine): scores the candidate
and the shipped model on the same held-out games and, with --ship, copies
the candidate over the shipped file if its cross-entropy is lower:

  python benchmarks/lbs_belief_gpu.py --candidate=/work/.device/.../belief.npz \
      --blueprint=rules --ship
"""

import json
import os
import shutil
from typing import Any, Sequence

from absl import app
from absl import flags
import jax

from open_spiel_ext.algorithms.hanabi import belief_model
from open_spiel_ext.algorithms.hanabi import selfplay
from open_spiel_ext.algorithms.hanabi import shipped
from open_spiel_ext.experiments import hanabi_recipes
from open_spiel_ext.games.hanabi import engine as engine_lib
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import compilation_cache

_PRESET = flags.DEFINE_enum("preset", "full", list(engine_lib.PRESETS),
                            "Hanabi variant.")
_BLUEPRINT = flags.DEFINE_string("blueprint", "rules",
                                 shipped.BLUEPRINT_NAMES + ".")
_MINUTES = flags.DEFINE_float(
    "minutes", 7.0, "Training minutes (it stops at the first evaluation past "
    "them: with installing, compiling and the final scoring, the default "
    "run ends within the device tool's 10 minutes a command: 507 s on an "
    "H200 for the rule bot's model).")
_CHECKPOINT_MINUTES = flags.DEFINE_float(
    "checkpoint_minutes", 1.0, "About how often the output is refreshed.")
_DEVICE = flags.DEFINE_enum("device", "gpu", list(hanabi_recipes.BELIEF_DEVICES),
                            "Whose settings (cpu: to try the script here).")
_WIDTH = flags.DEFINE_integer("width", None, "The encoder's width (default: "
                              "the device's).")
_NUM_ENVS = flags.DEFINE_integer("num_envs", None, "Games a collection "
                                 "(default: the device's).")
_BATCH_SIZE = flags.DEFINE_integer("batch_size", None, "Rows an update "
                                   "(default: the device's).")
_WARM_START = flags.DEFINE_bool(
    "warm_start", False, "Go on training the shipped model (its network "
    "must be the run's) with a fresh optimiser: the checkpoint is too large "
    "to travel to the next device session, the shipped model travels.")
_EVAL_GAMES = flags.DEFINE_integer("eval_games", 256, "Held-out games.")
_RUN_DIR = flags.DEFINE_string("run_dir", "/tmp/lbs_belief_gpu",
                               "The run's own folder (checkpoints, cache).")
_OUTPUT_DIR = flags.DEFINE_string(
    "output_dir", os.environ.get("OUT", "lbs_belief_gpu_output"),
    "Where the files to bring back go (default: $OUT).")
_CANDIDATE = flags.DEFINE_string(
    "candidate", None, "Score this belief model against the shipped one "
    "instead of training.")
_SHIP = flags.DEFINE_bool("ship", False, "With --candidate: replace the "
                          "shipped model if the candidate is better.")

MAX_FILE_BYTES = 16 * 2**20  # The largest file the device tool brings back.
BROUGHT_BACK = ("belief.npz", "metrics.jsonl", "checkpoint.pkl")


def bring_back(run_dir: str, output_dir: str) -> None:
  """Copies the run's files that the device tool can bring back."""
  for name in BROUGHT_BACK:
    path = os.path.join(run_dir, name)
    if os.path.exists(path) and os.path.getsize(path) <= MAX_FILE_BYTES:
      shutil.copy(path, os.path.join(output_dir, name))


def train(blueprint: Any) -> None:
  changes = {name: flag.value for name, flag in (
      ("width", _WIDTH), ("num_envs", _NUM_ENVS),
      ("batch_size", _BATCH_SIZE)) if flag.value is not None}
  config = hanabi_recipes.belief_config(blueprint.has_value, _DEVICE.value,
                                        **changes)
  run_dir, output_dir = _RUN_DIR.value, _OUTPUT_DIR.value
  os.makedirs(run_dir, exist_ok=True)
  os.makedirs(output_dir, exist_ok=True)
  compilation_cache.enable(os.path.join(run_dir, "jax_cache"))
  print(f"devices: {jax.devices()}; {config}", flush=True)
  per_update = belief_model.Trainer(blueprint, config).seconds_per_update()
  eval_every = max(config.updates_per_collect,
                   int(60 * _CHECKPOINT_MINUTES.value / per_update))
  print(f"evaluating every {eval_every:,d} updates", flush=True)

  def report(entry: belief_model.LogEntry) -> None:
    print(f"{entry.updates:,d} updates, {entry.games:,d} games, "
          f"{entry.wall_time / 60:.1f} min: held-out cross-entropy "
          f"{entry.eval_cross_entropy:.3f}", flush=True)
    bring_back(run_dir, output_dir)

  warm_start = belief_model.load(shipped.belief_model_path(
      _PRESET.value, _BLUEPRINT.value)) if _WARM_START.value else None
  belief_model.train(blueprint, _BLUEPRINT.value, config, run_dir, 10**9,
                     max_seconds=60 * _MINUTES.value, eval_every=eval_every,
                     eval_games=_EVAL_GAMES.value, on_entry=report,
                     warm_start=warm_start)
  verdict = shipped.compare_belief_models(
      os.path.join(run_dir, "belief.npz"), blueprint, _PRESET.value,
      _BLUEPRINT.value, _EVAL_GAMES.value)
  print(json.dumps(verdict, indent=1))
  with open(os.path.join(output_dir, "verdict.json"), "w") as f:
    json.dump(verdict, f, indent=1)


def ship(blueprint: Any) -> None:
  verdict = shipped.compare_belief_models(
      _CANDIDATE.value, blueprint, _PRESET.value, _BLUEPRINT.value,
      _EVAL_GAMES.value)
  print(json.dumps(verdict, indent=1))
  if _SHIP.value and verdict["better"]:
    shutil.copy(_CANDIDATE.value, verdict["shipped"])
    print(f"shipped {_CANDIDATE.value} as {verdict['shipped']}")


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  with cli.user_input("blueprint"):
    blueprint = selfplay.blueprint(_PRESET.value, _BLUEPRINT.value)
  with cli.user_input():
    if _CANDIDATE.value:
      ship(blueprint)
    else:
      train(blueprint)


if __name__ == "__main__":
  cli.run(main)
