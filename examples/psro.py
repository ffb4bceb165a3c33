"""Runs tabular PSRO / double oracle on a game and reports its meta-NE.

Prints one line per iteration and writes metrics.jsonl, psro.png
(exploitability against wall time and iterations) and policy.json (the final
meta-NE as a behaviour policy) under --output_dir.

  python -m open_spiel_ext.examples.psro --game=leduc_poker --target=0.1
  python -m open_spiel_ext.examples.psro --payoff_samples=2000 --meta_solver=prd
"""

import time
from typing import Sequence

from absl import app
from absl import flags

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel_ext.algorithms import meta_solvers
from open_spiel_ext.algorithms import psro
from open_spiel_ext.algorithms.tree import sweeps
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import reporting

_GAME = flags.DEFINE_string("game", "leduc_poker",
                            "Game string of a 2-player zero-sum game.")
_META_SOLVER = flags.DEFINE_enum("meta_solver", "lp",
                                 sorted(meta_solvers.META_SOLVERS),
                                 "Meta-game solver.")
_PAYOFF_SAMPLES = flags.DEFINE_integer(
    "payoff_samples", 0, "Games sampled per meta-game entry; 0 for exact "
    "payoffs from the tree engine.", lower_bound=0)
_TARGET = flags.DEFINE_float("target", 0.1,
                             "Stop once exploitability is at most this.",
                             lower_bound=0.0)
_MAX_ITERATIONS = flags.DEFINE_integer("max_iterations", 300,
                                       "Most PSRO iterations.", lower_bound=1)
_TIME_LIMIT = flags.DEFINE_float("time_limit", None,
                                 "Stop after this many seconds.",
                                 lower_bound=0.0)
# numpy's RandomState takes seeds below 2**32.
_SEED = flags.DEFINE_integer("seed", 0, "Seeds the payoff sampling.",
                             lower_bound=0, upper_bound=2**32 - 1)
_OUTPUT_DIR = flags.DEFINE_string("output_dir", "psro_output",
                                  "Where metrics, plot and policy go.")


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  start = time.time()
  game = cli.parse_flag("game", _GAME.value, open_spiel_ext.load_game)
  with cli.user_input("game"):
    tree_sweeps = sweeps.for_game(game)
  solver = psro.PSRO(
      tree_sweeps, psro.Config(meta_solver=_META_SOLVER.value,
                               payoff_samples=_PAYOFF_SAMPLES.value or None,
                               seed=_SEED.value), start_time=start)
  log = list(reporting.follow(
      solver.run(target_exploitability=_TARGET.value,
                 max_iterations=_MAX_ITERATIONS.value,
                 time_limit=_TIME_LIMIT.value), _OUTPUT_DIR.value,
      lambda entry: (
          f"iter {entry.iteration:3d}  {entry.wall_time:7.2f} s  "
          f"exploitability {entry.exploitability:.5f}  population "
          f"{entry.population_sizes}  visited {entry.histories_visited:,}")))
  reporting.finish(log, _OUTPUT_DIR.value, "psro",
                   f"PSRO ({_META_SOLVER.value}) on {game}",
                   solver.tabular_policy())


if __name__ == "__main__":
  cli.run(main)
