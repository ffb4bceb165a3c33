"""NXDO's meta-NE solvers: solve(restricted, iteration, response returns,
directory) -> Solution.

`ExactSolver` solves the restricted game of tabular members by CFR+ on the
tree; `NFSPSolver` runs NFSP on it for as long as its `Schedule` says.
"""

import dataclasses
import os
from typing import Any, NamedTuple, Optional

import jax
import numpy as np

from open_spiel_ext.algorithms.nxdo import oracles
from open_spiel_ext.algorithms.nxdo import restricted_game as restricted_lib
from open_spiel_ext.algorithms.rl import learner as learner_lib
from open_spiel_ext.algorithms.rl import nfsp
from open_spiel_ext.algorithms.tree import cfr


class Solution(NamedTuple):
  meta_params: Any  # The restricted-game policy (its logits function's).
  meta_apply: learner_lib.LogitsFn
  episodes: int  # Games the solver played.
  # The solver's own estimate of the meta-NE's exploitability in the
  # restricted game (NFSP: its best response's return; None: no estimate).
  estimate: Optional[float] = None


class ExactSolver:
  """The restricted game of pure tabular members solved by CFR+ on the
  tree: it is the original game restricted to the members' actions, each
  action shared by the members that play it, so the meta-NE gives each
  member an equal part of its action's probability (NXDO) or is the CFR+
  policy itself (NXDO-VA)."""

  def __init__(self, oracle: oracles.ExactOracle, iterations: int = 2_000):
    self.oracle = oracle
    self.iterations = iterations
    self.record = f"exact, {iterations} CFR+ iterations"

  def solve(self, restricted: restricted_lib.RestrictedGame, iteration: int,
            response_returns: list[float],
            directory: Optional[str] = None) -> Solution:
    del iteration, response_returns, directory
    members = self.oracle.members
    played = np.stack([
        members.policy(jax.tree.map(lambda x, k=k: x[k],
                                    restricted.population)) > 0.5
        for k in range(restricted.size)])  # [K, infosets, actions]
    solver = cfr.CFRSolver(self.oracle.sweeps, "cfr+")
    solver.set_mask(played.any(axis=0) & members.tree.legal)
    solver.run(self.iterations)
    average = solver.average_policy()
    if restricted.variant == "nxdo_va":
      meta = average
    else:
      shares = played / np.maximum(played.sum(axis=0), 1)
      meta = np.zeros((len(average), restricted.capacity))
      meta[:, :restricted.size] = np.einsum("ia,kia->ik", average, shares)
    return Solution(members.params(meta), self.meta_apply(restricted), 0)

  def meta_apply(self, restricted: restricted_lib.RestrictedGame
                ) -> learner_lib.LogitsFn:
    """The logits function of the meta-NEs it finds."""
    del restricted
    return self.oracle.members.apply


@dataclasses.dataclass(frozen=True)
class Schedule:
  """How long NFSP solves each restricted game (the reference's options).

  The first `warm_start_iterations` iterations take the untrained average
  policy as the meta-NE. Then, with kind "threshold", NFSP runs until its
  best response's mean return against its average policy (NFSP's own
  estimate of the average policy's exploitability) falls below a threshold,
  after at least `min_steps` and at most `max_steps` batched steps; the
  threshold starts at `threshold_start` and halves (down to
  `threshold_floor`) before every solve whose previous NXDO best response
  gained less than threshold + `threshold_margin` (20-Clone Leduc: 7, 1.0,
  0.05, 0.05). With kind "growing", solve i runs `start_steps` ×
  `growth`^i steps (Loss Game: growth 1.5).
  """
  kind: str = "threshold"
  warm_start_iterations: int = 7
  threshold_start: float = 1.0
  threshold_floor: float = 0.05
  threshold_margin: float = 0.05
  min_steps: int = 2_000
  max_steps: int = 50_000
  start_steps: int = 2_000
  growth: float = 1.5
  check_steps: int = 500

  def __post_init__(self):
    if self.kind not in ("threshold", "growing"):
      raise ValueError(f"kind must be 'threshold' or 'growing', got "
                       f"kind={self.kind!r}")
    learner_lib.check_non_negative(self, "warm_start_iterations",
                                   "threshold_floor", "threshold_margin",
                                   "min_steps")
    learner_lib.check_positive(self, "threshold_start", "max_steps",
                               "start_steps", "check_steps")
    if self.growth < 1:
      raise ValueError(f"growth must be >= 1, got growth={self.growth}")

  def threshold(self, response_returns: list[float], iteration: int) -> float:
    """The threshold of solve `iteration`, from the best responses' returns
    so far (the first, to uniform play, then one per iteration)."""
    threshold = self.threshold_start
    for gained in response_returns[self.warm_start_iterations:iteration + 1]:
      if gained < threshold + self.threshold_margin:
        threshold = max(self.threshold_floor, threshold / 2)
    return threshold

  def steps(self, iteration: int) -> int:
    """The batched steps solve `iteration` may take."""
    if self.kind == "growing":
      return int(self.start_steps *
                 self.growth**(iteration - self.warm_start_iterations))
    return self.max_steps


@dataclasses.dataclass(frozen=True)
class NFSPSolver:
  """NFSP on the restricted game (a fresh NFSP each iteration), for as long
  as the `Schedule` says."""
  config: nfsp.Config = dataclasses.field(default_factory=nfsp.Config)
  schedule: Schedule = dataclasses.field(default_factory=Schedule)
  num_envs: int = 64
  seed: int = 0

  @property
  def record(self) -> str:
    return repr(self)

  def solve(self, restricted: restricted_lib.RestrictedGame, iteration: int,
            response_returns: list[float],
            directory: Optional[str] = None) -> Solution:
    schedule = self.schedule
    seed = oracles.iteration_seed(self.seed, iteration)
    if iteration < schedule.warm_start_iterations:
      solver = nfsp.NFSP(self.config, restricted, self.num_envs)
      policy = solver.average_policy(solver.init(jax.random.PRNGKey(seed)))
      return Solution(policy.params, self.meta_apply(restricted), 0)
    stop = None
    if schedule.kind == "threshold":
      threshold = schedule.threshold(response_returns, iteration)
      stop = lambda log: (log[-1].step >= schedule.min_steps and
                          log[-1].response_return < threshold)
    policy, log = nfsp.train_nfsp(
        restricted, self.config, steps=schedule.steps(iteration),
        num_envs=self.num_envs, eval_every=schedule.check_steps, seed=seed,
        checkpoint_path=directory and os.path.join(directory, "nfsp.ckpt"),
        stop=stop)
    return Solution(policy.params, self.meta_apply(restricted),
                    log[-1].episodes, log[-1].response_return)

  def meta_apply(self, restricted: restricted_lib.RestrictedGame
                ) -> learner_lib.LogitsFn:
    """The logits function of NFSP's average policy on `restricted`."""
    return nfsp.average_network(self.config.average_hidden_sizes,
                                restricted.num_actions).apply
