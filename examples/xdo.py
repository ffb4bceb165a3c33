"""Runs tabular XDO on a game until its meta-NE reaches a target exploitability.

Prints one line per XDO iteration and writes, under --output_dir:
metrics.jsonl (one record per iteration), xdo.png (exploitability against wall
time and against iterations) and policy.json (the final meta-NE, information
state -> action -> probability).

  python -m open_spiel_ext.examples.xdo
  python -m open_spiel_ext.examples.xdo --game=leduc_poker --target=0.001
"""

import time
from typing import Sequence

from absl import app
from absl import flags

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel_ext.algorithms import xdo
from open_spiel_ext.algorithms.tree import game_tree
from open_spiel_ext.algorithms.tree import sweeps
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import reporting

_GAME = flags.DEFINE_string("game", "xdo_clone_leduc(clones=2)",
                            "Game string of a 2-player zero-sum game.")
_TARGET = flags.DEFINE_float(
    "target", 0.01, "Stop once the meta-NE's exploitability is at most this; "
    "0 for the XDO thesis's stopping rule instead.", lower_bound=0.0)
_MAX_ITERATIONS = flags.DEFINE_integer("max_iterations", 100,
                                       "Most XDO iterations.", lower_bound=1)
_TIME_LIMIT = flags.DEFINE_float("time_limit", None,
                                 "Stop after this many seconds.",
                                 lower_bound=0.0)
_INNER_SOLVER = flags.DEFINE_enum("inner_solver", "cfr+", ["cfr+", "linear"],
                                  "Restricted-game solver.")
_EPSILON = flags.DEFINE_float("epsilon", 0.35, "Initial ε.", lower_bound=0.0)
_EPSILON_DECAY = flags.DEFINE_float("epsilon_decay", 0.98,
                                    "ε's factor per iteration, in (0, 1].",
                                    lower_bound=0.0, upper_bound=1.0)
flags.register_validator("epsilon_decay", lambda value: value > 0,
                         message="must be above 0")
_INNER_CHECK_EVERY = flags.DEFINE_integer(
    "inner_check_every", 10, "Inner iterations before the first check.",
    lower_bound=1)
_OUTPUT_DIR = flags.DEFINE_string("output_dir", "xdo_output",
                                  "Where metrics, plot and policy go.")


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  start = time.time()
  game = cli.parse_flag("game", _GAME.value, open_spiel_ext.load_game)
  with cli.user_input("game"):
    tree_sweeps = sweeps.for_game(game)
  sizes = game_tree.tree_sizes(tree_sweeps.tree)
  print(f"{game}: {sizes['histories']:,} histories, "
        f"{sizes['information_states']:,} information states; tree built in "
        f"{time.time() - start:.2f} s")
  with reporting.counting_compilations() as compilations:
    solver = xdo.XDO(
        tree_sweeps, xdo.Config(
            inner_solver=_INNER_SOLVER.value, epsilon=_EPSILON.value,
            epsilon_decay=_EPSILON_DECAY.value,
            inner_check_every=_INNER_CHECK_EVERY.value), start_time=start)
    log = list(reporting.follow(
        solver.run(target_exploitability=_TARGET.value or None,
                   max_iterations=_MAX_ITERATIONS.value,
                   time_limit=_TIME_LIMIT.value), _OUTPUT_DIR.value,
        lambda entry: (
            f"iter {entry.iteration:3d}  {entry.wall_time:7.2f} s  "
            f"exploitability {entry.exploitability:.5f}  restricted "
            f"{entry.restricted_exploitability:.5f}  restricted game "
            f"{entry.restricted_histories:,} histories  visited "
            f"{entry.histories_visited:,}  inner {entry.inner_iterations}  "
            f"+{entry.new_actions} actions")))
  print(f"JAX compiled {compilations.count} times in "
        f"{compilations.seconds:.2f} s of that")
  reporting.finish(log, _OUTPUT_DIR.value, "xdo", f"XDO on {game}",
                   solver.tabular_policy())


if __name__ == "__main__":
  cli.run(main)
