"""The tabular baselines on the Tiny Hanabi Suite (or any small common-payoff
game), every run of a game and algorithm in lockstep.

  python -m open_spiel_ext.examples.tiny_hanabi_baselines --runs=32 \
      --episodes=20000 --output_dir=tiny_hanabi_baselines

Each game and algorithm is a task; --workers of them run at once, in spawned
processes or on Ray (--executor=ray).

For each game and algorithm, prints every --eval_every episodes the mean
greedy value and how many runs are optimal, writes metrics.jsonl, table.json
(runs reaching the optimum, which the PuB-MDP's exhaustive dynamic program
gives) and baselines.png (fraction of optimal runs against episodes).
"""

from typing import Sequence

from absl import app
from absl import flags

import open_spiel_ext
from open_spiel_ext.algorithms import coop_baselines
from open_spiel_ext.algorithms import pub_mdp
from open_spiel_ext.experiments import coop_runs
from open_spiel_ext.utils import cli

_GAMES = cli.define_game_list("games",
                              [f"tiny_hanabi_{x}" for x in "abcdef"],
                              "Games to run.")
_ALGORITHMS = flags.DEFINE_list("algorithms", list(coop_baselines.ALGORITHMS),
                                "Algorithms to run.")
_RUNS = flags.DEFINE_integer("runs", 32, "Runs (seeds) per game and "
                             "algorithm.", lower_bound=1)
_SEED = flags.DEFINE_integer("seed", 0, "Random seed of the batch of runs.",
                             lower_bound=0)
_EPISODES = flags.DEFINE_integer("episodes", 20_000, "Episodes per run.",
                                 lower_bound=1)
_EPSILON = flags.DEFINE_list("epsilon", ["1.0", "0.0"],
                             "ε at the start and the end (linear).")
_LEARNING_RATE = flags.DEFINE_list("learning_rate", ["0.1", "0.0"],
                                   "Learning rate at the start and the end.")
_HYSTERESIS = flags.DEFINE_float(
    "hysteresis", 0.1, "HQL: learning-rate factor for decreasing updates.",
    lower_bound=0.0, upper_bound=1.0)
_EVAL_EVERY = flags.DEFINE_integer("eval_every", 1_000,
                                   "Episodes between exact evaluations.",
                                   lower_bound=1)
_OUTPUT_DIR = flags.DEFINE_string("output_dir", "tiny_hanabi_baselines",
                                  "Metrics, table and plot.")
cli.define_executor_flags()


def configs_from_flags() -> list[coop_baselines.Config]:
  configs = []
  for algorithm in _ALGORITHMS.value:
    with cli.user_input():
      config = coop_baselines.Config(
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
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  configs = configs_from_flags()
  mdps = []
  for game in _GAMES.value:
    with cli.user_input(f"games={game}"):
      mdps.append(pub_mdp.build(open_spiel_ext.load_game(game)))
  needed = max((coop_baselines.table_bytes(mdp, config, _RUNS.value)
                for mdp in mdps for config in configs), default=0)
  cli.check_task_memory(needed, ["runs"])  # A task: a game, an algorithm.
  with cli.executor_from_flags() as executor:
    table = coop_runs.run_table(_GAMES.value, configs, _RUNS.value,
                                _SEED.value, executor, _OUTPUT_DIR.value)
  print(coop_runs.format_table(table))


if __name__ == "__main__":
  cli.run(main)
