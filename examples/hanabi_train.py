"""Trains a learned Hanabi blueprint (a public-private recurrent Q network)
by R2D2 self-play on the batched engine.

  python -m open_spiel_ext.examples.hanabi_train --preset=small \
      --max_minutes=60 --output_dir=/tmp/hanabi_small
  python -m open_spiel_ext.examples.hanabi_train --preset=full \
      --max_minutes=90 --output_dir=/tmp/hanabi_full

Prints a line per evaluation (moves, updates, loss, the exploring games'
mean score, the greedy self-play score on --eval_games fixed decks), writes
metrics.jsonl, scores.png, a weights snapshot per evaluation
(snapshots/moves_<N>.npz), and at the end weak.npz, medium.npz and
strong.npz (`r2d2.pick_strengths`), which `hanabi_play --blueprint=<file>`
plays. Checkpoints every --checkpoint_seconds; the same command resumes.
"""

import os
import shutil
from typing import Sequence

from absl import app
from absl import flags

from open_spiel_ext.algorithms.hanabi import r2d2
from open_spiel_ext.experiments import hanabi_recipes
from open_spiel_ext.games.hanabi import engine as engine_lib
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import reporting

_PRESET = flags.DEFINE_enum("preset", "small", list(engine_lib.PRESETS),
                            "Hanabi variant.")
_MAX_MOVES = flags.DEFINE_integer("max_moves", 10**9,
                                  "Stop after this many moves (all games).",
                                  lower_bound=1)
_MAX_MINUTES = flags.DEFINE_float("max_minutes", 60.0,
                                  "Stop after this many training minutes.",
                                  lower_bound=0.0)
_EVAL_EVERY = flags.DEFINE_integer("eval_every", 500_000,
                                   "Moves between evaluations.",
                                   lower_bound=1)
_EVAL_GAMES = flags.DEFINE_integer("eval_games", 1_000,
                                   "Fixed decks of each evaluation.",
                                   lower_bound=1)
_NUM_ENVS = flags.DEFINE_integer("num_envs", r2d2.Config.num_envs,
                                 "Games self-played at once.", lower_bound=1)
_LSTM_SIZE = flags.DEFINE_integer("lstm_size", None,
                                  "LSTM width (default: the preset's).",
                                  lower_bound=1)
_LEARNING_RATE = flags.DEFINE_float("learning_rate",
                                    r2d2.Config.learning_rate, "Adam's.",
                                    lower_bound=0.0)
flags.register_validator("learning_rate", lambda value: value > 0,
                         message="must be above 0")
_SEED = flags.DEFINE_integer("seed", 0, "Random seed.", lower_bound=0)
_OUTPUT_DIR = flags.DEFINE_string("output_dir", "hanabi_train_output",
                                  "Checkpoint, snapshots, metrics, plot.")
_CHECKPOINT_SECONDS = flags.DEFINE_float("checkpoint_seconds", 300,
                                         "Seconds between checkpoints.",
                                         lower_bound=0.0)


def config_from_flags() -> r2d2.Config:
  return r2d2.Config(
      network=hanabi_recipes.blueprint_network(_PRESET.value,
                                               _LSTM_SIZE.value),
      num_envs=_NUM_ENVS.value, learning_rate=_LEARNING_RATE.value)


def _describe(entry: r2d2.LogEntry) -> str:
  return (f"{entry.moves:,d} moves, {entry.updates:,d} updates, "
          f"{entry.wall_time / 60:.1f} min: loss {entry.loss:.4f}, "
          f"exploring games {entry.train_score:.2f}, greedy "
          f"{entry.eval_score:.2f} ± {entry.eval_standard_error:.2f}")


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  rules = engine_lib.Rules.from_preset(_PRESET.value)
  with cli.user_input():
    config = config_from_flags()
    cli.check_memory(r2d2.training_bytes(rules, config), ["num_envs"],
                     on_device=True)
    log = r2d2.train(
        rules, config, _OUTPUT_DIR.value, _MAX_MOVES.value,
        60 * _MAX_MINUTES.value, _EVAL_EVERY.value, _EVAL_GAMES.value,
        _SEED.value, _CHECKPOINT_SECONDS.value,
        on_entry=lambda e: print(_describe(e), flush=True))
  if not log:
    return
  reporting.plot_curves(
      os.path.join(_OUTPUT_DIR.value, "scores.png"),
      [("moves (millions)", "linear"), ("training minutes", "linear")],
      [("greedy self-play", ([e.moves / 1e6 for e in log],
                             [e.wall_time / 60 for e in log],
                             [e.eval_score for e in log])),
       ("exploring games", ([e.moves / 1e6 for e in log],
                            [e.wall_time / 60 for e in log],
                            [e.train_score for e in log]))],
      title=f"R2D2 blueprint, Hanabi {_PRESET.value}", ylabel="score",
      yscale="linear")
  for strength, entry in r2d2.pick_strengths(log).items():
    shutil.copyfile(os.path.join(_OUTPUT_DIR.value, entry.snapshot),
                    os.path.join(_OUTPUT_DIR.value, f"{strength}.npz"))
    print(f"{strength}: {entry.eval_score:.2f} at {entry.moves:,d} moves")
  print(f"wrote metrics.jsonl, scores.png, weak/medium/strong.npz to "
        f"{_OUTPUT_DIR.value}")


if __name__ == "__main__":
  cli.run(main)
