"""The tabular baselines on the Tiny Hanabi Suite (or any small common-payoff
game), every run of a game and algorithm in lockstep.

  python -m open_spiel_ext.examples.tiny_hanabi_baselines --runs=32 \
      --episodes=20000 --output_dir=tiny_hanabi_baselines

For each game and algorithm, prints every --eval_every episodes the mean
greedy value and how many runs are optimal, writes metrics.jsonl, table.json
(runs reaching the optimum, which the PuB-MDP's exhaustive dynamic program
gives) and baselines.png (fraction of optimal runs against episodes).
"""

import dataclasses
import json
import os
from typing import Any, Sequence

from absl import app
from absl import flags
import numpy as np

from open_spiel_ext.algorithms import coop_baselines
from open_spiel_ext.algorithms import pub_mdp
from open_spiel_ext.examples import reporting
import pyspiel

_GAMES = flags.DEFINE_list("games", [f"tiny_hanabi_{x}" for x in "abcdef"],
                           "Games to run.")
_ALGORITHMS = flags.DEFINE_list("algorithms", list(coop_baselines.ALGORITHMS),
                                "Algorithms to run.")
_RUNS = flags.DEFINE_integer("runs", 32, "Runs (seeds) per game and "
                             "algorithm.")
_SEED = flags.DEFINE_integer("seed", 0, "Random seed of the batch of runs.")
_EPISODES = flags.DEFINE_integer("episodes", 20_000, "Episodes per run.")
_EPSILON = flags.DEFINE_list("epsilon", ["1.0", "0.0"],
                             "ε at the start and the end (linear).")
_LEARNING_RATE = flags.DEFINE_list("learning_rate", ["0.1", "0.0"],
                                   "Learning rate at the start and the end.")
_HYSTERESIS = flags.DEFINE_float(
    "hysteresis", 0.1, "HQL: learning-rate factor for decreasing updates.")
_EVAL_EVERY = flags.DEFINE_integer("eval_every", 1_000,
                                   "Episodes between exact evaluations.")
_OUTPUT_DIR = flags.DEFINE_string("output_dir", "tiny_hanabi_baselines",
                                  "Metrics, table and plot.")


def optimal_value(mdp: pub_mdp.PubMdp) -> float:
  """The best joint policy's value, by dynamic programming over every belief.
  """
  return float(pub_mdp.belief_graph(mdp).optimal_values()[0])


def run_table(games: Sequence[str], configs: Sequence[
    coop_baselines.BaselineConfig], runs: int, seed: int,
              output_dir: str) -> dict[str, Any]:
  """Runs every algorithm on every game; returns and writes the table."""
  os.makedirs(output_dir, exist_ok=True)
  metrics = reporting.JsonLinesWriter(os.path.join(output_dir,
                                                   "metrics.jsonl"))
  table = {"runs": runs, "optimal": {}, "solved": {}, "mean_value": {},
           "config": [dataclasses.asdict(c) for c in configs]}
  curves = {}
  for game in games:
    mdp = pub_mdp.build(pyspiel.load_game(game))
    optimum = optimal_value(mdp)
    table["optimal"][game] = optimum
    for config in configs:
      curve = []
      for evaluation in coop_baselines.train(mdp, config, runs, seed):
        solved = int(np.sum(evaluation.values >= optimum - 1e-6))
        curve.append((evaluation.episode, solved / runs))
        metrics.write({"game": game, "algorithm": config.algorithm,
                       "episode": evaluation.episode,
                       "values": evaluation.values.tolist(),
                       "solved": solved})
        print(f"{game} {config.algorithm} episode {evaluation.episode}: mean "
              f"greedy value {evaluation.values.mean():.4f} (optimum "
              f"{optimum:.4f}), {solved}/{runs} runs optimal", flush=True)
      table["solved"].setdefault(config.algorithm, {})[game] = solved
      table["mean_value"].setdefault(config.algorithm, {})[game] = float(
          evaluation.values.mean())
      curves[(game, config.algorithm)] = curve
  metrics.close()
  with open(os.path.join(output_dir, "table.json"), "w",
            encoding="utf-8") as f:
    json.dump(table, f, indent=1)
  plot(curves, games, [c.algorithm for c in configs],
       os.path.join(output_dir, "baselines.png"))
  return table


def plot(curves, games, algorithms, path: str) -> None:
  """Fraction of optimal runs against episodes, a panel per game."""
  plt = reporting.plt
  fig, axes = plt.subplots(1, len(games), figsize=(3.2 * len(games), 3.4),
                           squeeze=False, sharey=True)
  for axis, game in zip(axes[0], games):
    for algorithm in algorithms:
      episodes, solved = zip(*curves[(game, algorithm)])
      axis.plot(episodes, solved, label=algorithm)
    axis.set_title(game)
    axis.set_xlabel("episodes")
    axis.grid(alpha=0.3)
  axes[0][0].set_ylabel("fraction of runs optimal")
  axes[0][-1].legend(fontsize="small")
  fig.tight_layout()
  fig.savefig(path, dpi=110)
  plt.close(fig)


def format_table(table: dict[str, Any]) -> str:
  """Markdown: runs reaching the optimum per algorithm and game."""
  games = list(table["optimal"])
  lines = ["| algorithm | " + " | ".join(g.replace("tiny_hanabi_", "")
                                          .upper() for g in games) + " |",
           "|---" * (len(games) + 1) + "|"]
  for algorithm, solved in table["solved"].items():
    lines.append(f"| {algorithm} | " + " | ".join(
        f"{solved[g]}/{table['runs']}" for g in games) + " |")
  return "\n".join(lines)


def configs_from_flags() -> list[coop_baselines.BaselineConfig]:
  configs = []
  for algorithm in _ALGORITHMS.value:
    config = coop_baselines.BaselineConfig(
        algorithm=algorithm, episodes=_EPISODES.value,
        epsilon_start=float(_EPSILON.value[0]),
        epsilon_end=float(_EPSILON.value[-1]),
        learning_rate_start=float(_LEARNING_RATE.value[0]),
        learning_rate_end=float(_LEARNING_RATE.value[-1]),
        hysteresis=_HYSTERESIS.value, eval_every=_EVAL_EVERY.value)
    config.validate()
    configs.append(config)
  return configs


def main(argv: Sequence[str]) -> None:
  del argv
  table = run_table(_GAMES.value, configs_from_flags(), _RUNS.value,
                    _SEED.value, _OUTPUT_DIR.value)
  print(format_table(table))


if __name__ == "__main__":
  app.run(main)
