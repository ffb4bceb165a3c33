"""Hanabi throughput: OpenSpiel's C++ `hanabi` against the batched JAX engine.

Steps per second of uniformly random play with observations, side by side in
one run: through the pyspiel API (one state at a time; each decision reads
the observation tensor of the player to move, or of every player as the
engine gives them) and through `games/hanabi/engine.py` at batch sizes 1,
1,024 and 8,192 (a jitted scan of `step` with auto-reset, every player's
observation computed each step). Chance nodes count as time, not steps; the
engine's compilation is timed apart. Each measurement runs in its own
process (so its peak memory is its own), on one core for pyspiel. Prints a
table with each rate as a multiple of pyspiel's (observations of the player
to move) and writes a bar chart.

  python benchmarks/hanabi_speed.py --output_dir=/tmp/hanabi_speed
"""

import os
import time
from typing import Sequence

from absl import app
from absl import flags
import numpy as np

from open_spiel_ext.utils import executors
from open_spiel_ext.utils import reporting

_OUTPUT_DIR = flags.DEFINE_string("output_dir", "benchmark_results",
                                  "Where the PNG is written.")
_PRESET = flags.DEFINE_string("preset", "full", "Hanabi preset.")
_SECONDS = flags.DEFINE_float(
    "seconds", 5.0, "Least time each pyspiel measurement plays for.")
_ROLLOUT_STEPS = flags.DEFINE_integer(
    "rollout_steps", 100, "Steps per game in each batched rollout.")
_ROLLOUTS = flags.DEFINE_integer(
    "rollouts", 5, "Batched rollouts timed per measurement (after one that "
    "compiles).")

BATCH_SIZES = (1, 1024, 8192)


def pyspiel_rate(preset: str, seconds: float,
                 every_observer: bool) -> dict[str, float]:
  """Uniformly random steps per second through the pyspiel API, reading
  the mover's observation tensor (or every player's) before each step."""
  from open_spiel_ext.games.hanabi import engine  # pylint: disable=g-import-not-at-top
  game = engine.Rules.from_preset(preset).game()
  observers = range(game.num_players()) if every_observer else None
  rng = np.random.default_rng(0)
  steps = 0
  start = time.perf_counter()
  while time.perf_counter() - start < seconds:
    state = game.new_initial_state()
    while not state.is_terminal():
      if state.is_chance_node():
        outcomes, probabilities = zip(*state.chance_outcomes())
        state.apply_action(int(rng.choice(outcomes, p=probabilities)))
        continue
      for observer in observers or (state.current_player(),):
        state.observation_tensor(observer)
      legal = state.legal_actions()
      state.apply_action(legal[rng.integers(len(legal))])
      steps += 1
  elapsed = time.perf_counter() - start
  return {"steps_per_second": steps / elapsed, "compile_seconds": 0.0,
          "peak_mb": reporting.peak_memory_mb()}


def batched_rate(preset: str, batch: int, steps: int,
                 rollouts: int) -> dict[str, float]:
  """Uniformly random steps per second through the batched engine."""
  import jax  # pylint: disable=g-import-not-at-top
  import jax.numpy as jnp  # pylint: disable=g-import-not-at-top
  from open_spiel_ext.algorithms.nn import masking  # pylint: disable=g-import-not-at-top
  from open_spiel_ext.games.hanabi import engine as engine_lib  # pylint: disable=g-import-not-at-top
  engine = engine_lib.HanabiEngine(engine_lib.Rules.from_preset(preset),
                                   auto_reset=True)

  @jax.jit
  def rollout(state, key):
    def random_step(state, key):
      mask = state.legal_action_mask
      action = masking.masked_sample(key, jnp.zeros(mask.shape), mask)
      return engine.step(state, action), None
    return jax.lax.scan(random_step, state,
                        jax.random.split(key, steps))[0]

  start = time.perf_counter()
  state = engine.init(jax.random.split(jax.random.PRNGKey(0), batch))
  state = jax.block_until_ready(rollout(state, jax.random.PRNGKey(1)))
  compile_seconds = time.perf_counter() - start
  start = time.perf_counter()
  for index in range(rollouts):
    state = rollout(state, jax.random.PRNGKey(2 + index))
  jax.block_until_ready(state)
  elapsed = time.perf_counter() - start
  return {"steps_per_second": batch * steps * rollouts / elapsed,
          "compile_seconds": compile_seconds,
          "peak_mb": reporting.peak_memory_mb()}


def plot(results: dict[str, dict[str, float]], path: str, preset: str,
         reference: float) -> None:
  labels = list(results)
  fig, ax = reporting.plt.subplots(figsize=(8, 4))
  ax.bar(np.arange(len(labels)),
         [results[label]["steps_per_second"] for label in labels])
  ax.axhline(10 * reference, color="gray", linestyle="--",
             label="10× pyspiel (mover's observation)")
  ax.set_yscale("log")
  ax.set_xticks(np.arange(len(labels)), labels, fontsize=8)
  ax.set_ylabel("random steps per second, with observations")
  ax.set_title(f"Hanabi ({preset}): pyspiel (C++ HLE) vs batched JAX engine")
  ax.legend(fontsize=8)
  reporting.save_figure(fig, path, dpi=120)


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  preset = _PRESET.value
  runs = [("pyspiel, mover", pyspiel_rate, (preset, _SECONDS.value, False)),
          ("pyspiel, every player", pyspiel_rate,
           (preset, _SECONDS.value, True))] + [
               (f"engine, batch {batch}", batched_rate,
                (preset, batch, _ROLLOUT_STEPS.value, _ROLLOUTS.value))
               for batch in BATCH_SIZES]
  print(f"{'engine':24s} {'steps/s':>12s} {'x pyspiel':>10s} "
        f"{'compile s':>10s} {'peak MB':>8s}")
  results = {}
  for label, function, args in runs:
    result = executors.in_fresh_process(function, *args)
    results[label] = result
    ratio = (result["steps_per_second"] /
             results["pyspiel, mover"]["steps_per_second"])
    print(f"{label:24s} {result['steps_per_second']:12,.0f} {ratio:9.1f}x "
          f"{result['compile_seconds']:10.1f} {result['peak_mb']:8.0f}",
          flush=True)
  path = os.path.join(_OUTPUT_DIR.value, "hanabi_speed.png")
  plot(results, path, preset, results["pyspiel, mover"]["steps_per_second"])
  print(f"wrote {path}")


if __name__ == "__main__":
  app.run(main)
