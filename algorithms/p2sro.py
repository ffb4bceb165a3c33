"""Pipeline PSRO and its rivals with learned best responses (in one process;
the executors come next).

A population (`rl/population.py`) starts from one random network. Active
learners (any learner of `algorithms/rl`, in the symmetric mode) train in
rounds of `chunk_steps` batched steps each, against a mixture of members
drawn per game: the meta-Nash (fictitious play) of their opponents' payoff
table, mixed with uniform by `uniform_mix`, as the P2SRO reference does.

- `p2sro`: `learners` active levels; level j trains against the fixed
  policies and the active ones below it (their current parameters); only
  the lowest active level can be fixed, when its mean return gained less
  than `plateau_gain` over the last round after at least `min_steps`; a new
  level starts on top.
- `psro`: sequential PSRO, one learner, the same plateau rule.
- `naive`: `learners` learners against the fixed policies only; any that
  plateaus is fixed and replaced.
- `dch`: `learners` levels as in P2SRO, never fixed (its population is the
  levels themselves).

Each round logs the exact exploitability of the meta-Nash of the fixed
population (and of the active levels, for DCH) where the game's tree fits.
"""

import dataclasses
import time
from typing import Any, NamedTuple, Optional

import jax
import jax.numpy as jnp
import numpy as np

from open_spiel_ext.algorithms import meta_solvers
from open_spiel_ext.algorithms.rl import best_response
from open_spiel_ext.algorithms.rl import learner as learner_lib
from open_spiel_ext.algorithms.rl import opponents
from open_spiel_ext.algorithms.rl import population as population_lib
from open_spiel_ext.algorithms.rl import versus as versus_lib
import pyspiel

METHODS = ("p2sro", "psro", "naive", "dch")


@dataclasses.dataclass(frozen=True)
class Settings:
  """What the population method does around its learners."""
  method: str = "p2sro"
  learners: int = 3
  chunk_steps: int = 2_000  # Batched steps per learner per round.
  min_steps: int = 6_000  # Before a policy can be fixed.
  plateau_gain: float = 0.01  # Mean-return gain per round that is a plateau.
  num_envs: int = 64
  uniform_mix: float = 0.1
  fictitious_play_iterations: int = 20_000
  seed: int = 0

  def __post_init__(self):
    if self.method not in METHODS:
      raise ValueError(f"method must be one of {METHODS}, got "
                       f"method={self.method!r}")
    learner_lib.check_positive(self, "learners", "chunk_steps", "num_envs",
                               "fictitious_play_iterations")
    learner_lib.check_non_negative(self, "min_steps", "plateau_gain")
    learner_lib.check_unit_interval(self, "uniform_mix")


class Round(NamedTuple):
  """What one round left."""
  round: int
  fixed: int  # Policies in the fixed population.
  env_steps: int  # Batched steps of every learner so far, times num_envs.
  wall_time: float
  exploitability: float  # Of the meta-Nash (exact).


class _Active:
  """An active learner: its training carry and its last round's return."""

  def __init__(self, carry: learner_lib.Carry):
    self.carry = carry
    self.steps = 0
    self.last_return: Optional[float] = None


class Pipeline:
  """One of METHODS with learned best responses (module docstring)."""

  def __init__(self, game: pyspiel.Game, env: Any,
               config: best_response.AnyConfig, settings: Settings):
    self.settings = settings
    self._key = jax.random.PRNGKey(settings.seed)
    versus = versus_lib.VersusEnv(env, opponents.uniform())
    self.learner = best_response.make_learner(config, versus,
                                              settings.num_envs)
    first = self.learner.played(self.learner.init(self._next_key()))
    self.population = population_lib.Population(game, first.apply, env)
    self.population.add(first.params)
    self._versus = versus_lib.VersusEnv(env,
                                        self.population.opponent([1.0]))
    self._train_steps = learner_lib.make_train_steps(self.learner,
                                                     self._versus)
    count = 1 if settings.method == "psro" else settings.learners
    self.active = [self._new_active() for _ in range(count)]
    self.rounds = 0
    self.env_steps = 0
    self._start = time.perf_counter()

  def _next_key(self) -> jax.Array:
    self._key, key = jax.random.split(self._key)
    return key

  def _new_active(self) -> _Active:
    return _Active(learner_lib.init_carry(self.learner, self._versus,
                                          self._next_key(),
                                          self.settings.num_envs))

  def _params(self, active: _Active) -> Any:
    return self.learner.played(active.carry.learner).params

  def _meta_nash(self, members: list[Any]) -> np.ndarray:
    payoffs = self.population.payoffs_with(members[len(self.population):])
    return meta_solvers.fictitious_play(
        payoffs, self.settings.fictitious_play_iterations)[0]

  def _train(self, active: _Active, members: list[Any]) -> float:
    """One round of `active` against the members' meta-Nash; its mean
    return."""
    mix = self.settings.uniform_mix
    weights = (1 - mix) * self._meta_nash(members) + mix / len(members)
    stacked = jax.tree.map(lambda *x: jnp.stack(x), *members)
    active.carry, metrics = self._train_steps(
        active.carry, stacked, jnp.asarray(weights / weights.sum(),
                                           jnp.float32),
        self.settings.chunk_steps)
    active.steps += self.settings.chunk_steps
    self.env_steps += self.settings.chunk_steps * self.settings.num_envs
    return float(metrics.return_sum) / max(int(metrics.episodes), 1)

  def _plateaued(self, active: _Active, mean_return: float) -> bool:
    previous, active.last_return = active.last_return, mean_return
    return (active.steps >= self.settings.min_steps and previous is not None
            and mean_return - previous < self.settings.plateau_gain)

  def step(self) -> Round:
    """One round: every active learner trains, plateaus are fixed."""
    method = self.settings.method
    fixed_members = list(self.population.members)
    done = []
    for level, active in enumerate(self.active):
      below = ([self._params(a) for a in self.active[:level]]
               if method in ("p2sro", "psro", "dch") else [])
      mean_return = self._train(active, fixed_members + below)
      lowest = level == 0 or method == "naive"
      if method != "dch" and self._plateaued(active, mean_return) and lowest:
        done.append(active)
    for active in done:
      self.population.add(self._params(active))
      self.active.remove(active)
      self.active.append(self._new_active())
    self.rounds += 1
    return Round(self.rounds, len(self.population), self.env_steps,
                 time.perf_counter() - self._start, self.exploitability())

  def exploitability(self) -> float:
    """The exact exploitability of the meta-Nash of the population (with
    DCH's levels, which are its population)."""
    extra = ([self._params(a) for a in self.active]
             if self.settings.method == "dch" else [])
    members = list(self.population.members) + extra
    weights = self._meta_nash(members)
    return self.population.exploitability(weights, extra)
