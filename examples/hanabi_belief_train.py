"""Trains the belief model (and, if the blueprint has none, a value network)
that learned belief search needs, on a blueprint's self-play games.

  python -m open_spiel_ext.examples.hanabi_belief_train --preset=small \
      --blueprint=rules --max_minutes=20 --output_dir=/tmp/belief_small
  python -m open_spiel_ext.examples.hanabi_belief_train --preset=full \
      --blueprint=strong --max_minutes=90 --output_dir=/tmp/belief_full

Prints a line per evaluation (updates, games generated, the training and
held-out cross-entropy per card in nats and, with a value network, its mean
squared error), writes metrics.jsonl, belief.npz (which `hanabi_play
--search=lbs --belief_model=<file>` reads) and at the end belief.png.
Checkpoints at every evaluation; the same command resumes.
"""

import dataclasses
import os
from typing import Sequence

from absl import app
from absl import flags
import numpy as np

from open_spiel_ext.algorithms.hanabi import belief_model
from open_spiel_ext.algorithms.hanabi import selfplay
from open_spiel_ext.algorithms.hanabi import shipped
from open_spiel_ext.experiments import hanabi_recipes
from open_spiel_ext.games.hanabi import engine as engine_lib
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import reporting

_PRESET = flags.DEFINE_enum("preset", "small", list(engine_lib.PRESETS),
                            "Hanabi variant.")
_BLUEPRINT = flags.DEFINE_string(
    "blueprint", "rules", f"Whose games: {shipped.BLUEPRINT_NAMES}.")
_MAX_UPDATES = flags.DEFINE_integer("max_updates", 10**7,
                                    "Stop after this many updates.",
                                    lower_bound=1)
_MAX_MINUTES = flags.DEFINE_float("max_minutes", 30.0,
                                  "Stop after this many training minutes.",
                                  lower_bound=0.0)
_EVAL_EVERY = flags.DEFINE_integer("eval_every", 1_000,
                                   "Updates between evaluations.",
                                   lower_bound=1)
_EVAL_GAMES = flags.DEFINE_integer("eval_games", 256,
                                   "Held-out games of each evaluation.",
                                   lower_bound=1)
_DEVICE = flags.DEFINE_enum(
    "device", "cpu", list(hanabi_recipes.BELIEF_DEVICES),
    "Whose training settings (hanabi_recipes.BELIEF_DEVICES); the flags "
    "below replace any of them. JAX runs on the GPU wherever it finds one.")
_LSTM_SIZE = flags.DEFINE_integer("lstm_size", None, "The encoder's width.",
                                  lower_bound=1)
_VALUE_LAYERS = flags.DEFINE_list(
    "value_layers", None, "Widths of the value network's layers (default: "
    "256,256 if the blueprint has no value of its own, else none).")
_NUM_ENVS = flags.DEFINE_integer("num_envs", None,
                                 "Games generated per collection.",
                                 lower_bound=1)
_BATCH_SIZE = flags.DEFINE_integer("batch_size", None,
                                   "Buffer rows per update.", lower_bound=1)
_SEQUENCE_LENGTH = flags.DEFINE_integer(
    "sequence_length", None, "Steps of a buffer row: 0 for a game a row, "
    "padded to the longest game; else whole games packed back to back.",
    lower_bound=0)
_DECODED_SHARE = flags.DEFINE_float(
    "decoded_share", None, "The share of an update's player-steps whose "
    "hands the decoder scores, in (0, 1].", lower_bound=0.0, upper_bound=1.0)
flags.register_validator("decoded_share",
                         lambda value: value is None or value > 0,
                         message="must be above 0")
_SEED = flags.DEFINE_integer("seed", 0, "Random seed.", lower_bound=0)
_OUTPUT_DIR = flags.DEFINE_string("output_dir", "hanabi_belief_output",
                                  "Checkpoint, weights, metrics, plot.")


def _describe(entry: belief_model.LogEntry) -> str:
  line = (f"{entry.updates:,d} updates, {entry.games:,d} games, "
          f"{entry.wall_time / 60:.1f} min: cross-entropy per card "
          f"{entry.cross_entropy:.3f} (held out {entry.eval_cross_entropy:.3f})")
  if not np.isnan(entry.eval_value_error) and entry.eval_value_error > 0:
    line += (f", value error {entry.value_error:.2f} (held out "
             f"{entry.eval_value_error:.2f})")
  return line


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  with cli.user_input("blueprint"):
    blueprint = selfplay.blueprint(_PRESET.value, _BLUEPRINT.value)
  with cli.user_input():
    changes = {name: flag.value for name, flag in (
        ("width", _LSTM_SIZE), ("num_envs", _NUM_ENVS),
        ("batch_size", _BATCH_SIZE), ("sequence_length", _SEQUENCE_LENGTH),
        ("decoded_share", _DECODED_SHARE)) if flag.value is not None}
    config = hanabi_recipes.belief_config(blueprint.has_value, _DEVICE.value,
                                          **changes)
    if _VALUE_LAYERS.value is not None:
      config = dataclasses.replace(config, network=dataclasses.replace(
          config.network, value_hidden=tuple(
              int(width) for width in _VALUE_LAYERS.value)))
    cli.check_memory(belief_model.Trainer(blueprint, config).training_bytes(),
                     ["num_envs", "batch_size"], on_device=True)
    log = belief_model.train(
        blueprint, _BLUEPRINT.value, config, _OUTPUT_DIR.value,
        _MAX_UPDATES.value, 60 * _MAX_MINUTES.value, _EVAL_EVERY.value,
        _EVAL_GAMES.value, _SEED.value,
        on_entry=lambda e: print(_describe(e), flush=True))
  if not log:
    return
  reporting.plot_curves(
      os.path.join(_OUTPUT_DIR.value, "belief.png"),
      [("updates", "linear"), ("training minutes", "linear")],
      [(name, ([e.updates for e in log], [e.wall_time / 60 for e in log],
               [getattr(e, field) for e in log]))
       for name, field in (("training batches", "cross_entropy"),
                           ("held-out games", "eval_cross_entropy"))],
      title=f"Belief model of {_BLUEPRINT.value}, Hanabi {_PRESET.value}",
      ylabel="cross-entropy per card (nats)", yscale="linear")
  print(f"wrote metrics.jsonl, belief.npz, belief.png to {_OUTPUT_DIR.value}")


if __name__ == "__main__":
  cli.run(main)
