"""CFR solvers set up for timing side by side, ours and OpenSpiel's C++ CFR+,
and the timed run that measures them (examples/cfr.py,
benchmarks/xdo_thesis.py).
"""

import time
from typing import Callable, Iterator, Optional

from open_spiel_ext.algorithms.tree import cfr
from open_spiel_ext.algorithms.tree import sweeps
import pyspiel

Setup = Callable[[], tuple[Callable[[int], None], Callable[[], float]]]


def timed_runs(setup: Setup, eval_every: int,
               iterations: Optional[int] = None,
               budget: Optional[float] = None,
               target: Optional[float] = None
              ) -> Iterator[tuple[float, int, float]]:
  """Yields (solver seconds, iteration, exploitability) every `eval_every`
  iterations and after the last one (`iterations` exactly, not rounded up
  to a multiple of `eval_every`).

  Solver seconds include the setup (tree builds) and exclude evaluation.

  Args:
    setup: builds the solver; returns (run k iterations to completion,
      exploitability of the average policy).
    eval_every: iterations between evaluations.
    iterations: stop after this many iterations.
    budget: stop once the solver seconds reach this.
    target: stop once the exploitability is at most this.
  """
  start = time.time()
  run, evaluate = setup()
  solver_time, done = time.time() - start, 0
  while ((iterations is None or done < iterations) and
         (budget is None or solver_time < budget)):
    chunk = eval_every if iterations is None else min(eval_every,
                                                      iterations - done)
    start = time.time()
    run(chunk)
    solver_time += time.time() - start
    done += chunk
    exploitability = evaluate()
    yield solver_time, done, exploitability
    if target is not None and exploitability <= target:
      return


def ours(game: pyspiel.Game, variant: str) -> Setup:
  def setup():
    tree_sweeps = sweeps.for_game(game)
    solver = cfr.CFRSolver(tree_sweeps, variant)
    return solver.run, lambda: tree_sweeps.exploitability(
        solver.average_policy())
  return setup


def openspiel_cpp_cfr_plus(game: pyspiel.Game) -> Setup:
  def setup():
    cached = pyspiel.load_game(f"cached_tree(game={game})")
    solver = pyspiel.CFRPlusSolver(cached)

    def run(iterations):
      for _ in range(iterations):
        solver.evaluate_and_update_policy()

    return run, lambda: pyspiel.exploitability(cached,
                                               solver.average_policy())
  return setup
