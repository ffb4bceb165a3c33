"""Our tree-engine CFR variants and OpenSpiel's C++ CFR+, side by side.

Each solver runs --iterations iterations; every --eval_every iterations, and
after the last, its average policy's exploitability is measured (not
counted in its time). The C++ CFR+ runs on OpenSpiel's `cached_tree` of the
game, whose build time is counted, as our tree build is. Writes metrics.jsonl and cfr.png under --output_dir.

  python -m open_spiel_ext.examples.cfr --game=leduc_poker --iterations=200
"""

import os
from typing import Sequence

from absl import app
from absl import flags

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel_ext.algorithms.tree import cfr
from open_spiel_ext.algorithms.tree import game_tree
from open_spiel_ext.experiments import cfr_timing
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import reporting

_GAME = flags.DEFINE_string("game", "leduc_poker",
                            "Game string of a 2-player zero-sum game.")
_ITERATIONS = flags.DEFINE_integer("iterations", 200, "Iterations per solver.",
                                   lower_bound=1)
_EVAL_EVERY = flags.DEFINE_integer("eval_every", 10,
                                   "Iterations between evaluations.",
                                   lower_bound=1)
_VARIANTS = flags.DEFINE_list("variants", list(cfr.VARIANTS),
                              "Our CFR variants to run.")
_OPENSPIEL_CPP = flags.DEFINE_bool(
    "openspiel_cpp", True, "Also run OpenSpiel's C++ CFR+ on cached_tree.")
_OUTPUT_DIR = flags.DEFINE_string("output_dir", "cfr_output",
                                  "Where metrics and plot go.")


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  game = cli.parse_flag("game", _GAME.value, open_spiel_ext.load_game)
  if not _VARIANTS.value and not _OPENSPIEL_CPP.value:
    raise app.UsageError("--variants is empty and --noopenspiel_cpp: no "
                         "solver to run")
  for variant in _VARIANTS.value:
    if variant not in cfr.VARIANTS:
      raise app.UsageError(f"--variants: unknown variant {variant!r}; "
                           f"choose from {cfr.VARIANTS}")
  with cli.user_input("game"):
    game_tree.check_game(game)
  solvers = {f"ours {variant}": cfr_timing.ours(game, variant)
             for variant in _VARIANTS.value}
  if _OPENSPIEL_CPP.value:
    solvers["OpenSpiel C++ CFR+"] = cfr_timing.openspiel_cpp_cfr_plus(game)
  metrics = reporting.JsonLinesWriter(
      os.path.join(_OUTPUT_DIR.value, "metrics.jsonl"))
  curves = []
  for name, setup in solvers.items():
    points = []
    for seconds, iteration, exploitability in cfr_timing.timed_runs(
        setup, _EVAL_EVERY.value, iterations=_ITERATIONS.value):
      points.append((seconds, iteration, exploitability))
      metrics.write({"solver": name, "iteration": iteration,
                     "seconds": seconds, "exploitability": exploitability})
      print(f"{name:20s} iter {iteration:5d}  {seconds:8.2f} s  "
            f"exploitability {exploitability:.6f}", flush=True)
    curves.append((name, tuple(zip(*points))))
  metrics.close()
  reporting.plot_curves(
      os.path.join(_OUTPUT_DIR.value, "cfr.png"),
      [("solver seconds (build included)", "log"), ("iteration", "log")],
      curves, title=f"CFR variants on {game}")
  print(f"wrote metrics.jsonl and cfr.png to {_OUTPUT_DIR.value}")


if __name__ == "__main__":
  cli.run(main)
