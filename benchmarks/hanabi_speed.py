"""Hanabi throughput: OpenSpiel's C++ `hanabi` and JaxMARL's JAX Hanabi
against the batched JAX engine.

Steps per second of uniformly random play with observations, side by side in
one run: through the pyspiel API (one state at a time; each decision reads
the observation tensor of the player to move, or of every player as the
engine gives them), through `games/hanabi/engine.py` and, on full 2-player
Hanabi where JaxMARL is installed (`pip install ".[benchmarks]"`), through
JaxMARL's `hanabi` environment, both at batch sizes 1, 1,024 and 8,192 (a
jitted scan of `step` with auto-reset over a batch, every player's
observation computed each step: the engine's are in its state, JaxMARL's
summed into the scan's carry so that XLA keeps them; legal moves sampled
uniformly, JaxMARL's non-acting player choosing its only legal move, the
no-op). Both observations are the 658-float canonical Hanabi encoding of
the Hanabi Learning Environment (OpenSpiel's, which the engine matches).
Chance nodes count as time, not steps; compilation is timed apart. Each
measurement runs in its own process (so its peak memory is its own), on one
core for pyspiel. Prints a table with each rate as a multiple of pyspiel's
(observations of the player to move) and writes a bar chart and
hanabi_speed.json.

  python benchmarks/hanabi_speed.py --output_dir=/tmp/hanabi_speed
"""

import json
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
_PRESET = flags.DEFINE_string("preset", "full", "Hanabi preset.")
_SECONDS = flags.DEFINE_float(
    "seconds", 5.0, "Least time each pyspiel measurement plays for.")
_ROLLOUT_STEPS = flags.DEFINE_integer(
    "rollout_steps", 100, "Steps per game in each batched rollout.")
_ROLLOUTS = flags.DEFINE_integer(
    "rollouts", 5, "Batched rollouts timed per measurement (after one that "
    "compiles).")
_BATCH_SIZES = flags.DEFINE_list("batch_sizes", ["1", "1024", "8192"],
                                 "Batch sizes of the JAX engines.")

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

  state = engine.init(jax.random.split(jax.random.PRNGKey(0), batch))
  return {**_timed_rollouts(rollout, state, batch * steps, rollouts),
          "peak_mb": reporting.peak_memory_mb()}


def _timed_rollouts(rollout, carry, steps: int,
                    rollouts: int) -> dict[str, float]:
  """Steps per second of `rollouts` calls of `rollout` (each `steps` steps),
  after two calls that compile: the first, from the initial carry, and the
  second, which compiles again where the carry it returned has other types
  (a weakly typed initial state, say)."""
  import jax  # pylint: disable=g-import-not-at-top
  start = time.perf_counter()
  carry = jax.block_until_ready(rollout(carry, jax.random.PRNGKey(1)))
  compile_seconds = time.perf_counter() - start
  carry = jax.block_until_ready(rollout(carry, jax.random.PRNGKey(2)))
  start = time.perf_counter()
  for index in range(rollouts):
    carry = rollout(carry, jax.random.PRNGKey(3 + index))
  jax.block_until_ready(carry)
  elapsed = time.perf_counter() - start
  return {"steps_per_second": steps * rollouts / elapsed,
          "compile_seconds": compile_seconds}


def jaxmarl_rate(batch: int, steps: int, rollouts: int) -> dict[str, float]:
  """Uniformly random steps per second through JaxMARL's Hanabi (full,
  2 players), every player's observation kept."""
  import jax  # pylint: disable=g-import-not-at-top
  import jax.numpy as jnp  # pylint: disable=g-import-not-at-top
  import jaxmarl  # pylint: disable=g-import-not-at-top
  from open_spiel_ext.algorithms.nn import masking  # pylint: disable=g-import-not-at-top
  env = jaxmarl.make("hanabi")
  agents = env.agents

  def random_step(carry, key):
    states, checksum = carry
    step_key, act_key = jax.random.split(key)
    legal = jax.vmap(env.get_legal_moves)(states)
    actions = {agent: masking.masked_sample(
        agent_key, jnp.zeros(legal[agent].shape), legal[agent] > 0)
               for agent, agent_key in zip(
                   agents, jax.random.split(act_key, len(agents)))}
    observations, states, _, _, _ = jax.vmap(env.step)(
        jax.random.split(step_key, batch), states, actions)
    checksum += sum(observations[agent].sum() for agent in agents)
    return (states, checksum), None

  @jax.jit
  def rollout(carry, key):
    return jax.lax.scan(random_step, carry, jax.random.split(key, steps))[0]

  _, states = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(0),
                                                   batch))
  return {**_timed_rollouts(rollout, (states, jnp.float32(0)), batch * steps,
                            rollouts),
          "peak_mb": reporting.peak_memory_mb()}


def _jaxmarl_installed() -> bool:
  import importlib.util  # pylint: disable=g-import-not-at-top
  return importlib.util.find_spec("jaxmarl") is not None


def plot(results: dict[str, dict[str, float]], path: str, preset: str,
         reference: float) -> None:
  labels = list(results)
  colours = {"pyspiel": "tab:gray", "engine": "tab:blue",
             "JaxMARL": "tab:orange"}
  fig, ax = reporting.plt.subplots(figsize=(1.1 * len(labels) + 2, 4.5))
  ax.bar(np.arange(len(labels)),
         [results[label]["steps_per_second"] for label in labels],
         color=[colours[label.split(",")[0]] for label in labels])
  ax.axhline(10 * reference, color="gray", linestyle="--",
             label="10× pyspiel (mover's observation)")
  ax.set_yscale("log")
  ax.set_xticks(np.arange(len(labels)), labels, fontsize=8, rotation=30,
                ha="right")
  ax.set_ylabel("random steps per second, with observations")
  rivals = " and JaxMARL" if any("JaxMARL" in label for label in labels) else ""
  ax.set_title(f"Hanabi ({preset}): pyspiel (C++ HLE){rivals} vs the "
               "batched JAX engine")
  ax.legend(fontsize=8)
  reporting.save_figure(fig, path, dpi=120)


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  preset = _PRESET.value
  with cli.user_input("batch_sizes"):
    batch_sizes = [int(text) for text in _BATCH_SIZES.value]
  runs = [("pyspiel, mover", pyspiel_rate, (preset, _SECONDS.value, False)),
          ("pyspiel, every player", pyspiel_rate,
           (preset, _SECONDS.value, True))]
  jaxmarl = preset == "full" and _jaxmarl_installed()
  if preset == "full" and not jaxmarl:
    print("JaxMARL is not installed: pip install \".[benchmarks]\" to run "
          "it beside the engine")
  for batch in batch_sizes:
    runs.append((f"engine, batch {batch}", batched_rate,
                 (preset, batch, _ROLLOUT_STEPS.value, _ROLLOUTS.value)))
    if jaxmarl:
      runs.append((f"JaxMARL, batch {batch}", jaxmarl_rate,
                   (batch, _ROLLOUT_STEPS.value, _ROLLOUTS.value)))
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
  with open(os.path.join(_OUTPUT_DIR.value, "hanabi_speed.json"), "w",
            encoding="utf-8") as f:
    json.dump({"preset": preset, "results": results}, f, indent=1)
  for batch in batch_sizes if jaxmarl else ():
    engine, rival = (results[f"{name}, batch {batch}"]["steps_per_second"]
                     for name in ("engine", "JaxMARL"))
    print(f"batch {batch}: the engine at {engine / rival:.2f}× JaxMARL's "
          "steps per second")
  print(f"wrote {path}")


if __name__ == "__main__":
  cli.run(main)
