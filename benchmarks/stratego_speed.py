"""Stratego throughput: the pyspiel game against the batched JAX engine.

Plies per second of uniformly random play from uniformly random setups, side
by side in one run: through the pyspiel API (one state at a time,
`legal_actions` and `apply_action`) and through the batched engine at batch
sizes 1, 64 and 1024 (`random_rollout`, a jitted scan), and at 1024 again
with the more-squares rule and the both-stuck draw off (what they cost). Only plies of games
still going count; setups count as time but not as plies; the batched
engine's compilation is timed apart. Each measurement runs in its own process,
so its peak resident memory is its own. Prints a table and writes a bar chart.

  python benchmarks/stratego_speed.py --output_dir=/tmp/stratego_speed
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
_SECONDS = flags.DEFINE_float(
    "seconds", 5.0, "Least time each pyspiel measurement plays for.")
_ROLLOUT_STEPS = flags.DEFINE_integer(
    "rollout_steps", 300, "Plies per board in each batched rollout.")
_ROLLOUTS = flags.DEFINE_integer(
    "rollouts", 5, "Batched rollouts timed per measurement (after one that "
    "compiles).")

GAMES = {"barrage": "barrage_stratego", "classic": "stratego"}
BATCH_SIZES = (1, 64, 1024)



def pyspiel_rate(army: str, seconds: float) -> dict[str, float]:
  """Uniformly random plies per second through the pyspiel API."""
  import open_spiel_ext  # pylint: disable=g-import-not-at-top,unused-import
  import pyspiel  # pylint: disable=g-import-not-at-top
  game = pyspiel.load_game(f"{GAMES[army]}(setup=random)")
  rng = np.random.RandomState(0)
  plies, games = 0, 0
  start = time.perf_counter()
  while time.perf_counter() - start < seconds:
    state = game.new_initial_state()
    while not state.is_terminal():
      if state.is_chance_node():
        actions, probabilities = zip(*state.chance_outcomes())
        state.apply_action(int(rng.choice(actions, p=probabilities)))
      else:
        legal = state.legal_actions()
        state.apply_action(legal[rng.randint(len(legal))])
        plies += 1
    games += 1
  elapsed = time.perf_counter() - start
  return {"plies_per_second": plies / elapsed, "games": games,
          "compile_seconds": 0.0, "peak_mb": reporting.peak_memory_mb()}


def batched_rate(army: str, batch: int, steps: int, rollouts: int,
                 rules: bool = True) -> dict[str, float]:
  """Uniformly random plies per second through the batched engine, with the
  more-squares rule and the both-stuck draw on or off."""
  import jax  # pylint: disable=g-import-not-at-top
  from open_spiel_ext.games.stratego import batched  # pylint: disable=g-import-not-at-top
  engine = batched.BatchedStratego(army, 1000 if army == "barrage" else 2000,
                                   more_squares_rule=rules,
                                   both_stuck_draw=rules)
  start = time.perf_counter()
  boards = engine.random_setups(jax.random.PRNGKey(0), batch)
  jax.block_until_ready(engine.random_rollout(jax.random.PRNGKey(1), boards,
                                              steps))
  compile_seconds = time.perf_counter() - start
  plies = 0
  start = time.perf_counter()
  for rollout in range(rollouts):
    boards = engine.random_setups(jax.random.PRNGKey(2 + rollout), batch)
    _, played = engine.random_rollout(jax.random.PRNGKey(100 + rollout),
                                      boards, steps)
    plies += int(played)
  elapsed = time.perf_counter() - start
  return {"plies_per_second": plies / elapsed, "games": batch * rollouts,
          "compile_seconds": compile_seconds, "peak_mb": reporting.peak_memory_mb()}



def plot(results: dict[tuple[str, str], dict[str, float]], path: str) -> None:
  """Bars of plies per second per engine, one group per army."""
  labels = (["pyspiel"] + [f"batched {b}" for b in BATCH_SIZES] +
            [f"{BATCH_SIZES[-1]} no rules"])
  x = np.arange(len(labels))
  fig, ax = reporting.plt.subplots(figsize=(9, 4))
  for offset, army in ((-0.2, "barrage"), (0.2, "classic")):
    ax.bar(x + offset, [results[army, label]["plies_per_second"]
                        for label in labels], width=0.4, label=army)
  ax.axhline(5_000, color="gray", linestyle=":", label="5,000 plies/s")
  ax.axhline(200_000, color="gray", linestyle="--", label="200,000 plies/s")
  ax.set_yscale("log")
  ax.set_xticks(x, labels)
  ax.set_ylabel("uniformly random plies per second")
  ax.set_title("Stratego: pyspiel API vs batched JAX engine (batch size)")
  ax.legend(fontsize=8)
  reporting.save_figure(fig, path, dpi=120)


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  results = {}
  print(f"{'army':8s} {'engine':12s} {'plies/s':>12s} {'x pyspiel':>10s} "
        f"{'games':>7s} {'compile s':>10s} {'peak MB':>8s}")
  for army in GAMES:
    runs = [("pyspiel", pyspiel_rate, (army, _SECONDS.value))] + [
        (f"batched {batch}", batched_rate,
         (army, batch, _ROLLOUT_STEPS.value, _ROLLOUTS.value))
        for batch in BATCH_SIZES] + [
            (f"{BATCH_SIZES[-1]} no rules", batched_rate,
             (army, BATCH_SIZES[-1], _ROLLOUT_STEPS.value, _ROLLOUTS.value,
              False))]
    for label, function, args in runs:
      result = executors.in_fresh_process(function, *args)
      results[army, label] = result
      ratio = (result["plies_per_second"] /
               results[army, "pyspiel"]["plies_per_second"])
      print(f"{army:8s} {label:12s} {result['plies_per_second']:12,.0f} "
            f"{ratio:9.1f}x {result['games']:7,d} "
            f"{result['compile_seconds']:10.1f} {result['peak_mb']:8.0f}",
            flush=True)
  path = os.path.join(_OUTPUT_DIR.value, "stratego_speed.png")
  plot(results, path)
  print(f"wrote {path}")


if __name__ == "__main__":
  cli.run(main)
