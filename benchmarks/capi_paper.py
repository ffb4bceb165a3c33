"""The CAPI paper's three experiments, side by side with the baselines.

  python benchmarks/capi_paper.py --experiments=tiny_hanabi,trade_comm \
      --runs=32 --capi_seeds=8 --output_dir=/tmp/capi_paper

1. Tiny Hanabi A-F: every tabular baseline and PuB-MDP Q-learning, --runs runs
   each in lockstep, and CAPI with --capi_seeds seeds; how many runs reach the
   optimum (the PuB-MDP's exhaustive dynamic program).
2. Trade Comm, 12 items: CAPI (--capi_seeds seeds, --workers at a time,
   --trade_comm_episodes episodes, K = --num_prescriptions) against the
   independent baselines (--baseline_episodes episodes); optimum 1.0,
   no coordination 1/144.
3. Abstracted Tiny Bridge: CAPI in the paper's configuration
   (`capi_recipes.tiny_bridge_config`: a tabular policy, the K most likely
   prescriptions, values squashed into the payoff range) against the
   baselines; best value per seed.

Every CAPI seed and every baseline (game, algorithm) is a task on one
executor (--executor, --workers). Prints markdown tables, writes results.json
and capi_paper.png (runs reaching the optimum per game and algorithm) under
--output_dir; each CAPI experiment also leaves its per-seed metrics and
curves in a subfolder, and <experiment>_versus_baselines.png (CAPI's seeds
and the baselines' values against episodes). The same command resumes an
interrupted run: CAPI seeds from their checkpoints, and baseline tasks that
ended are not run again.
"""

import dataclasses
import json
import os
from typing import Any, Optional, Sequence

from absl import flags
import numpy as np

from open_spiel_ext.algorithms import coop_baselines
from open_spiel_ext.algorithms.capi import config as capi_config
from open_spiel_ext.experiments import capi_recipes
from open_spiel_ext.experiments import coop_runs
from open_spiel_ext.experiments import references
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import executors
from open_spiel_ext.utils import reporting

EXPERIMENTS = ("tiny_hanabi", "trade_comm", "tiny_bridge")
TRADE_COMM = "trade_comm(num_items=12)"

_EXPERIMENTS = flags.DEFINE_list("experiments", list(EXPERIMENTS),
                                 "Which experiments.")
_RUNS = flags.DEFINE_integer("runs", 32, "Baseline runs per game and "
                             "algorithm (they run in lockstep).")
_CAPI_SEEDS = flags.DEFINE_integer("capi_seeds", 8, "CAPI seeds per game.")
_TINY_HANABI_EPISODES = flags.DEFINE_integer(
    "tiny_hanabi_episodes", 20_000, "Baseline episodes on Tiny Hanabi.")
_TINY_HANABI_CAPI_EPISODES = flags.DEFINE_integer(
    "tiny_hanabi_capi_episodes", 600, "CAPI episodes on Tiny Hanabi.")
_TRADE_COMM_EPISODES = flags.DEFINE_integer("trade_comm_episodes", 2_000,
                                            "CAPI episodes on Trade Comm.")
_BRIDGE_EPISODES = flags.DEFINE_integer("bridge_episodes", 2_000,
                                        "CAPI episodes on Tiny Bridge.")
_BASELINE_EPISODES = flags.DEFINE_integer(
    "baseline_episodes", 200_000, "Baseline episodes on Trade Comm and "
    "Tiny Bridge.")
_NUM_PRESCRIPTIONS = flags.DEFINE_integer(
    "num_prescriptions", 10_000, "CAPI's K on Trade Comm and Tiny Bridge.")
_UPDATES = flags.DEFINE_integer(
    "updates_per_episode", 4, "CAPI's Adam steps per episode on Trade Comm.")
_STOP_WHEN_SOLVED = flags.DEFINE_bool(
    "stop_when_solved", True, "End a CAPI run at its first evaluation "
    "reaching the target.")
_OUTPUT_DIR = flags.DEFINE_string("output_dir", "/tmp/capi_paper",
                                  "Where results go.")
cli.define_executor_flags()

INDEPENDENT = ("iql", "hql", "vdn", "sad", "ia2c2")


def baseline_configs(algorithms: Sequence[str], episodes: int
                    ) -> list[coop_baselines.Config]:
  return [coop_baselines.Config(algorithm=a, episodes=episodes,
                                eval_every=max(episodes // 10, 1))
          for a in algorithms]


def submit_capi(executor: executors.Executor, game: str, name: str,
                target: Optional[float], config: capi_config.Config
               ) -> coop_runs.PendingSeeds:
  """CAPI seeds of `config` on one game, submitted to run in parallel."""
  def make_config(seed: int) -> capi_config.Config:
    return dataclasses.replace(config, seed=seed)
  return coop_runs.submit_seeds(
      game, list(range(_CAPI_SEEDS.value)), executor, make_config, target,
      os.path.join(_OUTPUT_DIR.value, name), _STOP_WHEN_SOLVED.value)


def tiny_hanabi(executor: executors.Executor) -> dict[str, Any]:
  games = [f"tiny_hanabi_{x}" for x in "abcdef"]
  baselines = coop_runs.submit_table(
      games, baseline_configs(coop_baselines.ALGORITHMS,
                              _TINY_HANABI_EPISODES.value),
      _RUNS.value, 0, executor, os.path.join(_OUTPUT_DIR.value, "tiny_hanabi"))
  seeds = {
      game: submit_capi(executor, game, f"tiny_hanabi_capi_{game[-1]}",
                        baselines.optima[game],
                        capi_recipes.tiny_hanabi_config(
                            episodes=_TINY_HANABI_CAPI_EPISODES.value))
      for game in games}
  table = coop_runs.collect_table(baselines)
  table["capi_runs"] = _CAPI_SEEDS.value
  table["capi_solved"] = {
      game: sum(s["solved_at_episode"] is not None
                for s in coop_runs.collect_seeds(pending))
      for game, pending in seeds.items()}
  print(coop_runs.format_table(table))
  print("| capi | " + " | ".join(
      f"{table['capi_solved'][g]}/{_CAPI_SEEDS.value}" for g in games) + " |")
  return table


def versus_baselines(executor: executors.Executor, game: str, name: str,
                     target: float, config: capi_config.Config
                    ) -> dict[str, Any]:
  """CAPI's best value per seed against the baselines' final values (the
  baselines are queued behind the seeds, so no worker idles while the last
  seeds run)."""
  seeds = submit_capi(executor, game, name, target, config)
  baselines = coop_runs.submit_table(
      [game], baseline_configs(INDEPENDENT, _BASELINE_EPISODES.value),
      _RUNS.value, 0, executor,
      os.path.join(_OUTPUT_DIR.value, f"{name}_baselines"),
      targets={game: target})
  summaries = coop_runs.collect_seeds(seeds)
  table = coop_runs.collect_table(baselines)
  plot_versus_baselines(seeds, baselines.output_dir, os.path.join(
      _OUTPUT_DIR.value, f"{name}_versus_baselines.png"))
  print(f"\n{game}: CAPI best value per seed "
        f"{[round(s['best_value'], 4) for s in summaries]}, reaching "
        f"{target} at episodes "
        f"{[s['solved_at_episode'] for s in summaries]}")
  for algorithm, values in table["mean_value"].items():
    print(f"  {algorithm}: mean greedy value {values[game]:.4f} over "
          f"{_RUNS.value} runs after {_BASELINE_EPISODES.value} episodes")
  return {"capi": summaries, "baselines": table}


def plot_versus_baselines(seeds: coop_runs.PendingSeeds, baselines_dir: str,
                          path: str) -> None:
  """CAPI's best value so far per seed, and each baseline's greedy value
  (mean over its runs; band: the worst to the best run), against episodes
  on a log scale, with the game's target and known values."""
  plt = reporting.plt
  fig, axis = plt.subplots(figsize=(9, 4.8))
  for index, seed in enumerate(seeds.seeds):
    records = coop_runs.read_seed_metrics(seeds.output_dir, seed)
    if records:
      axis.plot([r["episode"] for r in records], coop_runs.best_so_far(records),
                color=f"C{index}", label=f"CAPI seed {seed} (best so far)")
  by_algorithm = {}
  for record in reporting.read_json_lines(
      os.path.join(baselines_dir, "metrics.jsonl")):
    by_algorithm.setdefault(record["algorithm"], []).append(record)
  for index, (algorithm, records) in enumerate(by_algorithm.items()):
    episodes = [r["episode"] for r in records]
    values = np.array([r["values"] for r in records])
    color = f"C{len(seeds.seeds) + index}"
    axis.plot(episodes, values.mean(axis=1), color=color, marker="o",
              markersize=3, label=f"{algorithm} ({values.shape[1]} runs)")
    axis.fill_between(episodes, values.min(axis=1), values.max(axis=1),
                      color=color, alpha=0.12)
  coop_runs.draw_lines(axis, coop_runs.reference_lines(seeds))
  axis.set_xscale("log")
  axis.set_xlabel("episodes")
  axis.set_ylabel("expected return")
  axis.grid(alpha=0.3)
  axis.legend(fontsize="small", loc="center left", bbox_to_anchor=(1, 0.5))
  axis.set_title(f"CAPI against independent learners on {seeds.game}")
  reporting.save_figure(fig, path)


def plot(results: dict[str, Any], path: str) -> None:
  """Runs reaching the optimum on Tiny Hanabi, per algorithm and game."""
  table = results["tiny_hanabi"]
  games = list(table["optimal"])
  rows = {a: [table["solved"][a][g] / table["runs"] for g in games]
          for a in table["solved"]}
  rows["capi"] = [table["capi_solved"][g] / table["capi_runs"] for g in games]
  plt = reporting.plt
  fig, axis = plt.subplots(figsize=(10, 4))
  width = 0.8 / len(rows)
  for index, (algorithm, fractions) in enumerate(rows.items()):
    axis.bar(np.arange(len(games)) + index * width, fractions, width,
             label=algorithm)
  axis.set_xticks(np.arange(len(games)) + 0.4 - width / 2,
                  [g[-1].upper() for g in games])
  axis.set_ylabel("fraction of runs optimal")
  axis.set_title("Tiny Hanabi Suite")
  axis.legend(fontsize="small", ncols=4)
  reporting.save_figure(fig, path)


def run_experiments(executor: executors.Executor) -> dict[str, Any]:
  results = {}
  if "tiny_hanabi" in _EXPERIMENTS.value:
    results["tiny_hanabi"] = tiny_hanabi(executor)
  if "trade_comm" in _EXPERIMENTS.value:
    results["trade_comm"] = versus_baselines(
        executor, TRADE_COMM, "trade_comm", 1.0, capi_config.Config(
            episodes=_TRADE_COMM_EPISODES.value,
            num_prescriptions=_NUM_PRESCRIPTIONS.value,
            updates_per_episode=_UPDATES.value, eval_every=20))
  if "tiny_bridge" in _EXPERIMENTS.value:
    results["tiny_bridge"] = versus_baselines(
        executor, references.TINY_BRIDGE, "tiny_bridge",
        references.TINY_BRIDGE_TARGET, capi_recipes.tiny_bridge_config(
            episodes=_BRIDGE_EPISODES.value,
            num_prescriptions=_NUM_PRESCRIPTIONS.value, eval_every=100))
  return results


def main(argv: Sequence[str]) -> None:
  del argv
  unknown = set(_EXPERIMENTS.value) - set(EXPERIMENTS)
  if unknown:
    raise ValueError(f"unknown experiments {sorted(unknown)}; choose from "
                     f"{EXPERIMENTS}")
  os.makedirs(_OUTPUT_DIR.value, exist_ok=True)
  with cli.executor_from_flags() as executor:
    results = run_experiments(executor)
  with open(os.path.join(_OUTPUT_DIR.value, "results.json"), "w",
            encoding="utf-8") as f:
    json.dump(results, f, indent=1, default=str)
  if "tiny_hanabi" in results:
    plot(results, os.path.join(_OUTPUT_DIR.value, "capi_paper.png"))


if __name__ == "__main__":
  cli.run(main)
