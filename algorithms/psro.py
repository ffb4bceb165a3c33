"""Double oracle / PSRO, tabular, on the tree engine.

Each player keeps a population of pure policies. The meta-game's payoffs (pure
policy vs pure policy) are computed exactly with the tree engine, or, as the
XDO thesis's PSRO did, estimated from `payoff_samples` sampled games per entry.
A meta-solver (LP, fictitious play or projected replicator dynamics) gives the
meta-NE, a mixture of each population, which is turned into one behaviour
policy: at each information state, each member's action weighted by its meta
probability times its own probability of reaching there. Exact best responses
to that policy join the populations. With the LP and exact payoffs this is the
double oracle algorithm.
"""

import dataclasses
import time
from typing import Iterator, Optional

import numpy as np

from open_spiel.python import policy as policy_lib
from open_spiel_ext.algorithms import meta_solvers
from open_spiel_ext.algorithms.tree import game_tree as game_tree_lib
from open_spiel_ext.algorithms.tree import policies
from open_spiel_ext.algorithms.tree import sweeps as sweeps_lib


@dataclasses.dataclass(frozen=True)
class Config:
  """PSRO's settings.

  Attributes:
    meta_solver: one of meta_solvers.META_SOLVERS.
    payoff_samples: games sampled per meta-game entry; None for exact
      payoffs.
    seed: seeds the sampling of payoffs.
  """
  meta_solver: str = "lp"
  payoff_samples: Optional[int] = None
  seed: int = 0

  def validate(self) -> None:
    """Raises ValueError naming the first bad setting."""
    if self.meta_solver not in meta_solvers.META_SOLVERS:
      raise ValueError(f"meta_solver must be one of "
                       f"{sorted(meta_solvers.META_SOLVERS)}, got "
                       f"meta_solver={self.meta_solver!r}")
    if self.payoff_samples is not None and self.payoff_samples < 1:
      raise ValueError(f"payoff_samples must be >= 1 or None, got "
                       f"payoff_samples={self.payoff_samples}")


@dataclasses.dataclass(frozen=True)
class LogEntry:
  """What one PSRO iteration did, and where it left the meta-NE."""
  iteration: int
  wall_time: float
  population_sizes: tuple[int, int]  # Distinct pure policies per player.
  histories_visited: int  # Cumulative, by payoff estimation and oracles.
  exploitability: float  # Of the meta-NE's behaviour policy.


def mixed_behaviour_policy(tree_sweeps: sweeps_lib.TreeSweeps,
                           populations: list[list[np.ndarray]],
                           weights: list[np.ndarray]) -> np.ndarray:
  """The behaviour policy of mixtures of pure policies, one per player.

  Args:
    tree_sweeps: the game's tree.
    populations: per player, its pure policies as [infosets] action arrays.
    weights: per player, the mixture's probability of each pure policy.

  Returns:
    A policy array; information states no member reaches are uniform.
  """
  tree = tree_sweeps.tree
  mixed = np.zeros(tree.legal.shape)
  for player in (0, 1):
    members = np.stack([policies.pure(actions, tree.num_actions)
                        for actions in populations[player]])
    rows = tree.infoset_player == player
    mixed[rows] = tree_sweeps.mixture_policy(members, weights[player])[rows]
  return mixed


class PSRO:
  """Tabular PSRO / double oracle (see the module docstring)."""

  def __init__(self, tree_sweeps: sweeps_lib.TreeSweeps,
               config: Optional[Config] = None,
               start_time: Optional[float] = None):
    """Starts from each player's best response to uniform play.

    Args:
      tree_sweeps: the game's tree (`sweeps.for_game`).
      config: PSRO's settings; default `Config()` (the LP, exact payoffs).
      start_time: `time.time()` at which the run started, for the log.
    """
    sweeps_lib.check_is_sweeps(tree_sweeps, "PSRO")
    self.config = config or Config()
    self.config.validate()
    self._start = time.time() if start_time is None else start_time
    self.sweeps = tree_sweeps
    self.tree = tree_sweeps.tree
    self._solve_meta = meta_solvers.META_SOLVERS[self.config.meta_solver]
    self._rng = np.random.RandomState(self.config.seed)
    self.histories_visited = 0
    self.iteration = 0
    uniform = policies.uniform(self.tree.legal)
    self.populations = [[self._best_response(uniform, player)]
                        for player in (0, 1)]
    self.payoffs = self._payoffs(self.populations[0], self.populations[1])
    self.meta_strategies = [np.ones(1), np.ones(1)]

  def _best_response(self, policy: np.ndarray, player: int) -> np.ndarray:
    self.histories_visited += self.tree.num_nodes
    return self.sweeps.best_response(policy, player)[1]

  def _joint(self, actions0: np.ndarray, actions1: np.ndarray) -> np.ndarray:
    """The policy where player 0 plays `actions0` and player 1 `actions1`."""
    actions = np.where(self.tree.infoset_player == 0, actions0, actions1)
    return policies.pure(actions, self.tree.num_actions)

  def _payoffs(self, rows: list[np.ndarray],
               columns: list[np.ndarray]) -> np.ndarray:
    """[rows, columns] payoffs to player 0 of pure policy pairs."""
    joints = np.array([self._joint(row, column) for row in rows
                       for column in columns])
    if self.config.payoff_samples is None:
      self.histories_visited += len(joints) * self.tree.num_nodes
      values = self.sweeps.expected_values(joints)
    else:
      self.histories_visited += (len(joints) * self.config.payoff_samples *
                                 self.tree.num_levels)
      values = np.array([
          game_tree_lib.sample_utilities(self.tree, joint,
                                         self.config.payoff_samples, self._rng).mean()
          for joint in joints
      ])
    return values.reshape(len(rows), len(columns))

  def meta_policy(self) -> np.ndarray:
    """The current meta-NE as one behaviour policy array."""
    return mixed_behaviour_policy(self.sweeps, self.populations,
                                  self.meta_strategies)

  def tabular_policy(self) -> policy_lib.TabularPolicy:
    return policies.to_tabular(self.tree, self.meta_policy())

  def _is_new(self, actions: np.ndarray, player: int) -> bool:
    rows = self.tree.infoset_player == player
    return not any(np.array_equal(actions[rows], member[rows])
                   for member in self.populations[player])

  def step(self) -> LogEntry:
    """Solves the meta-game, adds best responses, extends the payoffs."""
    self.meta_strategies = list(self._solve_meta(self.payoffs))
    meta = self.meta_policy()
    results = [self.sweeps.best_response(meta, player) for player in (0, 1)]
    self.histories_visited += 2 * self.tree.num_nodes
    exploitability = (results[0][0] + results[1][0]) / 2
    new = [actions if self._is_new(actions, player) else None
           for player, (_, actions) in enumerate(results)]
    if new[0] is not None:
      row = self._payoffs([new[0]], self.populations[1])
      self.populations[0].append(new[0])
      self.payoffs = np.vstack([self.payoffs, row])
    if new[1] is not None:
      column = self._payoffs(self.populations[0], [new[1]])
      self.populations[1].append(new[1])
      self.payoffs = np.hstack([self.payoffs, column])
    self.iteration += 1
    return LogEntry(
        iteration=self.iteration,
        wall_time=time.time() - self._start,
        population_sizes=(len(self.populations[0]), len(self.populations[1])),
        histories_visited=self.histories_visited,
        exploitability=exploitability)

  def run(self, target_exploitability: Optional[float] = None,
          max_iterations: int = 1000,
          time_limit: Optional[float] = None) -> Iterator[LogEntry]:
    """Runs PSRO, yielding each iteration's log entry (the exploitability of
    the meta-NE it started from). Stops at the target, the limits, or when no
    best response is new (double oracle has converged)."""
    for _ in range(max_iterations):
      sizes = (len(self.populations[0]), len(self.populations[1]))
      entry = self.step()
      yield entry
      if (target_exploitability is not None and
          entry.exploitability <= target_exploitability):
        return
      if entry.population_sizes == sizes:
        return
      if time_limit is not None and entry.wall_time >= time_limit:
        return
