"""NXDO's meta-NE solvers: solve(restricted, iteration, response returns,
directory) -> Solution.

`ExactSolver` solves the restricted game by CFR+ on the tree; `NFSPSolver` runs NFSP on it for as long as its `Schedule` says.
`measure`, where the driver can give one, is the exact exploitability of a
restricted-game policy within the restricted game, (meta_apply,
meta_params) -> float, from the tree engine.
"""

import dataclasses
import os
from typing import Any, Callable, NamedTuple, Optional

import jax
import numpy as np

from open_spiel_ext.algorithms.nxdo import meta_ne as meta_ne_lib
from open_spiel_ext.algorithms.nxdo import oracles
from open_spiel_ext.algorithms.nxdo import restricted_game as restricted_lib
from open_spiel_ext.algorithms.rl import evaluation
from open_spiel_ext.algorithms.rl import learner as learner_lib
from open_spiel_ext.algorithms.rl import network_policies
from open_spiel_ext.algorithms.rl import nfsp
from open_spiel_ext.algorithms.tree import cfr
import pyspiel


# (meta_apply, meta_params) -> the policy's exploitability within the
# restricted game, exactly.
Measure = Callable[[learner_lib.LogitsFn, Any], float]
SIGNALS = ("exact", "nfsp_estimate")


class Solution(NamedTuple):
  meta_params: Any  # The restricted-game policy (its logits function's).
  meta_apply: learner_lib.LogitsFn
  episodes: int  # Games the solver played.
  # The solver's own estimate of the meta-NE's exploitability in the
  # restricted game (NFSP: its best response's return; None: no estimate).
  estimate: Optional[float] = None


class ExactSolver:
  """The restricted game solved by CFR+ on the tree (the base game's for a
  game of cloned actions), whatever oracle made its members: the original
  game restricted to the actions members play, each action shared by the
  members that play it, so the meta-NE gives each member an equal part of
  its action's probability (NXDO; exact for pure members, as best
  responses are) or is the CFR+ policy itself over the actions members play
  (NXDO-VA). Its meta-NE is a table by information state.

  A learned best response is greedy, but its logits
  (`learner.GREEDY_LOGIT_GAP`) leave actions whose values tie within about
  1e-4 mixed; NXDO's restricted game is then no mask of actions, so such a
  member counts as playing its most probable action there (the meta-NE
  still delegates to the member as it is)."""

  def __init__(self, game: pyspiel.Game, iterations: int = 2_000):
    """Builds the tree (ValueError if the game's has over a million nodes)."""
    if iterations < 1:
      raise ValueError(f"iterations must be >= 1, got iterations={iterations}")
    exact = evaluation.OpponentExploitability(game)
    self.sweeps, self.clones = exact.sweeps, exact.clones
    self.iterations = iterations
    self._tables = oracles.TabularMembers(self.sweeps.tree)
    self.record = f"exact, {iterations} CFR+ iterations"

  def solve(self, restricted: restricted_lib.RestrictedGame, iteration: int,
            response_returns: list[float], directory: Optional[str] = None,
            measure: Optional[Measure] = None) -> Solution:
    """CFR+ on the restricted game."""
    del iteration, response_returns, directory, measure
    tree = self.sweeps.tree
    probabilities = meta_ne_lib.members_on_tree(restricted, tree,
                                                self.clones)
    if restricted.variant == "nxdo_va":
      played = (probabilities >= restricted.members.va_threshold) & tree.legal
    else:
      played = _most_probable(probabilities, tree.legal)
    solver = cfr.CFRSolver(self.sweeps, "cfr+")
    solver.set_mask(played.any(axis=0))
    solver.run(self.iterations)
    average = solver.average_policy()
    if restricted.variant == "nxdo_va":
      return Solution(self._tables.params(self._va_table(restricted, average)),
                      self.meta_apply(restricted), 0)
    shares = played / np.maximum(played.sum(axis=0), 1)
    meta = np.zeros((len(average), restricted.capacity))
    meta[:, :restricted.size] = np.einsum("ia,kia->ik", average, shares)
    return Solution(self._tables.params(meta), self.meta_apply(restricted), 0)

  def _va_table(self, restricted: restricted_lib.RestrictedGame,
                average: np.ndarray) -> np.ndarray:
    """[infosets, the game's actions] NXDO-VA's meta-NE: each base action's
    probability spread over the copies of it members play."""
    if self.clones == 1:
      return average
    tensors, legal = meta_ne_lib.tree_inputs(self.sweeps.tree, self.clones)
    valid = np.asarray(restricted.members.valid(
        restricted.population, restricted.size, tensors, legal), np.float64)
    copies = network_policies.collapse_clones(valid, self.clones)
    return valid * np.tile(average / np.maximum(copies, 1), self.clones)

  def meta_apply(self, restricted: restricted_lib.RestrictedGame
                ) -> learner_lib.LogitsFn:
    """The logits function of the meta-NEs it finds."""
    del restricted
    return self._tables.apply


def _most_probable(probabilities: np.ndarray, legal: np.ndarray
                   ) -> np.ndarray:
  """[members, infosets, actions] each member's most probable legal action
  at each information state (the lowest of exact ties), one-hot."""
  best = np.where(legal, probabilities, -1.0).argmax(axis=2)
  return (best[..., None] == np.arange(legal.shape[1])) & legal


@dataclasses.dataclass(frozen=True)
class Schedule:
  """How long NFSP solves each restricted game (the reference's options).

  The first `warm_start_iterations` iterations take the untrained average
  policy as the meta-NE. Then, with kind "threshold", NFSP runs until the
  average policy's exploitability within the restricted game falls below a
  threshold, checked every `check_steps` batched steps, after at least
  `min_steps` and at most `max_steps`; the threshold starts at
  `threshold_start` and halves (down to `threshold_floor`) before every
  solve whose previous NXDO best response gained less than threshold +
  `threshold_margin` (20-Clone Leduc: 7, 1.0, 0.05, 0.05). `signal` is how
  that exploitability is measured: "exact", from the tree engine (games
  whose tree fits, with discrete actions); or "nfsp_estimate", the
  reference's, NFSP's own best response's mean return against its average
  policy over the last `check_steps` steps, which is noise next to the
  thresholds on poker (benchmarks/nxdo_restricted_solve.py). With kind
  "growing", solve i runs `start_steps` × `growth`^i steps (Loss Game:
  growth 1.5) and no signal is read.
  """
  kind: str = "threshold"
  signal: str = "exact"
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
    if self.signal not in SIGNALS:
      raise ValueError(f"signal must be one of {SIGNALS}, got "
                       f"signal={self.signal!r}")
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

  @property
  def needs_measure(self) -> bool:
    """Whether its solves stop on the exact restricted exploitability."""
    return self.kind == "threshold" and self.signal == "exact"

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
            response_returns: list[float], directory: Optional[str] = None,
            measure: Optional[Measure] = None) -> Solution:
    """NFSP on `restricted` as the schedule says.

    Raises:
      ValueError: the schedule stops on the exact signal and no `measure`
        was given.
    """
    schedule = self.schedule
    if schedule.needs_measure and measure is None:
      raise ValueError(
          "signal='exact' stops NFSP on the restricted game's exact "
          "exploitability, which needs the tree engine (an exact evaluator "
          "and discrete actions); use signal='nfsp_estimate' otherwise")
    seed = oracles.iteration_seed(self.seed, iteration)
    if iteration < schedule.warm_start_iterations:
      solver = nfsp.NFSP(self.config, restricted, self.num_envs)
      policy = solver.average_policy(solver.init(jax.random.PRNGKey(seed)))
      return Solution(policy.params, self.meta_apply(restricted), 0)
    stop, exploitability = None, None
    if schedule.kind == "threshold":
      threshold = schedule.threshold(response_returns, iteration)
      if schedule.signal == "exact":
        exploitability = lambda policy: measure(policy.apply, policy.params)
        signal = lambda entry: entry.exploitability
      else:
        signal = lambda entry: entry.response_return
      stop = lambda log: (log[-1].step >= schedule.min_steps and
                          signal(log[-1]) < threshold)
    policy, log = nfsp.train_nfsp(
        restricted, self.config, steps=schedule.steps(iteration),
        num_envs=self.num_envs, eval_every=schedule.check_steps, seed=seed,
        exploitability=exploitability,
        checkpoint_path=directory and os.path.join(directory, "nfsp.ckpt"),
        stop=stop)
    return Solution(policy.params, self.meta_apply(restricted),
                    log[-1].episodes, log[-1].response_return)

  def meta_apply(self, restricted: restricted_lib.RestrictedGame
                ) -> learner_lib.LogitsFn:
    """The logits function of NFSP's average policy on `restricted`."""
    return nfsp.average_network(self.config.average_hidden_sizes,
                                restricted.num_actions).apply
