"""What a CPU-minute of belief-model training buys: held-out cross-entropy
per card against training minutes, for the trainer's variants side by side.

Each variant trains the belief model of --blueprint on --preset for
--minutes in its own process, one core each (XLA single-threaded, --workers
at once, at most the machine's cores), from the same seed and scored on the
same held-out games:

- padded: a game a buffer row, padded to the longest game the rules allow
  (`belief_model.max_moves`, 97 in full Hanabi), 16 rows an update;
- packed: whole games packed back to back into rows four times as long, 4
  rows an update (the same step slots, more of them games' steps);
- wide, narrow: padded, with the encoder 512 and 128 wide instead of 256
  (the reference's is 512);
- batch_64: padded, 64 rows an update;
- decoded_quarter, narrow_decoded_quarter: padded (256 and 128 wide), the
  decoder scoring a quarter of the player-steps an update.

Also a profile of one update of the padded, packed and decoded-quarter
batches, split by the network that takes the time (each piece's gradient
timed alone: the encoder's unroll, the hand decoder on the steps it scores,
the value network), with a collection
of the blueprint's games beside it. Prints both tables, writes results.json
and belief_training.png; the runs resume from their checkpoints, so the same
command finishes an interrupted comparison.

  python benchmarks/lbs_belief_training.py --preset=full --blueprint=rules \
      --minutes=15 --output_dir=benchmark_results/lbs_belief_training
"""

import dataclasses
import json
import os
import time
from typing import Any, Callable, Sequence

from absl import app
from absl import flags
import jax
import numpy as np

from open_spiel_ext.algorithms.hanabi import belief_model
from open_spiel_ext.algorithms.hanabi import selfplay
from open_spiel_ext.algorithms.hanabi import shipped
from open_spiel_ext.algorithms.rl import buffers
from open_spiel_ext.games.hanabi import engine as engine_lib
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import compilation_cache
from open_spiel_ext.utils import reporting

VARIANTS = ("padded", "packed", "wide", "narrow", "batch_64", "decoded_quarter",
            "narrow_decoded_quarter")
_PRESET = flags.DEFINE_enum("preset", "full", list(engine_lib.PRESETS),
                            "Hanabi variant.")
_BLUEPRINT = flags.DEFINE_string("blueprint", "rules",
                                 shipped.BLUEPRINT_NAMES + ".")
_VARIANTS = cli.define_choice_list("variants", VARIANTS, list(VARIANTS),
                                   "The trainers compared.")
_MINUTES = flags.DEFINE_float("minutes", 15.0,
                              "Training minutes of each variant.")
_EVAL_EVERY_MINUTES = flags.DEFINE_float(
    "eval_every_minutes", 1.0, "About how often each run is scored (its "
    "first minute's updates set the interval in updates).")
_EVAL_GAMES = flags.DEFINE_integer("eval_games", 256, "Held-out games.")
_PROFILE_REPEATS = flags.DEFINE_integer(
    "profile_repeats", 10, "Timed calls per piece of the profile (0: no "
    "profile).", lower_bound=0)
_OUTPUT_DIR = flags.DEFINE_string(
    "output_dir", "benchmark_results/lbs_belief_training",
    "Runs, results.json and the PNG.")
cli.define_executor_flags()

PROFILED = ("padded", "packed", "decoded_quarter")
SINGLE_THREADED = ("--xla_cpu_multi_thread_eigen=false "
                   "intra_op_parallelism_threads=1")


def variant_config(name: str, rules: engine_lib.Rules,
                   has_value: bool) -> belief_model.Config:
  """The trainer's settings of variant `name` (module docstring)."""
  value = () if has_value else (256, 256)
  network = lambda width: belief_model.NetworkConfig(
      (width,), width, value_hidden=value)
  base = belief_model.Config(network=network(256))
  changes = {
      "padded": {},
      "packed": {"sequence_length": 4 * belief_model.max_moves(rules),
                 "batch_size": base.batch_size // 4},
      "wide": {"network": network(512)},
      "narrow": {"network": network(128)},
      "batch_64": {"batch_size": 64},
      "decoded_quarter": {"decoded_share": 0.25},
      "narrow_decoded_quarter": {"network": network(128),
                                 "decoded_share": 0.25},
  }
  return dataclasses.replace(base, **changes[name])


def train_variant(preset: str, blueprint_name: str, name: str,
                  minutes: float, eval_every_minutes: float, eval_games: int,
                  output_dir: str) -> list[dict[str, Any]]:
  """Trains variant `name` (in a worker), resuming its run; its log."""
  compilation_cache.enable(os.path.join(output_dir, "jax_cache"))
  blueprint = selfplay.blueprint(preset, blueprint_name)
  config = variant_config(name, blueprint.engine.rules, blueprint.has_value)
  per_update = belief_model.Trainer(blueprint, config).seconds_per_update()
  eval_every = max(config.updates_per_collect,
                   int(60 * eval_every_minutes / per_update))
  log = belief_model.train(blueprint, blueprint_name, config,
                           os.path.join(output_dir, name), 10**9,
                           max_seconds=60 * minutes, eval_every=eval_every,
                           eval_games=eval_games)
  return [dataclasses.asdict(entry) for entry in log]


def _timed(function: Callable[..., Any], args: tuple[Any, ...],
           repeats: int) -> float:
  """Median seconds of a call, after one that compiles."""
  jax.block_until_ready(function(*args))
  times = []
  for _ in range(repeats):
    started = time.perf_counter()
    jax.block_until_ready(function(*args))
    times.append(time.perf_counter() - started)
  return float(np.median(times))


def profile(preset: str, blueprint_name: str, name: str,
            repeats: int) -> dict[str, float]:
  """Seconds of one update of variant `name` and of its pieces (module
  docstring), and the share of its step slots that are padding."""
  blueprint = selfplay.blueprint(preset, blueprint_name)
  config = variant_config(name, blueprint.engine.rules, blueprint.has_value)
  trainer = belief_model.Trainer(blueprint, config)
  key = jax.random.PRNGKey(0)
  rows, used = trainer.rows(blueprint.params, key)
  buffer = trainer.store(trainer.empty_buffer(), rows, used)
  games = buffers.sample(buffer, key, config.batch_size)
  train = trainer.init(key)
  net, inputs = trainer.net, belief_model.sequences(games)
  start = belief_model.initial_state(config.network, inputs.first.shape[1])
  decoded = int(np.ceil(config.decoded_share * len(inputs.hands)))
  contexts = net.apply[1](train.params, inputs.observations, inputs.first,
                          start).reshape(len(inputs.hands), -1)[:decoded]
  gradient = lambda loss: jax.jit(jax.grad(lambda p, *x: loss(p, *x).sum()))
  pieces = {
      "update": (jax.jit(trainer._update), (train, games, key)),  # pylint: disable=protected-access
      "encoder": (gradient(net.apply[1]), (
          train.params, inputs.observations, inputs.first, start)),
      "decoder": (gradient(net.apply[2]), (train.params, contexts,
                                           inputs.hands[:decoded])),
  }
  if config.network.value_hidden:
    pieces["value"] = (gradient(net.apply[4]), (train.params,
                                                inputs.everyone))
  pieces["collection"] = (trainer.rows, (blueprint.params, key))
  seconds = {piece: _timed(function, args, repeats)
             for piece, (function, args) in pieces.items()}
  seconds["padding"] = 1 - float(np.asarray(games.valid).mean())
  return seconds


def _profile_table(profiles: dict[str, dict[str, float]]) -> str:
  pieces = [piece for piece in next(iter(profiles.values()))
            if piece != "padding"]
  rows = [[name] + [f"{seconds[piece] * 1e3:.0f}" for piece in pieces] +
          [f"{seconds['padding']:.0%}"] for name, seconds in profiles.items()]
  return reporting.markdown_table(
      ["batch"] + [f"{piece} (ms)" for piece in pieces] + ["padding"], rows)


def _value_at(log: Sequence[dict[str, Any]], minutes: float) -> str:
  """The held-out cross-entropy of the last evaluation by `minutes`."""
  scored = [entry for entry in log if entry["wall_time"] <= 60 * minutes]
  return f"{scored[-1]['eval_cross_entropy']:.3f}" if scored else "–"


def _runs_table(logs: dict[str, list[dict[str, Any]]], minutes: float) -> str:
  marks = sorted({minutes / 3, 2 * minutes / 3, minutes})
  rows = []
  for name, log in logs.items():
    last = log[-1]
    players = 2  # Every game is a sequence per player.
    rows.append([name, f"{last['updates']:,d}", f"{last['games']:,d}",
                 f"{players * last['games'] / (last['wall_time'] / 60):,.0f}"]
                + [_value_at(log, mark) for mark in marks])
  return reporting.markdown_table(
      ["variant", "updates", "games", "sequences / min"] +
      [f"held-out CE at {mark:.0f} min" for mark in marks], rows)


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  os.environ["XLA_FLAGS"] = SINGLE_THREADED  # The workers inherit it.
  output_dir = _OUTPUT_DIR.value
  os.makedirs(output_dir, exist_ok=True)
  args = (_PRESET.value, _BLUEPRINT.value)
  with cli.user_input("blueprint"):
    selfplay.blueprint(*args)
  with cli.executor_from_flags() as executor:
    profiles = {name: executor.submit(profile, *args, name,
                                      _PROFILE_REPEATS.value)
                for name in PROFILED if _PROFILE_REPEATS.value}
    runs = {name: executor.submit(
        train_variant, *args, name, _MINUTES.value, _EVAL_EVERY_MINUTES.value,
        _EVAL_GAMES.value, output_dir) for name in _VARIANTS.value}
    profiles = {name: future.result() for name, future in profiles.items()}
    logs = {name: future.result() for name, future in runs.items()}
  if profiles:
    print("One update's seconds by piece (single-threaded):\n" +
          _profile_table(profiles) + "\n")
  print(f"Belief model of {_BLUEPRINT.value}, Hanabi {_PRESET.value}, "
        f"{_MINUTES.value:g} minutes each:\n" +
        _runs_table(logs, _MINUTES.value))
  with open(os.path.join(output_dir, "results.json"), "w") as f:
    json.dump({"profiles": profiles, "runs": logs,
               "preset": _PRESET.value, "blueprint": _BLUEPRINT.value}, f,
              indent=1)
  reporting.plot_curves(
      os.path.join(output_dir, "belief_training.png"),
      [("training minutes (one core)", "linear")],
      [(name, ([e["wall_time"] / 60 for e in log],
               [e["eval_cross_entropy"] for e in log]))
       for name, log in logs.items()],
      title=f"Belief model of {_BLUEPRINT.value}, Hanabi {_PRESET.value}",
      ylabel="held-out cross-entropy per card (nats)", yscale="linear")
  print(f"wrote results.json and belief_training.png to {output_dir}")


if __name__ == "__main__":
  cli.run(main)
