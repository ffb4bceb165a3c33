"""PSRO, pipeline PSRO and their rivals on symmetric zero-sum normal-form
games, with exact best responses: the P2SRO thesis's first experiment.

A policy is a mixed strategy of a symmetric two-player zero-sum game with
antisymmetric payoffs P (P[i, j] is what pure strategy i wins against j).
Training a policy is the thesis's update π ← r·BR(σ) + (1 − r)·π towards the
exact best response to a mixture σ of other policies; a learner's
performance is what it wins against σ, π P σ. Every method starts from one
fixed random policy and runs iterations of updates; `run` returns the
exploitability of the meta-Nash of the whole population after each
iteration (the best a pure strategy wins against it; 0 at a Nash
equilibrium).

- `psro` (sequential): one learner against the meta-Nash of the fixed
  policies; once its relative improvement falls below the threshold it is
  fixed and a new random learner starts.
- `p2sro`: `learners` active policies in levels; each trains against the
  meta-Nash of the fixed policies and of the active ones below it; only the
  lowest active policy can be fixed (plateau rule), and a new level starts
  on top.
- `naive`: `learners` policies each against the meta-Nash of the fixed
  policies; any that plateaus is fixed and replaced.
- `dch`: `learners` levels as in P2SRO, none ever fixed; with
  `anneal=True` level j's learning rate is r / (1 + updates / anneal_steps).
- `rectified`: generations; each policy in the meta-Nash's support starts a
  learner that trains against the Nash-weighted policies it beats or ties,
  until it plateaus; a generation's learners join together.
- `self_play`: the newest policy trains against the one before it.

An iteration is one update of every active learner (parallel methods update
theirs at once), so methods compare at equal time.
"""

import dataclasses
from typing import Callable, Optional

import numpy as np

from open_spiel_ext.algorithms import meta_solvers

METHODS = ("p2sro", "psro", "naive", "dch", "rectified", "self_play")
SUPPORT_THRESHOLD = 1e-2  # Rectified PSRO: the meta-Nash's support.
PERFORMANCE_SHIFT = 1.0  # Performances are compared shifted to be positive.


@dataclasses.dataclass(frozen=True)
class Config:
  """What every method shares."""
  learning_rate: float = 0.5  # r.
  threshold: float = 0.03  # Relative improvement below which one is fixed.
  learners: int = 4  # Active policies of the parallel methods.
  meta_solver: str = "fictitious_play"  # Or "lp" (exact).
  fictitious_play_iterations: int = 1000
  anneal: bool = False  # DCH's learning rate decays.
  anneal_steps: float = 10.0

  def __post_init__(self):
    if not 0 < self.learning_rate <= 1:
      raise ValueError(f"learning_rate must be in (0, 1], got "
                       f"learning_rate={self.learning_rate}")
    if self.learners < 1:
      raise ValueError(f"learners must be >= 1, got learners={self.learners}")
    if self.meta_solver not in ("fictitious_play", "lp"):
      raise ValueError(f"meta_solver must be 'fictitious_play' or 'lp', got "
                       f"meta_solver={self.meta_solver!r}")
    if self.threshold < 0:
      raise ValueError(f"threshold must be >= 0, got "
                       f"threshold={self.threshold}")


def random_symmetric_game(dimension: int,
                          rng: np.random.Generator) -> np.ndarray:
  """Antisymmetric payoffs whose upper triangle is uniform in (-1, 1)."""
  upper = np.triu(rng.uniform(-1, 1, (dimension, dimension)), 1)
  return upper - upper.T


def rps_with_dominant_strategy() -> np.ndarray:
  """Rock-paper-scissors plus a fourth strategy that beats all three: its
  only Nash equilibrium is the fourth strategy, which rectified PSRO started
  from Rock never finds."""
  return np.array([[0.0, -1.0, 1.0, -0.4],
                   [1.0, 0.0, -1.0, -0.4],
                   [-1.0, 1.0, 0.0, -0.4],
                   [0.4, 0.4, 0.4, 0.0]])


def exploitability(payoffs: np.ndarray, strategy: np.ndarray) -> float:
  """What the best pure strategy wins against `strategy`."""
  return float(np.max(payoffs @ strategy))


def best_response(payoffs: np.ndarray, mixture: np.ndarray) -> np.ndarray:
  """The pure best response (one-hot) to a mixed strategy."""
  return np.eye(len(payoffs))[np.argmax(payoffs @ mixture)]


class _Run:
  """A population and the bookkeeping every method shares."""

  def __init__(self, payoffs: np.ndarray, config: Config,
               rng: np.random.Generator, first: np.ndarray):
    self.payoffs = payoffs
    self.config = config
    self.rng = rng
    self.fixed = [first]

  def random_policy(self) -> np.ndarray:
    return self.rng.dirichlet(np.ones(len(self.payoffs)))

  def nash_weights(self, stacked: np.ndarray) -> np.ndarray:
    """The meta-Nash's weights over the policies [K, strategies]."""
    meta_game = stacked @ self.payoffs @ stacked.T
    if self.config.meta_solver == "lp":
      return meta_solvers.lp(meta_game)[0]
    return meta_solvers.fictitious_play(
        meta_game, self.config.fictitious_play_iterations)[0]

  def meta_nash(self, policies: list[np.ndarray]) -> np.ndarray:
    """The mixed strategy the meta-Nash of `policies` plays."""
    stacked = np.stack(policies)
    return self.nash_weights(stacked) @ stacked

  def train(self, policy: np.ndarray, opponent: np.ndarray,
            rate: float) -> tuple[np.ndarray, float]:
    """One update towards the best response; the new performance."""
    policy = rate * best_response(self.payoffs, opponent) + (1 - rate) * policy
    return policy, float(policy @ self.payoffs @ opponent)

  def plateaued(self, performance: float, previous: float) -> bool:
    return ((performance + PERFORMANCE_SHIFT) /
            (previous + PERFORMANCE_SHIFT) - 1 < self.config.threshold)

  def exploitability(self, active: list[np.ndarray]) -> float:
    return exploitability(self.payoffs, self.meta_nash(self.fixed + active))


class _Learner:
  """An active policy and its last performance."""

  def __init__(self, policy: np.ndarray):
    self.policy = policy
    self.performance = -np.inf
    self.updates = 0

  def update(self, run: _Run, opponent: np.ndarray, rate: float) -> bool:
    """Trains once; whether it has plateaued."""
    self.policy, performance = run.train(self.policy, opponent, rate)
    done = self.updates > 0 and run.plateaued(performance, self.performance)
    self.performance = performance
    self.updates += 1
    return done


def _pipeline(run: _Run, iterations: int, learners: int,
              fix_lowest: bool, levels_see_below: bool) -> list[float]:
  """P2SRO (both flags), DCH (levels, no fixing), naive (neither), PSRO
  (one learner)."""
  active = [_Learner(run.random_policy()) for _ in range(learners)]
  curve = []
  for _ in range(iterations):
    fixed_now = []
    for level, learner in enumerate(active):
      below = [l.policy for l in active[:level]] if levels_see_below else []
      rate = run.config.learning_rate
      if run.config.anneal and not fix_lowest:
        rate /= 1 + learner.updates / run.config.anneal_steps
      done = learner.update(run, run.meta_nash(run.fixed + below), rate)
      if done and fix_lowest and (level == 0 or not levels_see_below):
        fixed_now.append(learner)
    for learner in fixed_now:
      run.fixed.append(learner.policy)
      active.remove(learner)
      active.append(_Learner(run.random_policy()))
    curve.append(run.exploitability([l.policy for l in active]))
  return curve


def _rectified(run: _Run, iterations: int) -> list[float]:
  curve, generation = [], []
  while len(curve) < iterations:
    if not generation:
      stacked = np.stack(run.fixed)
      weights = run.nash_weights(stacked)
      generation = [
          (_Learner(run.random_policy()),
           _beaten_mixture(run, stacked, weights, index))
          for index in np.flatnonzero(weights > SUPPORT_THRESHOLD)]
    finished = [learner for learner, opponent in generation
                if learner.update(run, opponent, run.config.learning_rate)]
    if len(finished) == len(generation):
      run.fixed.extend(learner.policy for learner, _ in generation)
      generation = []
    curve.append(run.exploitability([l.policy for l, _ in generation]))
  return curve


def _beaten_mixture(run: _Run, stacked: np.ndarray, weights: np.ndarray,
                    index: int) -> np.ndarray:
  """The Nash-weighted policies that policy `index` beats or ties."""
  beaten = stacked[index] @ run.payoffs @ stacked.T >= 0
  restricted = np.where(beaten, weights, 0.0)
  return (restricted / restricted.sum()) @ stacked


def _self_play(run: _Run, iterations: int) -> list[float]:
  learner, curve = _Learner(run.random_policy()), []
  for _ in range(iterations):
    if learner.update(run, run.fixed[-1], run.config.learning_rate):
      run.fixed.append(learner.policy)
      learner = _Learner(run.random_policy())
    curve.append(run.exploitability([learner.policy]))
  return curve


def run(method: str, payoffs: np.ndarray, config: Config,
        iterations: int, seed: int = 0,
        first: Optional[np.ndarray] = None
       ) -> tuple[list[float], list[np.ndarray]]:
  """Runs `method` (one of METHODS) for `iterations`, starting from the
  fixed policy `first` (a random mixed strategy by default).

  Returns:
    (the exploitability after each iteration, the fixed policies in the
    order they were fixed).

  Raises:
    ValueError: an unknown method or payoffs that are not antisymmetric.
  """
  payoffs = np.asarray(payoffs, np.float64)
  if payoffs.ndim != 2 or not np.allclose(payoffs, -payoffs.T):
    raise ValueError("payoffs must be a square antisymmetric matrix (a "
                     "symmetric zero-sum game)")
  rng = np.random.default_rng(seed)
  methods: dict[str, Callable[[_Run], list[float]]] = {
      "p2sro": lambda r: _pipeline(r, iterations, config.learners, True,
                                   True),
      "psro": lambda r: _pipeline(r, iterations, 1, True, True),
      "naive": lambda r: _pipeline(r, iterations, config.learners, True,
                                   False),
      "dch": lambda r: _pipeline(r, iterations, config.learners, False,
                                 True),
      "rectified": lambda r: _rectified(r, iterations),
      "self_play": lambda r: _self_play(r, iterations),
  }
  if method not in methods:
    raise ValueError(f"method must be one of {METHODS}, got {method!r}")
  state = _Run(payoffs, config, rng,
               rng.dirichlet(np.ones(len(payoffs))) if first is None else
               np.asarray(first, np.float64))
  curve = methods[method](state)
  return curve, state.fixed
