"""Extensive-Form Double Oracle (XDO), tabular, on the tree engine.

Each player keeps a population of pure best responses. The restricted game
keeps, at each information state, only the actions some population member plays
there. Its equilibrium (the meta-NE) is found by CFR+ (or linear CFR) warm
started across iterations, on the sub-tree of histories the restricted game
reaches (sweeps compiled once serve every sub-tree as it grows), and exact
best responses to the meta-NE in the full game join the populations. A
full-game best response of player p is computed exactly on the sub-tree where
p plays freely and the opponent plays restricted-game actions: elsewhere the
meta-NE gives zero reach.

The inner solver runs until the meta-NE's restricted-game exploitability is
below ε and strictly below its full-game exploitability, so that every best
response added expands the restricted game; ε starts at 0.35 and is multiplied
by 0.98 each XDO iteration (the XDO thesis's schedule). XDO stops when neither
full-game best response gains more than ε over the meta-NE (the thesis's rule),
or, when a target exploitability is given, as soon as the meta-NE reaches it.
"""

import dataclasses
import threading
import time
from typing import Iterator, Optional

import numpy as np

from open_spiel.python import policy as policy_lib
from open_spiel_ext.algorithms.tree import cfr
from open_spiel_ext.algorithms.tree import policies
from open_spiel_ext.algorithms.tree import sweeps as sweeps_lib

# Below this margin a full-game best response is taken as no better than the
# restricted game's (clones of one action tie up to rounding).
_TIE_TOLERANCE = 1e-9
# The gap between inner checks doubles up to this many times the first gap.
_MAX_CHECK_GROWTH = 32


@dataclasses.dataclass(frozen=True)
class Config:
  """XDO's settings; the defaults are the XDO thesis's.

  Attributes:
    inner_solver: "cfr+" or "linear" (linear CFR).
    epsilon: the initial ε.
    epsilon_decay: ε's factor per iteration.
    inner_check_every: inner-solver iterations before the first check of the
      inner stopping rule in an XDO iteration; the gap doubles after each
      check that does not stop (checks need full-game best responses, inner
      iterations on the restricted game are cheap), up to 32 times.
    max_inner_iterations: the inner solver's limit per XDO iteration.
  """
  inner_solver: str = "cfr+"
  epsilon: float = 0.35
  epsilon_decay: float = 0.98
  inner_check_every: int = 10
  max_inner_iterations: int = 100000

  def validate(self) -> None:
    """Raises ValueError naming the first bad setting."""
    if self.inner_solver not in ("cfr+", "linear"):
      raise ValueError(f"inner_solver must be 'cfr+' or 'linear', got "
                       f"inner_solver={self.inner_solver!r}")
    if not 0 < self.epsilon_decay <= 1:
      raise ValueError(f"epsilon_decay must be in (0, 1], got "
                       f"epsilon_decay={self.epsilon_decay}")
    for name in ("inner_check_every", "max_inner_iterations"):
      if getattr(self, name) < 1:
        raise ValueError(f"{name} must be >= 1, got "
                         f"{name}={getattr(self, name)}")


@dataclasses.dataclass(frozen=True)
class LogEntry:
  """What one XDO iteration did, and where it left the meta-NE."""
  iteration: int
  wall_time: float  # Seconds since XDO started, tree build included.
  restricted_histories: int  # Histories reachable in the restricted game.
  histories_visited: int  # Cumulative, by the inner solver and the oracles.
  inner_iterations: int  # Inner-solver iterations in this XDO iteration.
  exploitability: float  # Of the meta-NE in the full game.
  restricted_exploitability: float  # Of the meta-NE in the restricted game.
  epsilon: float
  new_actions: int  # Information-state actions the best responses added.
  # What each player gains by switching from the meta-NE to its best response.
  best_response_gains: tuple[float, float]
  # Whether the thesis's termination rule holds: no gain above ε.
  converged: bool


class XDO:
  """Tabular XDO on a TreeSweeps (see the module docstring)."""

  def __init__(self, tree_sweeps: sweeps_lib.TreeSweeps,
               config: Optional[Config] = None,
               start_time: Optional[float] = None):
    """Starts XDO from each player's best response to uniform play.

    Args:
      tree_sweeps: the game's tree (`sweeps.for_game`).
      config: XDO's settings; default the thesis's, `Config()`.
      start_time: `time.time()` at which the run started (e.g. before the tree
        was built), for the wall times in the log; default now.
    """
    sweeps_lib.check_is_sweeps(tree_sweeps, "XDO")
    self.config = config or Config()
    self.config.validate()
    self._start = time.time() if start_time is None else start_time
    self.sweeps = tree_sweeps
    self.tree = tree_sweeps.tree
    self.epsilon = self.config.epsilon  # Decays as XDO goes.
    self.histories_visited = 0
    self.iteration = 0
    self.mask = np.zeros_like(self.tree.legal)
    # The inner solver's sweeps compile on another core meanwhile.
    compiling = threading.Thread(target=cfr.compile_ahead,
                                 args=(self.tree, self.config.inner_solver),
                                 daemon=True)
    compiling.start()
    uniform = policies.uniform(self.tree.legal)
    for player in (0, 1):
      _, actions = self._oracle(self.sweeps, uniform, player, self.tree.legal)
      self._add(actions, player)
    self._lay_out_sub_trees()
    compiling.join()
    self.solver = cfr.CFRSolver(self.restricted, self.config.inner_solver,
                                 self.mask)

  def _lay_out_sub_trees(self) -> None:
    """The restricted game's sub-tree, and each best responder's (every
    layout of the tree shares one compilation of each sweep)."""
    self.restricted = sweeps_lib.TreeSweeps(self.tree,
                                            self.tree.reachable(self.mask))
    self.oracle_trees = [
        sweeps_lib.TreeSweeps(self.tree, self.tree.reachable(np.where(
            (self.tree.infoset_player == player)[:, None], self.tree.legal,
            self.mask))) for player in (0, 1)
    ]

  def _oracle(self, tree_sweeps: sweeps_lib.TreeSweeps, policy: np.ndarray,
              player: int, mask: np.ndarray) -> tuple[float, np.ndarray]:
    """A best response within `mask`, counting the histories it visits."""
    self.histories_visited += tree_sweeps.num_histories
    return tree_sweeps.best_response(policy, player, mask)

  def _add(self, actions: np.ndarray, player: int) -> int:
    """Adds `player`'s pure policy to its population; returns new actions."""
    rows = np.flatnonzero(self.tree.infoset_player == player)
    added = ~self.mask[rows, actions[rows]]
    self.mask[rows, actions[rows]] = True
    return int(added.sum())

  def meta_policy(self) -> np.ndarray:
    """The meta-NE (the inner solver's average policy) as a policy array."""
    return self.solver.average_policy()

  def tabular_policy(self) -> policy_lib.TabularPolicy:
    """The meta-NE as an OpenSpiel TabularPolicy."""
    return policies.to_tabular(self.tree, self.meta_policy())

  def _best_responses(self, trees: list[sweeps_lib.TreeSweeps],
                      policy: np.ndarray, mask: np.ndarray):
    results = [
        self._oracle(trees[player], policy, player, mask) for player in (0, 1)
    ]
    return [value for value, _ in results], [actions for _, actions in results]

  def step(self,
           target_exploitability: Optional[float] = None) -> LogEntry:
    """One XDO iteration: solve the restricted game, then add best responses.

    The inner solver stops when the meta-NE's restricted-game exploitability
    is below ε and strictly below its full-game one; or once the full-game
    exploitability is at most `target_exploitability`; or, without a target,
    once no best response gains more than ε (then XDO has converged).

    Returns:
      The iteration's log entry.
    """
    restricted_histories = self.restricted.num_histories
    start_iteration = self.solver.iteration
    first_chunk = chunk = self.config.inner_check_every
    while True:
      self.solver.run(chunk)
      self.histories_visited += 2 * chunk * restricted_histories
      chunk = min(2 * chunk, _MAX_CHECK_GROWTH * first_chunk)
      meta = self.meta_policy()
      restricted_values, _ = self._best_responses([self.restricted] * 2, meta,
                                                  self.mask)
      full_values, best_responses = self._best_responses(
          self.oracle_trees, meta, self.tree.legal)
      restricted = sum(restricted_values) / 2
      full = sum(full_values) / 2
      # The meta-NE plays restricted actions only: its value is the sub-tree's.
      meta_value = self.restricted.expected_value(meta)
      gains = (full_values[0] - meta_value, full_values[1] + meta_value)
      reached = (target_exploitability is not None and
                 full <= target_exploitability)
      converged = target_exploitability is None and max(gains) <= self.epsilon
      if (reached or converged or
          self.solver.iteration - start_iteration >=
          self.config.max_inner_iterations
          or (restricted < self.epsilon and
              restricted < full - _TIE_TOLERANCE)):
        break
    self.iteration += 1
    new_actions = 0
    if not (reached or converged):
      new_actions = sum(self._add(best_responses[player], player)
                        for player in (0, 1))
    if new_actions:
      self._lay_out_sub_trees()
      self.solver.set_sweeps(self.restricted)
      self.solver.set_mask(self.mask)
    entry = LogEntry(
        iteration=self.iteration,
        wall_time=time.time() - self._start,
        restricted_histories=restricted_histories,
        histories_visited=self.histories_visited,
        inner_iterations=self.solver.iteration - start_iteration,
        exploitability=full,
        restricted_exploitability=restricted,
        epsilon=self.epsilon,
        new_actions=new_actions,
        best_response_gains=gains,
        converged=converged)
    self.epsilon *= self.config.epsilon_decay
    return entry

  def run(self, target_exploitability: Optional[float] = None,
          max_iterations: int = 1000,
          time_limit: Optional[float] = None) -> Iterator[LogEntry]:
    """Runs XDO, yielding each iteration's log entry.

    Stops at `max_iterations`, after `time_limit` seconds, and: with a target,
    once the meta-NE's exploitability is at most the target; without one, once
    neither best response gains more than ε (the thesis's rule).
    """
    for _ in range(max_iterations):
      entry = self.step(target_exploitability)
      yield entry
      if entry.converged or (target_exploitability is not None and
                             entry.exploitability <= target_exploitability):
        return
      if time_limit is not None and entry.wall_time >= time_limit:
        return
