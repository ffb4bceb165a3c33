"""Batched-environment throughput: raw pyspiel, PyspielVectorEnv and the JAX
poker engines, side by side in one run.

Steps per second of uniformly random play on Kuhn, Leduc, 20-Clone Leduc and
Oshi-Zumo (`xdo_oshi_zumo`, which has no JAX engine):

  raw pyspiel       one state at a time: apply a random legal action, sample
                    chance, read both players' information-state tensors (and
                    the returns at the end), as a learner must;
  PyspielVectorEnv  `games/batched.py`'s fallback at batch `--vector_batch`,
                    actions drawn on the host from the legal mask;
  JAX B             `games/batched_poker.py` at batch B = 1, 256 and 4,096,
                    inside a jitted `lax.scan` of random legal actions.

A step is one player's action in one game. Both batched environments run with
auto_reset, so every game of the batch is unfinished at every step (a game
that ends is replaced by a fresh one in the same step) and a batch step counts
as B steps. JAX compilation is timed apart and excluded. Each measurement runs
in its own process. Prints a table, whether the issue's Leduc targets (at
least 2,000,000 steps/s at batch 4,096 and 20 times raw pyspiel) are met, and
writes a bar chart.

  python benchmarks/env_speed.py --output_dir=/tmp/env_speed
"""

import os
import time
from typing import Sequence

from absl import app
from absl import flags
import numpy as np

from open_spiel_ext.utils import cli
from open_spiel_ext.utils import executors
from open_spiel_ext.utils import reporting

_OUTPUT_DIR = flags.DEFINE_string("output_dir", "benchmark_results",
                                  "Where the PNG is written.")
_SECONDS = flags.DEFINE_float("seconds", 3.0,
                              "Least time each measurement plays for.")
_SCAN_STEPS = flags.DEFINE_integer(
    "scan_steps", 100, "Batch steps per jitted scan of a JAX engine.")
_VECTOR_BATCH = flags.DEFINE_integer("vector_batch", 256,
                                     "Batch size of PyspielVectorEnv.")

GAMES = {
    "Kuhn": "kuhn_poker",
    "Leduc": "leduc_poker",
    "20-Clone Leduc": "xdo_clone_leduc(clones=20)",
    "Oshi-Zumo": "xdo_oshi_zumo",
}
JAX_CLONES = {"Leduc": 1, "20-Clone Leduc": 20}  # And Kuhn.
JAX_BATCH_SIZES = (1, 256, 4096)
TARGET_STEPS_PER_SECOND = 2_000_000  # Leduc at batch 4,096.
TARGET_RATIO = 20  # Leduc at batch 4,096 over raw pyspiel.


def raw_pyspiel_rate(game_string: str, seconds: float) -> dict[str, float]:
  """Random steps per second of one pyspiel state at a time."""
  import open_spiel_ext  # pylint: disable=g-import-not-at-top,unused-import
  import pyspiel  # pylint: disable=g-import-not-at-top
  game = pyspiel.load_game(game_string)
  rng = np.random.default_rng(0)
  steps = 0
  start = time.perf_counter()
  while time.perf_counter() - start < seconds:
    state = game.new_initial_state()
    while True:
      while state.is_chance_node():
        actions, probabilities = zip(*state.chance_outcomes())
        state.apply_action(actions[rng.choice(len(actions), p=probabilities)])
      for player in (0, 1):
        state.information_state_tensor(player)
      if state.is_terminal():
        state.returns()
        break
      legal = state.legal_actions()
      state.apply_action(legal[rng.integers(len(legal))])
      steps += 1
  return {"steps_per_second": steps / (time.perf_counter() - start),
          "compile_seconds": 0.0}


def vector_env_rate(game_string: str, batch: int,
                    seconds: float) -> dict[str, float]:
  """Random steps per second of PyspielVectorEnv with auto_reset."""
  import jax  # pylint: disable=g-import-not-at-top
  import open_spiel_ext  # pylint: disable=g-import-not-at-top,unused-import
  from open_spiel_ext.games import batched  # pylint: disable=g-import-not-at-top
  env = batched.PyspielVectorEnv(game_string, auto_reset=True)
  rng = np.random.default_rng(0)
  state = env.init(jax.random.split(jax.random.PRNGKey(0), batch))
  steps = 0
  start = time.perf_counter()
  while time.perf_counter() - start < seconds:
    mask = state.legal_action_mask
    actions = np.argmax(rng.random(mask.shape) * mask, axis=1)
    state = env.step(state, actions)
    steps += batch
  return {"steps_per_second": steps / (time.perf_counter() - start),
          "compile_seconds": 0.0}


def jax_rate(game_label: str, batch: int, scan_steps: int,
             seconds: float) -> dict[str, float]:
  """Random steps per second of a JAX engine with auto_reset, in jitted
  scans of `scan_steps` batch steps (after one that compiles)."""
  import jax  # pylint: disable=g-import-not-at-top
  from open_spiel_ext.games import batched_poker  # pylint: disable=g-import-not-at-top
  from open_spiel_ext.games import random_play  # pylint: disable=g-import-not-at-top
  if game_label == "Kuhn":
    engine = batched_poker.kuhn_poker(auto_reset=True)
  else:
    engine = batched_poker.leduc_poker(JAX_CLONES[game_label],
                                       auto_reset=True)
  block = min(32, engine.num_actions)

  def one_step(state, key):
    actions = random_play.uniform_true_index(
        key, state.legal_action_mask, block)
    return engine.step(state, actions), None

  @jax.jit
  def rollout(state, key):
    return jax.lax.scan(one_step, state,
                        jax.random.split(key, scan_steps))[0]

  key = jax.random.PRNGKey(0)
  state = engine.init(jax.random.split(key, batch))
  start = time.perf_counter()
  state = jax.block_until_ready(rollout(state, jax.random.fold_in(key, 1)))
  compile_seconds = time.perf_counter() - start
  steps, scans = 0, 1
  start = time.perf_counter()
  while time.perf_counter() - start < seconds:
    scans += 1
    state = jax.block_until_ready(
        rollout(state, jax.random.fold_in(key, scans)))
    steps += batch * scan_steps
  return {"steps_per_second": steps / (time.perf_counter() - start),
          "compile_seconds": compile_seconds}



def measurements(game_label: str) -> list[tuple[str, object, tuple]]:
  """(engine label, function, arguments) of every measurement of a game."""
  game_string = GAMES[game_label]
  runs = [("raw pyspiel", raw_pyspiel_rate, (game_string, _SECONDS.value)),
          (f"PyspielVectorEnv {_VECTOR_BATCH.value}", vector_env_rate,
           (game_string, _VECTOR_BATCH.value, _SECONDS.value))]
  if game_label == "Kuhn" or game_label in JAX_CLONES:
    runs += [(f"JAX {batch}", jax_rate,
              (game_label, batch, _SCAN_STEPS.value, _SECONDS.value))
             for batch in JAX_BATCH_SIZES]
  return runs


def plot(results: dict[tuple[str, str], dict[str, float]], path: str) -> None:
  """Bars of steps per second, one group per game."""
  engines = list(dict.fromkeys(engine for _, engine in results))
  x = np.arange(len(GAMES))
  width = 0.8 / len(engines)
  fig, ax = reporting.plt.subplots(figsize=(10, 4.5))
  for index, engine in enumerate(engines):
    heights = [results.get((game, engine), {}).get("steps_per_second", 0)
               for game in GAMES]
    ax.bar(x + (index - (len(engines) - 1) / 2) * width, heights, width,
           label=engine)
  ax.axhline(TARGET_STEPS_PER_SECOND, color="gray", linestyle="--",
             label=f"{TARGET_STEPS_PER_SECOND:,} steps/s (Leduc target)")
  ax.set_yscale("log")
  ax.set_xticks(x, list(GAMES))
  ax.set_ylabel("random steps per second")
  ax.set_title("Batched environments: pyspiel vs PyspielVectorEnv vs JAX "
               "(batch size)")
  ax.legend(fontsize=8)
  reporting.save_figure(fig, path, dpi=120)


def report_targets(results: dict[tuple[str, str], dict[str, float]]) -> None:
  """Prints whether Leduc at batch 4,096 meets the issue's targets."""
  rate = results["Leduc", f"JAX {JAX_BATCH_SIZES[-1]}"]["steps_per_second"]
  ratio = rate / results["Leduc", "raw pyspiel"]["steps_per_second"]
  print(f"Leduc JAX {JAX_BATCH_SIZES[-1]}: {rate:,.0f} steps/s "
        f"(target {TARGET_STEPS_PER_SECOND:,}: "
        f"{'met' if rate >= TARGET_STEPS_PER_SECOND else 'NOT met'}), "
        f"{ratio:.1f}x raw pyspiel (target {TARGET_RATIO}x: "
        f"{'met' if ratio >= TARGET_RATIO else 'NOT met'})")


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  results = {}
  print(f"{'game':15s} {'engine':21s} {'steps/s':>12s} {'x raw':>8s} "
        f"{'compile s':>10s}")
  for game_label in GAMES:
    for engine, function, args in measurements(game_label):
      result = executors.in_fresh_process(function, *args)
      results[game_label, engine] = result
      ratio = (result["steps_per_second"] /
               results[game_label, "raw pyspiel"]["steps_per_second"])
      print(f"{game_label:15s} {engine:21s} "
            f"{result['steps_per_second']:12,.0f} {ratio:7.1f}x "
            f"{result['compile_seconds']:10.1f}", flush=True)
  report_targets(results)
  path = os.path.join(_OUTPUT_DIR.value, "env_speed.png")
  plot(results, path)
  print(f"wrote {path}")


if __name__ == "__main__":
  cli.run(main)
