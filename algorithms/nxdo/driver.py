"""The NXDO loop: solve the restricted game of the population, add a best
response to its meta-NE, repeat (see the package docstring)."""

import dataclasses
import os
import shutil
import time
from typing import Any, Iterator, Optional

from open_spiel.python import policy as policy_lib
from open_spiel_ext.algorithms.nxdo import meta_ne as meta_ne_lib
from open_spiel_ext.algorithms.nxdo import oracles
from open_spiel_ext.algorithms.nxdo import restricted_game as restricted_lib
from open_spiel_ext.algorithms.nxdo import solvers
from open_spiel_ext.algorithms.rl import best_response
from open_spiel_ext.algorithms.rl import evaluation
from open_spiel_ext.algorithms.rl import opponents as opponents_lib
from open_spiel_ext.algorithms.tree import policies as tree_policies
from open_spiel_ext.utils import checkpoints
from open_spiel_ext.utils import compilation_cache
import pyspiel


_ITERATION = "iteration"  # The subdirectory of the iteration in progress.


@checkpoints.reads_former_tuples()
@dataclasses.dataclass(frozen=True)
class LogEntry:
  """What one NXDO iteration did, and where it left the meta-NE."""
  iteration: int
  population: int  # Members in the restricted game it solved.
  episodes: int  # Games played so far, by the oracle and the solver.
  wall_time: float  # Seconds so far (evaluations not counted).
  exploitability: Optional[float]  # Of the meta-NE, by the evaluator.
  response_return: float  # The new best response's return against it.
  # With the exact evaluator and discrete members: the meta-NE's
  # exploitability within the restricted game (`restricted_exploitability`).
  restricted_exploitability: Optional[float] = None
  solver_estimate: Optional[float] = None  # The solver's of the same.


class NXDO:
  """The NXDO loop (see the module docstring): solve the restricted game of
  the population, add a best response to its meta-NE, repeat.

  The first member is a best response to uniform play. With a `directory`
  the run checkpoints after every iteration (population, log, the last
  meta-NE), the oracle and the solver checkpoint inside theirs, and a new
  NXDO on the same directory with the same settings resumes.
  """

  def __init__(self, game: pyspiel.Game, env: Any, oracle: Any, solver: Any,
               variant: str = "nxdo", directory: Optional[str] = None,
               evaluator: Any = best_response.EXACT):
    """
    Args:
      game: the original game.
      env: a JAX engine of `game` made with `auto_reset=True`.
      oracle: `ExactOracle` or `LearnedOracle`.
      solver: `ExactSolver` or `NFSPSolver`.
      variant: "nxdo" or "nxdo_va".
      directory: where to checkpoint (None: no checkpoints).
      evaluator: the meta-NE's exploitability each iteration:
        best_response.EXACT, from the tree engine (ValueError if the game's
        tree has more than a million nodes); a function of the meta-NE (an
        `Opponent`), such as `best_response.approximate_exploitability`
        bound to its settings; or None.
    """
    continuous = getattr(env, "continuous", False)
    restricted_lib.check_variant(variant, continuous)
    self.game, self.env, self.oracle, self.solver = game, env, oracle, solver
    self.variant = variant
    self.directory = directory
    exact = evaluator == best_response.EXACT
    schedule = getattr(solver, "schedule", None)
    if schedule is not None and schedule.needs_measure and (
        continuous or not exact):
      raise ValueError(
          "the solver's schedule stops on the restricted game's exact "
          "exploitability (signal='exact'), which needs the tree engine: "
          "evaluator=best_response.EXACT and discrete actions; use "
          "signal='nfsp_estimate' or kind='growing' otherwise")
    self._exact = evaluation.OpponentExploitability(game) if exact else None
    self._evaluate = self._exact if exact else evaluator
    self.members: list[Any] = []
    self.response_returns: list[float] = []
    self.log: list[LogEntry] = []
    self._episodes, self._wall_time = 0, 0.0
    self._solution: Optional[solvers.Solution] = None
    self._record = {"game": str(game), "variant": variant,
                    "oracle": oracle.record, "solver": solver.record}
    if directory:
      compilation_cache.enable(os.path.join(directory, "compilation_cache"))
      if os.path.exists(self._state_path):
        self._restore()

  @property
  def _state_path(self) -> str:
    return os.path.join(self.directory, "state.pkl")

  def _path(self, name: str) -> Optional[str]:
    """Where the oracle or the solver checkpoints in this iteration."""
    return self.directory and os.path.join(self.directory, _ITERATION, name)

  def run(self, max_iterations: Optional[int] = None,
          max_episodes: Optional[int] = None,
          time_limit: Optional[float] = None) -> Iterator[LogEntry]:
    """Runs iterations, yielding each one's log entry, until the iterations,
    the games played or the seconds reach the limit given (a resumed run's
    saved iterations count: it runs what is left).

    Raises:
      ValueError: no limit given.
    """
    if max_iterations is None and max_episodes is None and time_limit is None:
      raise ValueError("NXDO.run needs a limit: max_iterations, "
                       "max_episodes or time_limit")
    while max_iterations is None or len(self.log) < max_iterations:
      if self.log and any(limit is not None and value >= limit for value, limit
                          in ((self.log[-1].episodes, max_episodes),
                              (self.log[-1].wall_time, time_limit))):
        return
      yield self.step()

  def step(self) -> LogEntry:
    """One NXDO iteration."""
    started = time.perf_counter()
    iteration = len(self.log)
    if not self.members:
      self._add(self.oracle.respond(opponents_lib.uniform_for(self.env), -1,
                                    self._path("response_initial")))
    restricted = self.restricted_game()
    measure = self._measure(restricted)
    solution = self.solver.solve(restricted, iteration, self.response_returns,
                                 self._path(f"solve{iteration}"), measure)
    meta_ne = meta_ne_lib.meta_policy(restricted, solution.meta_apply,
                                      solution.meta_params)
    response = self.oracle.respond(meta_ne, iteration,
                                   self._path(f"response{iteration}"))
    self._episodes += solution.episodes
    self._wall_time += time.perf_counter() - started
    self._solution = solution
    self.log.append(LogEntry(
        iteration, len(self.members), self._episodes + response.episodes,
        self._wall_time,
        self._evaluate(meta_ne) if self._evaluate else None,
        response.mean_return,
        measure(solution.meta_apply, solution.meta_params)
        if measure else None,
        solution.estimate))
    self._add(response)
    self._save()
    return self.log[-1]

  def _measure(self, restricted: restricted_lib.RestrictedGame
              ) -> Optional[solvers.Measure]:
    """The exact exploitability within `restricted` of its policies, where
    the tree engine measures it (else None)."""
    if self._exact is None or restricted.members.continuous:
      return None
    return lambda meta_apply, meta_params: (
        meta_ne_lib.restricted_exploitability(
            restricted, meta_ne_lib.meta_policy(restricted, meta_apply,
                                                meta_params), self._exact))

  def restricted_game(self, size: Optional[int] = None
                     ) -> restricted_lib.RestrictedGame:
    """The restricted game of the first `size` members (default all)."""
    return restricted_lib.RestrictedGame(
        self.env, self.oracle.apply, self.members[:size or len(self.members)],
        self.variant)

  def meta_ne(self) -> opponents_lib.Opponent:
    """The last meta-NE found, as a policy of the original game."""
    if self._solution is None:
      raise ValueError("no meta-NE yet: run an iteration first")
    return meta_ne_lib.meta_policy(
        self.restricted_game(self.log[-1].population),
        self._solution.meta_apply, self._solution.meta_params)

  @property
  def exact(self) -> bool:
    """Whether the run evaluates on the tree engine (evaluator
    best_response.EXACT), which `tabular_policy` needs."""
    return self._exact is not None

  def tabular_policy(self) -> policy_lib.TabularPolicy:
    """The last meta-NE as an OpenSpiel TabularPolicy (of Leduc poker for
    m-Clone Leduc)."""
    if not self.exact:
      raise ValueError("a tabular policy needs the tree engine "
                       "(evaluator=best_response.EXACT)")
    sweeps = self._exact.sweeps
    return tree_policies.to_tabular(sweeps.tree, evaluation.opponent_policy(
        sweeps, self._exact.clones, self.meta_ne()))

  def _add(self, response: oracles.Response) -> None:
    self.members.append(response.params)
    self.response_returns.append(response.mean_return)
    self._episodes += response.episodes

  def _save(self) -> None:
    if not self.directory:
      return
    checkpoints.save(
        self._state_path, {"members": self.members,
                           "meta_params": self._solution.meta_params},
        self._record, step=len(self.log),
        extra={"log": self.log, "response_returns": self.response_returns,
               "episodes": self._episodes, "wall_time": self._wall_time})
    shutil.rmtree(os.path.join(self.directory, _ITERATION),
                  ignore_errors=True)  # The finished iteration's files.

  def _restore(self) -> None:
    saved = checkpoints.restore(self._state_path, self._record)
    self.members = saved.tree["members"]
    self.log, self.response_returns = (saved.extra["log"],
                                       saved.extra["response_returns"])
    self._episodes = saved.extra["episodes"]
    self._wall_time = saved.extra["wall_time"]
    restricted = self.restricted_game(self.log[-1].population)
    self._solution = solvers.Solution(saved.tree["meta_params"],
                                      self.solver.meta_apply(restricted), 0)
