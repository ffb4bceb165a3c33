"""The XDO thesis's tabular experiments, measured side by side in one run.

Sections (--sections, all by default):
  leduc        XDO vs PSRO (LP, exact payoffs) vs XFP: exploitability per
               iteration on Leduc; first iteration below 0.1.
  clones       Wall time to exploitability <= --target on m-Clone Leduc,
               m = 1, 2, 3: XDO, our CFR+, OpenSpiel JaxCFR and OpenSpiel C++
               CFR+ on cached_tree, tree builds included, evaluation excluded;
               and how many times (and how long) JAX compiled during XDO.
  histories    Exploitability against histories visited on 2-Clone Leduc and
               Oshi-Zumo (4, 3, 6): XDO, CFR+, external-sampling MCCFR.
  gmp          perturbed_k_gmp, k = 2, 8, 32, 128: exploitability reached in a
               fixed time for XDO, CFR+, XFP and PSRO (exact payoffs, and 2,000
               sampled games per entry as the thesis's PSRO).
  populations  Leduc, fixed random populations of 2, 5, 10, 20, 100 pure
               policies: exploitability of the XDO and the PSRO meta-NE.
  pure         rps_choice and clone_gmp: iterations and pure strategies (PSRO)
               or restricted actions (XDO) needed.

Prints a table per section and writes PNGs (one per section, one per k for
gmp) to --output_dir.

  pip install ".[benchmarks]"
  python benchmarks/xdo_thesis.py --output_dir=/tmp/xdo_thesis
"""

import os
import time
from typing import Callable, Optional, Sequence

from absl import app
from absl import flags
import jax
import numpy as np

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel.python.algorithms import external_sampling_mccfr
from open_spiel.python.algorithms import fictitious_play
from open_spiel.python.jax.cfr import jax_cfr
from open_spiel_ext.algorithms import meta_solvers
from open_spiel_ext.algorithms import psro
from open_spiel_ext.algorithms import xdo
from open_spiel_ext.algorithms.tree import cfr
from open_spiel_ext.algorithms.tree import game_tree
from open_spiel_ext.algorithms.tree import policies
from open_spiel_ext.algorithms.tree import sweeps
from open_spiel_ext.experiments import cfr_timing
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import reporting
import pyspiel

SECTIONS = ("leduc", "clones", "histories", "gmp", "populations", "pure")

_SECTIONS = flags.DEFINE_list("sections", list(SECTIONS), "Which to run.")
_OUTPUT_DIR = flags.DEFINE_string("output_dir", "xdo_thesis_results",
                                  "Where the PNGs go.")
_TARGET = flags.DEFINE_float("target", 0.01,
                             "Exploitability the 'clones' section times.")
_BUDGET = flags.DEFINE_float("budget", 240.0,
                             "Seconds a method gets per game and section.")
_MAX_CLONES = flags.DEFINE_integer("max_clones", 3,
                                   "Largest m of m-Clone Leduc.")


def _table(title: str, header: Sequence[str], rows: Sequence[Sequence]):
  print(f"\n== {title}")
  widths = [max(len(str(cell)) for cell in column)
            for column in zip(header, *rows)]
  for row in [header] + list(rows):
    print("  ".join(str(cell).rjust(width)
                    for cell, width in zip(row, widths)))


def _policy_from_callable(tree: game_tree.GameTree,
                          probabilities: Callable) -> np.ndarray:
  """A policy array from `probabilities(state) -> {action: prob}`."""
  policy = np.zeros(tree.legal.shape)
  for row, node in enumerate(tree.infoset_node):
    for action, prob in probabilities(tree.state(node)).items():
      policy[row, action] = prob
  return policies.normalized(policy, tree.legal)


def _xdo_log(game_string: str, target: Optional[float], budget: float,
             start: Optional[float] = None) -> list[xdo.LogEntry]:
  start = time.time() if start is None else start
  solver = xdo.XDO(sweeps.for_game(game_string), start_time=start)
  return list(solver.run(target_exploitability=target, time_limit=budget))


def _cfr_plus_curve(game_string: str, target: float, budget: float):
  """Our CFR+: (seconds, iteration, exploitability) points, build included."""
  return list(cfr_timing.timed_runs(
      cfr_timing.ours(pyspiel.load_game(game_string), "cfr+"), 10,
      budget=budget, target=target))


def _openspiel_cpp_cfr_plus_curve(game_string: str, target: float,
                                  budget: float):
  return list(cfr_timing.timed_runs(
      cfr_timing.openspiel_cpp_cfr_plus(pyspiel.load_game(game_string)), 10,
      budget=budget, target=target))


def _jax_cfr_curve(game_string: str, target: float, budget: float):
  """OpenSpiel's JaxCFR (CFR+ settings) on cached_tree, evaluated by us."""

  def setup():
    game = pyspiel.load_game(
        f"cached_tree(game={pyspiel.load_game(game_string)})")
    solver = jax_cfr.JaxCFR(game)
    tree_sweeps = sweeps.for_game(game_string)
    tree = tree_sweeps.tree

    def run(iterations):
      solver.multiple_steps(iterations)
      jax.block_until_ready(solver.averages)

    def evaluate():
      averages = [np.asarray(solver.averages[player]) for player in (0, 1)]
      policy = np.zeros(tree.legal.shape)
      for row, key in enumerate(tree.infoset_keys):
        player = tree.infoset_player[row]
        legal = np.flatnonzero(tree.legal[row])
        policy[row, legal] = averages[player][solver.iset_map[player][key]][
            legal]
      return tree_sweeps.exploitability(policies.normalized(policy,
                                                            tree.legal))

    return run, evaluate

  return list(cfr_timing.timed_runs(setup, 10, budget=budget, target=target))


def _time_to(points, target: float) -> str:
  for seconds, _, exploitability in points:
    if exploitability <= target:
      return f"{seconds:.1f}"
  return f">{points[-1][0]:.0f} (reached {points[-1][2]:.4f})"


def leduc_section(output_dir: str) -> None:
  """XDO vs PSRO vs XFP on Leduc, per iteration."""
  xdo_log = _xdo_log("leduc_poker", 0.001, _BUDGET.value)
  psro_solver = psro.PSRO(sweeps.for_game("leduc_poker"))
  psro_log = list(psro_solver.run(target_exploitability=0.05,
                                  max_iterations=400,
                                  time_limit=_BUDGET.value))
  tree_sweeps = sweeps.for_game("leduc_poker")
  xfp = fictitious_play.XFPSolver(tree_sweeps.tree.game)
  xfp_curve, start = [], time.time()
  while time.time() - start < _BUDGET.value / 4 and len(xfp_curve) < 300:
    xfp.iteration()
    policy = _policy_from_callable(
        tree_sweeps.tree, xfp.average_policy().action_probabilities)
    xfp_curve.append(tree_sweeps.exploitability(policy))

  def first_below(values, threshold=0.1):
    return next((i + 1 for i, v in enumerate(values) if v < threshold), None)

  curves = {
      "XDO": [e.exploitability for e in xdo_log],
      "PSRO (LP, exact payoffs)": [e.exploitability for e in psro_log],
      "XFP (OpenSpiel)": xfp_curve,
  }
  _table("Leduc: iterations to exploitability < 0.1",
         ["method", "first iteration < 0.1", "iterations run", "final"],
         [[name, first_below(values), len(values), f"{values[-1]:.4f}"]
          for name, values in curves.items()])
  reporting.plot_curves(
      os.path.join(output_dir, "leduc.png"), [("iteration", "log")],
      [(name, (np.arange(1, len(values) + 1), values))
       for name, values in curves.items()],
      title="Leduc poker: XDO vs PSRO vs XFP")


def clones_section(output_dir: str) -> None:
  """Wall time to the target on m-Clone Leduc for every method."""
  target, budget = _TARGET.value, _BUDGET.value
  rows, curves = [], []
  for clones in range(1, _MAX_CLONES.value + 1):
    game_string = f"xdo_clone_leduc(clones={clones})"
    start = time.time()
    tree = game_tree.build_tree(pyspiel.load_game(game_string))
    histories = tree.num_nodes
    del tree
    with reporting.counting_compilations() as compilations:
      xdo_log = _xdo_log(game_string, target, budget, start)
    xdo_points = [(e.wall_time, e.iteration, e.exploitability)
                  for e in xdo_log]
    runs = {"XDO": xdo_points,
            "ours CFR+": _cfr_plus_curve(game_string, target, budget)}
    if histories < 2_000_000:  # OpenSpiel's cached tree of 3 clones is far
      runs["OpenSpiel JaxCFR"] = _jax_cfr_curve(game_string, target, budget)
      runs["OpenSpiel C++ CFR+"] = _openspiel_cpp_cfr_plus_curve(
          game_string, target, budget)
    row = [clones, f"{histories:,}",
           f"{compilations.count} ({compilations.seconds:.1f} s)"] + [
        _time_to(runs[name], target) if name in runs else "not run"
        for name in ("XDO", "ours CFR+", "OpenSpiel JaxCFR",
                     "OpenSpiel C++ CFR+")]
    if "OpenSpiel C++ CFR+" in runs:
      cpp = runs["OpenSpiel C++ CFR+"]
      reached = [s for s, _, e in cpp if e <= target]
      ours = [s for s, _, e in xdo_points if e <= target]
      row.append(f"{reached[0] / ours[0]:.1f}x" if reached and ours else "-")
    else:
      row.append("-")
    rows.append(row)
    curves += [(f"{name}, {clones} clone(s)",
                ([p[0] for p in points], [p[2] for p in points]))
               for name, points in runs.items()]
  _table(f"m-Clone Leduc: seconds to exploitability <= {target} (build "
         "included, evaluation excluded)",
         ["clones", "histories", "XDO's compilations", "XDO", "ours CFR+",
          "OpenSpiel JaxCFR",
          "OpenSpiel C++ CFR+", "C++ CFR+ / XDO"], rows)
  reporting.plot_curves(os.path.join(output_dir, "clones.png"),
                        [("seconds", "log")], curves,
                        title="m-Clone Leduc: exploitability vs wall time")


class _CountingMCCFR(external_sampling_mccfr.ExternalSamplingSolver):
  """OpenSpiel's external-sampling MCCFR, counting the histories it visits."""

  histories_visited = 0

  def _update_regrets(self, state, player):
    self.histories_visited += 1
    return super()._update_regrets(state, player)


def histories_section(output_dir: str) -> None:
  """Exploitability against histories visited: XDO, CFR+, ES-MCCFR."""
  curves, rows = [], []
  for game_string in ("xdo_clone_leduc(clones=2)", "xdo_oshi_zumo"):
    tree_sweeps = sweeps.for_game(game_string)
    tree = tree_sweeps.tree
    xdo_log = _xdo_log(game_string, 0.005, _BUDGET.value)
    cfr_points = _cfr_plus_curve(game_string, 0.005, _BUDGET.value)
    mccfr = _CountingMCCFR(tree.game)
    mccfr_points, start = [], time.time()
    batch = 1000
    while time.time() - start < _BUDGET.value / 2:
      for _ in range(batch):
        mccfr.iteration()
      policy = _policy_from_callable(
          tree, mccfr.average_policy().action_probabilities)
      mccfr_points.append((mccfr.histories_visited,
                           tree_sweeps.exploitability(policy)))
      batch *= 2
    series = {
        "XDO": [(e.histories_visited, e.exploitability) for e in xdo_log],
        "CFR+": [(2 * iteration * tree.num_nodes, e)
                 for _, iteration, e in cfr_points],
        "ES-MCCFR": mccfr_points,
    }
    for name, points in series.items():
      visited, values = zip(*points)
      curves.append((f"{name}, {game_string}", (visited, values)))
      rows.append([game_string, name, f"{visited[-1]:,}",
                   f"{values[-1]:.5f}"])
  _table("Exploitability against histories visited (last point)",
         ["game", "method", "histories visited", "exploitability"], rows)
  reporting.plot_curves(os.path.join(output_dir, "histories.png"),
                        [("histories visited", "log")], curves,
                        title="Exploitability per histories visited")


def gmp_section(output_dir: str) -> None:
  """perturbed_k_gmp: exploitability after a fixed time per method."""
  budget = min(_BUDGET.value, 20.0)
  rows = []
  for k in (2, 8, 32, 128):
    game_string = f"perturbed_k_gmp(actions=3,k={k},seed=0)"
    tree_sweeps = sweeps.for_game(game_string)
    xdo_log = _xdo_log(game_string, 1e-4, budget)
    cfr_points = _cfr_plus_curve(game_string, 1e-4, budget)
    psro_logs = {
        samples: list(
            psro.PSRO(tree_sweeps, psro.Config(payoff_samples=samples)).run(
                target_exploitability=1e-4, time_limit=budget))
        for samples in (None, 2000)
    }
    xfp = fictitious_play.XFPSolver(tree_sweeps.tree.game)
    xfp_points, start = [], time.time()
    while time.time() - start < budget:
      xfp.iteration()
      xfp_points.append((time.time() - start, tree_sweeps.exploitability(
          _policy_from_callable(tree_sweeps.tree,
                                xfp.average_policy().action_probabilities))))
    series = {
        "XDO": [(e.wall_time, e.exploitability) for e in xdo_log],
        "CFR+": [(s, e) for s, _, e in cfr_points],
        "PSRO": [(e.wall_time, e.exploitability) for e in psro_logs[None]],
        "PSRO, 2,000 samples": [(e.wall_time, e.exploitability)
                                for e in psro_logs[2000]],
        "XFP": xfp_points,
    }
    rows.append([k] + [f"{min(v for _, v in points):.5f}"
                       for points in series.values()])
    reporting.plot_curves(
        os.path.join(output_dir, f"gmp_k{k}.png"), [("seconds", "log")],
        [(name, tuple(zip(*points))) for name, points in series.items()],
        title=f"{game_string}: exploitability vs wall time")
  _table(f"perturbed_k_gmp: lowest exploitability within {budget:.0f} s",
         ["k", "XDO", "CFR+", "PSRO", "PSRO, 2,000 samples", "XFP"], rows)


def populations_section(output_dir: str) -> None:
  """Meta-NE of fixed random populations on Leduc: XDO vs PSRO."""
  tree_sweeps = sweeps.for_game("leduc_poker")
  tree = tree_sweeps.tree
  rng = np.random.RandomState(0)
  rows, sizes, xdo_values, psro_values = [], (2, 5, 10, 20, 100), [], []
  for size in sizes:
    populations = [[
        np.array([rng.choice(np.flatnonzero(row)) for row in tree.legal])
        for _ in range(size)
    ] for _ in (0, 1)]
    mask = np.zeros_like(tree.legal)
    for player in (0, 1):
      rows_of = tree.infoset_player == player
      for member in populations[player]:
        mask[np.flatnonzero(rows_of), member[rows_of]] = True
    solver = cfr.CFRSolver(tree_sweeps, "cfr+", mask)
    solver.run(3000)
    xdo_value = tree_sweeps.exploitability(solver.average_policy())
    joint = [[np.where(tree.infoset_player == 0, row, column)
              for column in populations[1]] for row in populations[0]]
    payoffs = tree_sweeps.expected_values(
        np.array([policies.pure(a, tree.num_actions)
                  for line in joint for a in line])).reshape(size, size)
    weights = list(meta_solvers.lp(payoffs))
    psro_value = tree_sweeps.exploitability(
        psro.mixed_behaviour_policy(tree_sweeps, populations, weights))
    xdo_values.append(xdo_value)
    psro_values.append(psro_value)
    rows.append([size, f"{xdo_value:.3f}", f"{psro_value:.3f}"])
  _table("Leduc, fixed random populations: meta-NE exploitability",
         ["population size", "XDO meta-NE", "PSRO meta-NE"], rows)
  reporting.plot_curves(
      os.path.join(output_dir, "populations.png"),
      [("population size", "log")],
      [("XDO meta-NE", (sizes, xdo_values)),
       ("PSRO meta-NE", (sizes, psro_values))],
      title="Leduc: meta-NE of fixed random populations")


def pure_section(output_dir: str) -> None:
  """Iterations and pure strategies / actions each method needs."""
  rows = []
  for game_string in ("rps_choice(games=2)",
                      "clone_gmp(classes=3,clones=3,k=1)"):
    psro_solver = psro.PSRO(sweeps.for_game(game_string))
    psro_log = list(psro_solver.run(target_exploitability=1e-3,
                                    max_iterations=200))
    xdo_solver = xdo.XDO(sweeps.for_game(game_string))
    xdo_log = list(xdo_solver.run(target_exploitability=1e-3,
                                  max_iterations=200))
    tree = xdo_solver.tree
    rows.append([game_string, "PSRO", len(psro_log),
                 f"pure strategies {psro_log[-1].population_sizes}",
                 f"{psro_log[-1].exploitability:.1e}"])
    actions = [int(xdo_solver.mask[tree.infoset_player == p].sum())
               for p in (0, 1)]
    rows.append([game_string, "XDO", len(xdo_log),
                 f"restricted actions {tuple(actions)}",
                 f"{xdo_log[-1].exploitability:.1e}"])
  _table("Iterations and strategies needed",
         ["game", "method", "iterations", "size", "exploitability"], rows)
  del output_dir  # A table, no plot.


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  unknown = set(_SECTIONS.value) - set(SECTIONS)
  if unknown:
    raise app.UsageError(f"--sections: unknown {sorted(unknown)}; choose from "
                         f"{SECTIONS}")
  os.makedirs(_OUTPUT_DIR.value, exist_ok=True)
  sections = {"leduc": leduc_section, "clones": clones_section,
              "histories": histories_section, "gmp": gmp_section,
              "populations": populations_section, "pure": pure_section}
  for name in _SECTIONS.value:
    start = time.time()
    sections[name](_OUTPUT_DIR.value)
    print(f"({name}: {time.time() - start:.0f} s)", flush=True)


if __name__ == "__main__":
  cli.run(main)
