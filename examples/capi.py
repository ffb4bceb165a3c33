"""Runs CAPI on a common-payoff game, several seeds in parallel processes.

  python -m open_spiel_ext.examples.capi --game="trade_comm(num_items=12)" \
      --seeds=0,1 --episodes=2000 --output_dir=capi_trade_comm

Prints a progress line per seed every --eval_every episodes (greedy and
search values, the last episode's return, distinct next beliefs evaluated,
seconds and where they went), writes metrics_seed<S>.jsonl per seed,
summary.json (per seed: best value, first episode reaching --target, seconds)
and capi.png (values against episodes and seconds). Defaults are the paper's
Trade Comm settings except K (see the README).
"""

import concurrent.futures
import dataclasses
import json
import multiprocessing
import os
from typing import Any, Optional, Sequence

from absl import app
from absl import flags
import numpy as np

from open_spiel_ext.algorithms import capi
from open_spiel_ext.algorithms import pub_mdp
from open_spiel_ext.examples import reporting
import pyspiel

_GAME = flags.DEFINE_string("game", "trade_comm(num_items=12)",
                            "A 2-player common-payoff game with public moves.")
_SEEDS = flags.DEFINE_list("seeds", ["0"], "One run per seed.")
_PROCESSES = flags.DEFINE_integer("processes", 2, "Runs at once.")
_EPISODES = flags.DEFINE_integer("episodes", 2_000, "Episodes per run.")
_NUM_PRESCRIPTIONS = flags.DEFINE_integer(
    "num_prescriptions", 2_000, "K: prescriptions acquired per decision.")
_ACQUISITION = flags.DEFINE_enum("acquisition", "sample", capi.ACQUISITIONS,
                                 "Sample K, or take the K most likely.")
_POLICY = flags.DEFINE_enum("policy", "network", capi.POLICIES,
                            "Policy head on the value network, or a table "
                            "per public stage.")
_EPSILON = flags.DEFINE_float("epsilon", 0.1,
                              "Chance of playing a random acquired "
                              "prescription.")
_STRUCTURED = flags.DEFINE_bool(
    "structured_exploration", True,
    "Sample with one random row of the policy set to uniform.")
_HIDDEN_SIZES = flags.DEFINE_list("hidden_sizes", ["256", "256", "256"],
                                  "Value network layers.")
_LEARNING_RATE = flags.DEFINE_float("learning_rate", 1e-4, "Adam step size.")
_POLICY_LOSS_WEIGHT = flags.DEFINE_float("policy_loss_weight", 0.01,
                                         "Weight of the policy head's loss.")
_UPDATES = flags.DEFINE_integer("updates_per_episode", 1,
                                "Gradient steps on each episode's buffer.")
_TABULAR_RATE = flags.DEFINE_float(
    "tabular_policy_rate", 0.01, "Tabular policy: step toward Γ* per episode.")
_POLICY_FLOOR = flags.DEFINE_float(
    "policy_floor", 0.01, "Tabular policy: floor (over the row's width) on "
    "each probability.")
_SQUASH = flags.DEFINE_bool("squash_values", False,
                            "Squash the value into the game's payoff range.")
_EVAL_EVERY = flags.DEFINE_integer("eval_every", 50,
                                   "Episodes between evaluations.")
_TARGET = flags.DEFINE_float(
    "target", None, "A run counts as solved once its search value reaches "
    "this (default: the game's maximum payoff).")
_OUTPUT_DIR = flags.DEFINE_string("output_dir", "capi_output",
                                  "Metrics, summary and plot.")


def config_from_flags(seed: int) -> capi.CapiConfig:
  return capi.CapiConfig(
      episodes=_EPISODES.value, num_prescriptions=_NUM_PRESCRIPTIONS.value,
      acquisition=_ACQUISITION.value, policy=_POLICY.value,
      epsilon=_EPSILON.value, structured_exploration=_STRUCTURED.value,
      hidden_sizes=tuple(int(h) for h in _HIDDEN_SIZES.value),
      learning_rate=_LEARNING_RATE.value,
      policy_loss_weight=_POLICY_LOSS_WEIGHT.value,
      updates_per_episode=_UPDATES.value,
      tabular_policy_rate=_TABULAR_RATE.value,
      policy_floor=_POLICY_FLOOR.value, squash_values=_SQUASH.value,
      eval_every=_EVAL_EVERY.value, seed=seed)


def run_seed(game: str, config: capi.CapiConfig, target: float,
             output_dir: str) -> dict[str, Any]:
  """One CAPI run; prints progress, writes its metrics, returns its summary."""
  mdp = pub_mdp.build(pyspiel.load_game(game))
  metrics = reporting.JsonLinesWriter(
      os.path.join(output_dir, f"metrics_seed{config.seed}.jsonl"))
  solved_at: Optional[int] = None
  best, progress = -np.inf, None
  for progress in capi.train(mdp, config):
    metrics.write(reporting.as_record(progress))
    best = max(best, progress.search_value, progress.greedy_value)
    if solved_at is None and best >= target - 1e-6:
      solved_at = progress.episode
    parts = " ".join(f"{name} {seconds:.0f}s" for name, seconds in
                     progress.seconds_by_part.items())
    print(f"seed {config.seed} episode {progress.episode}: search "
          f"{progress.search_value:.4f} greedy {progress.greedy_value:.4f} "
          f"episode return {progress.episode_return:.4f} root q* "
          f"{progress.root_q:.4f} value loss {progress.value_loss:.4f} | "
          f"{progress.distinct_next_beliefs} next beliefs, "
          f"{progress.seconds:.0f}s ({parts})", flush=True)
  metrics.close()
  return {"seed": config.seed, "best_value": float(best),
          "solved_at_episode": solved_at, "seconds": progress.seconds,
          "episodes": progress.episode}


def plot(output_dir: str, seeds: Sequence[int], title: str) -> None:
  """Search value against episodes and seconds, a curve per seed."""
  plt = reporting.plt
  fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
  for seed in seeds:
    with open(os.path.join(output_dir, f"metrics_seed{seed}.jsonl"),
              encoding="utf-8") as f:
      records = [json.loads(line) for line in f]
    for axis, x in zip(axes, ("episode", "seconds")):
      axis.plot([r[x] for r in records], [r["search_value"] for r in records],
                label=f"seed {seed}")
  for axis, label in zip(axes, ("episodes", "seconds")):
    axis.set_xlabel(label)
    axis.set_ylabel("expected return (search, no exploration)")
    axis.grid(alpha=0.3)
  axes[0].legend(fontsize="small")
  fig.suptitle(title)
  fig.tight_layout()
  fig.savefig(os.path.join(output_dir, "capi.png"), dpi=110)
  plt.close(fig)


def run_seeds(game: str, seeds: Sequence[int], processes: int,
              make_config, target: Optional[float],
              output_dir: str) -> list[dict[str, Any]]:
  """Runs the seeds in parallel processes; writes summary.json and the plot.
  """
  os.makedirs(output_dir, exist_ok=True)
  if target is None:
    target = pyspiel.load_game(game).max_utility()
  context = multiprocessing.get_context("spawn")  # JAX does not fork well.
  with concurrent.futures.ProcessPoolExecutor(processes,
                                              mp_context=context) as pool:
    summaries = list(pool.map(
        run_seed, [game] * len(seeds), [make_config(s) for s in seeds],
        [target] * len(seeds), [output_dir] * len(seeds)))
  config = dataclasses.asdict(make_config(seeds[0]))
  config.pop("seed")
  with open(os.path.join(output_dir, "summary.json"), "w",
            encoding="utf-8") as f:
    json.dump({"game": game, "target": target, "config": config,
               "runs": summaries}, f, indent=1)
  plot(output_dir, seeds, f"CAPI on {game}")
  return summaries


def main(argv: Sequence[str]) -> None:
  del argv
  seeds = [int(s) for s in _SEEDS.value]
  config_from_flags(seeds[0]).validate()
  summaries = run_seeds(_GAME.value, seeds, _PROCESSES.value, config_from_flags,
                        _TARGET.value, _OUTPUT_DIR.value)
  solved = sum(s["solved_at_episode"] is not None for s in summaries)
  print(f"{solved}/{len(seeds)} runs reached the target; "
        f"best values {[round(s['best_value'], 4) for s in summaries]}")


if __name__ == "__main__":
  app.run(main)
