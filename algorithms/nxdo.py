"""Neural Extensive-Form Double Oracle (NXDO) and NXDO-VA: restricted games.

NXDO keeps a population of learned policies (each one network that plays
both seats, told apart by the information-state tensor, as the learned best
responses of `algorithms/rl` are trained). Its restricted game keeps the
original game's histories but replaces the actions: at every information
state the player to move picks a population member (a meta-action), and that
member's action is sampled and applied. The game therefore grows with the
population, not with the action space. NXDO-VA ("valid actions") keeps the
original actions instead and masks those that no member plays (with
probability at least `va_threshold`), as tabular XDO does.

`RestrictedGame` is that game as a JAX engine of the batched-environment
contract (`games/batched.py`) over an engine of the original game, so NFSP
(`algorithms/rl/nfsp.py`) solves it as it solves any game. The population's
parameters live in the engine's state, padded to a fixed `capacity`, so the
same compiled code serves a growing population. `meta_policy` turns a
restricted-game policy (the meta-NE) into an `Opponent` of the original game:
the probability of action a at an information state s is
Σ_k σ(k | s) π_k(a | s) for NXDO, σ(a | s) over the valid actions for
NXDO-VA. Its `members_table` is that policy on the tree engine's arrays, so
exact exploitability applies where the game's tree fits.
"""

import dataclasses
import functools
import os
import shutil
import time
from typing import Any, Callable, NamedTuple, Optional

import jax
import jax.numpy as jnp
import numpy as np

from open_spiel.python import policy as policy_lib
from open_spiel_ext.algorithms.nn import masking
from open_spiel_ext.algorithms.rl import best_response
from open_spiel_ext.algorithms.rl import evaluation
from open_spiel_ext.algorithms.rl import learner as learner_lib
from open_spiel_ext.algorithms.rl import nfsp
from open_spiel_ext.algorithms.rl import opponents as opponents_lib
from open_spiel_ext.algorithms.rl import policies
from open_spiel_ext.algorithms.rl import versus as versus_lib
from open_spiel_ext.algorithms.tree import cfr
from open_spiel_ext.algorithms.tree import game_tree as game_tree_lib
from open_spiel_ext.algorithms.tree import policies as tree_policies
from open_spiel_ext.algorithms.tree import sweeps as sweeps_lib
from open_spiel_ext.games import batched
from open_spiel_ext.games import engines
from open_spiel_ext.utils import checkpoints
from open_spiel_ext.utils import padding
import pyspiel

VARIANTS = ("nxdo", "nxdo_va")
DEFAULT_VA_THRESHOLD = 0.01


class RestrictedState(NamedTuple):
  """The contract's fields, then the original game's state and the
  population."""
  current_player: jax.Array
  observation: jax.Array
  legal_action_mask: jax.Array
  rewards: jax.Array
  terminated: jax.Array
  inner: Any  # The original engine's state.
  population: Any  # Member parameters stacked on a leading [capacity] axis.
  size: jax.Array  # How many of them are members.
  key: jax.Array  # Samples the members' actions.


def check_variant(variant: str, continuous: bool = False) -> None:
  """Raises ValueError for an unknown variant, or NXDO-VA on continuous
  actions (its mask is over discrete ones)."""
  if variant not in VARIANTS:
    raise ValueError(f"variant must be one of {VARIANTS}, got "
                     f"variant={variant!r}")
  if continuous and variant == "nxdo_va":
    raise ValueError("nxdo_va masks discrete actions; a continuous-action "
                     "game takes variant='nxdo'")


def stack_members(members: list[Any], capacity: int) -> Any:
  """The members' parameters stacked and padded (with copies of the first)
  to `capacity` rows."""
  if not members:
    raise ValueError("a restricted game needs at least one population member")
  if len(members) > capacity:
    raise ValueError(f"{len(members)} members do not fit capacity="
                     f"{capacity}")
  padded = members + [members[0]] * (capacity - len(members))
  return jax.tree.map(lambda *leaves: jnp.stack(leaves), *padded)


def default_capacity(size: int) -> int:
  """Room for the population to grow with few recompilations."""
  return padding.next_power_of_two(max(size, 8))


class _Members:
  """The population's policies evaluated on a batch of observations (a
  member's `apply` gives logits, or with `continuous` its action)."""

  def __init__(self, apply: learner_lib.LogitsFn, variant: str,
               va_threshold: float, continuous: bool = False):
    check_variant(variant, continuous)
    if not 0 < va_threshold <= 1:
      raise ValueError(f"va_threshold must be in (0, 1], got "
                       f"va_threshold={va_threshold}")
    self.apply = apply
    self.variant = variant
    self.va_threshold = va_threshold
    self.continuous = continuous

  def probabilities(self, population, observation, mask):
    """[capacity, B, A] every member's action probabilities."""
    logits = jax.vmap(lambda p: self.apply(p, observation))(population)
    return masking.masked_softmax(logits, mask[None])

  def valid(self, population, size, observation, mask):
    """[B, A] the actions some member plays (NXDO-VA's mask)."""
    probabilities = self.probabilities(population, observation, mask)
    member = jnp.arange(probabilities.shape[0]) < size
    played = (probabilities >= self.va_threshold) & member[:, None, None]
    return played.any(axis=0) & mask

  def meta_mask(self, population, size, observation, mask):
    """[B, meta-actions] the restricted game's legal actions."""
    if self.variant == "nxdo_va":
      return self.valid(population, size, observation, mask)
    capacity = jax.tree.leaves(population)[0].shape[0]
    live = mask.any(axis=1)
    return (jnp.arange(capacity) < size)[None] & live[:, None]

  def original_actions(self, population, observation, mask, meta_actions,
                       key):
    """[B] the original game's actions that meta-actions take."""
    if self.variant == "nxdo_va":
      return meta_actions
    if self.continuous:
      actions = jax.vmap(lambda p: self.apply(p, observation))(population)
      return jnp.take_along_axis(actions, meta_actions[None, :, None],
                                 axis=0)[0]
    probabilities = self.probabilities(population, observation, mask)
    chosen = jnp.take_along_axis(probabilities, meta_actions[None, :, None],
                                 axis=0)[0]
    return masking.masked_sample(key, jnp.log(chosen), mask)


class RestrictedGame:
  """A population's restricted game on an engine of the original game (see
  the module docstring)."""

  num_players = 2

  def __init__(self, env: Any, apply: learner_lib.LogitsFn,
               members: list[Any], variant: str = "nxdo",
               capacity: int | None = None,
               va_threshold: float = DEFAULT_VA_THRESHOLD):
    """
    Args:
      env: a JAX engine of the original game (contract of games/batched.py).
      apply: the members' logits function, (params, observation) -> logits
        (-> actions on an engine with continuous actions).
      members: each member's parameters.
      variant: "nxdo" (meta-actions pick members) or "nxdo_va" (original
        actions, masked to those members play).
      capacity: the most members the engine's state holds (meta-actions of
        NXDO); by default the next power of two >= max(size, 8).
      va_threshold: NXDO-VA: the probability from which a member plays an
        action.
    """
    self.env = env
    self.members = _Members(apply, variant, va_threshold,
                            getattr(env, "continuous", False))
    self.variant = variant
    self.size = len(members)
    self.capacity = capacity or default_capacity(self.size)
    self.population = stack_members(members, self.capacity)
    # Its policies are not the original game's: no game for evaluators to
    # walk (meta_policy gives the original game's policy).
    self.game = None
    self.original_game = env.game
    self.name = f"{variant}({getattr(env, 'name', env.game)})"
    self.auto_reset = env.auto_reset
    self.observation_shape = env.observation_shape
    self.num_actions = (self.capacity if variant == "nxdo" else
                        env.num_actions)

  def init(self, keys: jax.Array) -> RestrictedState:
    return self._wrap(self.env.init(keys), self.population,
                      jnp.int32(self.size), jax.random.fold_in(keys[0], 1))

  def step(self, state: RestrictedState,
           actions: jax.Array) -> RestrictedState:
    """The meta-actions of the players to move (see games/batched.py)."""
    key, act_key = jax.random.split(state.key)
    inner = state.inner
    rows = jnp.arange(actions.shape[0])
    player = jnp.maximum(inner.current_player, 0)
    original = self.members.original_actions(
        state.population, inner.observation[rows, player],
        inner.legal_action_mask, actions, act_key)
    return self._wrap(self.env.step(inner, original), state.population,
                      state.size, key)

  def checked_step(self, state: RestrictedState,
                   actions: Any) -> RestrictedState:
    batched.check_actions(self.name, np.asarray(state.legal_action_mask),
                          np.asarray(state.terminated), actions)
    return self.step(state, jnp.asarray(actions, jnp.int32))

  def _wrap(self, inner, population, size, key) -> RestrictedState:
    rows = jnp.arange(inner.current_player.shape[0])
    player = jnp.maximum(inner.current_player, 0)
    mask = self.members.meta_mask(population, size,
                                  inner.observation[rows, player],
                                  inner.legal_action_mask)
    return RestrictedState(inner.current_player, inner.observation, mask,
                           inner.rewards, inner.terminated, inner,
                           population, size, key)


def meta_policy(restricted: RestrictedGame, meta_apply: learner_lib.LogitsFn,
                meta_params: Any) -> opponents_lib.Opponent:
  """The restricted game's policy `meta_apply(meta_params, ·)` as a policy
  of the original game (see the module docstring)."""
  members = restricted.members
  params = (meta_params, restricted.population, jnp.int32(restricted.size))
  return opponents_lib.Opponent(
      _meta_act(members, meta_apply), params, jnp.ones(1),
      _meta_table(members, meta_apply, params))


_META_ACTS: dict[Any, opponents_lib.ActFn] = {}


def _meta_act(members: _Members,
              meta_apply: learner_lib.LogitsFn) -> opponents_lib.ActFn:
  """One act function per kind, so that jitted learners compile once."""

  def act(params, observation, mask, member, key):
    del member  # One policy, no mixture.
    meta_params, population, size = params
    meta_key, act_key = jax.random.split(key)
    meta_actions = masking.masked_sample(
        meta_key, meta_apply(meta_params, observation),
        members.meta_mask(population, size, observation, mask))
    return members.original_actions(population, observation, mask,
                                     meta_actions, act_key)

  return _META_ACTS.setdefault(
      (members.apply, members.variant, members.va_threshold,
       members.continuous, meta_apply), act)


def _meta_table(members: _Members, meta_apply: learner_lib.LogitsFn,
                params: Any) -> Callable[[Any, int], np.ndarray]:
  """(tree, clones) -> [1, infosets, actions] the composed policy."""

  def members_table(tree, clones):
    if members.continuous:
      return opponents_lib.no_tree_table(tree, clones)
    meta_params, population, size = params
    tensors, legal = _tree_inputs(tree, clones)
    meta_mask = members.meta_mask(population, size, tensors, legal)
    meta = masking.masked_softmax(meta_apply(meta_params, tensors), meta_mask)
    if members.variant == "nxdo":
      composed = jnp.einsum("ik,kia->ia", meta,
                            members.probabilities(population, tensors, legal))
    else:
      composed = meta
    composed = np.asarray(composed, np.float64)
    composed /= composed.sum(axis=1, keepdims=True)
    return _collapsed(composed, clones)[None]

  return members_table


def _tree_inputs(tree: game_tree_lib.GameTree,
                 clones: int) -> tuple[jax.Array, jax.Array]:
  """The networks' inputs at the tree's information states, and the legal
  actions of the game they play (m-Clone Leduc's for `clones` > 1)."""
  return (jnp.asarray(policies.infoset_tensors(tree)),
          jnp.asarray(np.tile(tree.legal, clones)))


def _collapsed(table: np.ndarray, clones: int) -> np.ndarray:
  return policies.collapse_clones(table, clones) if clones > 1 else table


def restricted_exploitability(restricted: RestrictedGame,
                              meta_ne: opponents_lib.Opponent,
                              exact: evaluation.OpponentExploitability
                              ) -> float:
  """How far the meta-NE is from solving the restricted game, exactly: its
  exploitability by best responses that play only actions some member plays
  (with probability at least `va_threshold`; for deterministic members, as
  learned best responses and exact oracles are, that is the restricted
  game's best response).

  Raises:
    ValueError: continuous members (they have no tree).
  """
  members = restricted.members
  if members.continuous:
    raise ValueError("continuous members have no tree to restrict")
  tree = exact.sweeps.tree
  tensors, legal = _tree_inputs(tree, exact.clones)
  probabilities = np.asarray(members.probabilities(
      restricted.population, tensors, legal)[:restricted.size])
  played = (_collapsed(probabilities, exact.clones) >=
            members.va_threshold).any(axis=0) & tree.legal
  return exact.sweeps.exploitability(
      evaluation.opponent_policy(exact.sweeps, exact.clones, meta_ne), played)


# Population members given as tables of a tree (exact oracles).


class TabularMembers:
  """Policy arrays of a tree as population members: a member's parameters
  are its log-probabilities in the order of `opponents.tensor_index`, and
  `apply` looks them up by information-state tensor (0s and 1s)."""

  def __init__(self, tree: game_tree_lib.GameTree):
    self.tree = tree
    self.index = opponents_lib.tensor_index(tree)

  def params(self, policy: np.ndarray) -> jax.Array:
    """[infosets, actions] a policy array of the tree -> parameters."""
    return jnp.asarray(np.log(np.maximum(policy[self.index.order], 1e-30)),
                       jnp.float32)

  def policy(self, params: jax.Array) -> np.ndarray:
    """Parameters -> the policy array (of the tree's order)."""
    policy = np.zeros(params.shape)
    policy[self.index.order] = masking.masked_softmax(
        np.asarray(params, np.float64), np.ones(params.shape, bool))
    return policy

  def apply(self, params: jax.Array, observation: jax.Array) -> jax.Array:
    return params[self.index.rows(observation)]


# Best-response oracles: respond(opponent, iteration, directory) -> Response.


class Response(NamedTuple):
  params: Any  # The new member.
  episodes: int  # Games the oracle played to find it.
  mean_return: float  # Its mean return against the opponent at the end.


class ExactOracle:
  """Exact best responses of both seats from the tree engine, as one pure
  tabular member."""

  def __init__(self, game: pyspiel.Game):
    self.sweeps = sweeps_lib.TreeSweeps(game_tree_lib.build_tree(game))
    self.members = TabularMembers(self.sweeps.tree)
    self.apply = self.members.apply
    self.record = "exact"

  def respond(self, opponent: opponents_lib.Opponent, iteration: int,
              directory: Optional[str] = None) -> Response:
    del iteration, directory  # Deterministic, nothing to checkpoint.
    tree = self.sweeps.tree
    policy = evaluation.opponent_policy(self.sweeps, 1, opponent)
    pure = np.zeros(tree.legal.shape)
    values = []
    for player in (0, 1):
      value, actions = self.sweeps.best_response(policy, player)
      rows = np.flatnonzero(tree.infoset_player == player)
      pure[rows, actions[rows]] = 1.0
      values.append(value)
    return Response(self.members.params(pure), 0, float(np.mean(values)))


@dataclasses.dataclass(frozen=True)
class LearnedOracle:
  """Best responses trained by `train_best_response` (both seats, one
  network) until their return plateaus: checked every `check_steps` batched
  steps, stopped once it rises by less than `min_gain`, or at `max_steps`
  (the reference: every 20,000 episodes, 0.01, at most 100,000 episodes)."""
  env: Any  # A JAX engine of the original game, auto-reset.
  config: best_response.AnyConfig
  check_steps: int = 500
  max_steps: int = 2_500
  min_gain: float = 0.01
  num_envs: int = 64
  seed: int = 0

  def __post_init__(self):
    learner_lib.check_positive(self, "check_steps", "max_steps", "num_envs")

  @property
  def record(self) -> str:
    """Its settings, as checkpoints compare them."""
    return repr({field.name: getattr(self, field.name)
                 for field in dataclasses.fields(self) if field.name != "env"})

  @functools.cached_property
  def apply(self) -> learner_lib.LogitsFn:
    """The members' logits function (one architecture for all)."""
    versus = versus_lib.VersusEnv(self.env, opponents_lib.uniform())
    learner = best_response.make_learner(self.config, versus, self.num_envs)
    return learner.played(learner.init(jax.random.PRNGKey(0))).apply

  def respond(self, opponent: opponents_lib.Opponent, iteration: int,
              directory: Optional[str] = None) -> Response:
    policy, log = best_response.train_best_response(
        self.env, opponent, self.config, steps=self.max_steps,
        num_envs=self.num_envs, eval_every=self.check_steps,
        seed=_seed(self.seed, iteration),
        checkpoint_path=directory and os.path.join(directory, "oracle.ckpt"),
        stop=best_response.plateaued(self.min_gain))
    return Response(policy.params, log[-1].episodes, log[-1].mean_return)


# Meta-NE solvers: solve(restricted, iteration, response returns, directory)
# -> Solution.


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

  def __init__(self, oracle: ExactOracle, iterations: int = 2_000):
    self.oracle = oracle
    self.iterations = iterations
    self.record = f"exact, {iterations} CFR+ iterations"

  def solve(self, restricted: RestrictedGame, iteration: int,
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

  def meta_apply(self, restricted: RestrictedGame) -> learner_lib.LogitsFn:
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

  def solve(self, restricted: RestrictedGame, iteration: int,
            response_returns: list[float],
            directory: Optional[str] = None) -> Solution:
    schedule = self.schedule
    seed = _seed(self.seed, iteration)
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

  def meta_apply(self, restricted: RestrictedGame) -> learner_lib.LogitsFn:
    """The logits function of NFSP's average policy on `restricted`."""
    return nfsp.average_network(self.config.average_hidden_sizes,
                                restricted.num_actions).apply


def _seed(seed: int, iteration: int) -> int:
  """A distinct seed per iteration of a run (-1: the first response)."""
  return int(np.random.SeedSequence([seed, iteration + 1]).generate_state(1)[0]
             % 2**31)


# The NXDO loop.

_ITERATION = "iteration"  # The subdirectory of the iteration in progress.
EXACT = "exact"  # NXDO's default evaluator: exploitability on the tree.


class Iteration(NamedTuple):
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
               evaluator: Any = EXACT):
    """
    Args:
      game: the original game.
      env: a JAX engine of `game` made with `auto_reset=True`.
      oracle: `ExactOracle` or `LearnedOracle`.
      solver: `ExactSolver` or `NFSPSolver`.
      variant: "nxdo" or "nxdo_va".
      directory: where to checkpoint (None: no checkpoints).
      evaluator: the meta-NE's exploitability each iteration: EXACT, from
        the tree engine (ValueError if the game's tree has more than a
        million nodes); a function of the meta-NE (an `Opponent`), such as
        `best_response.approximate_exploitability` bound to its settings;
        or None.
    """
    check_variant(variant, getattr(env, "continuous", False))
    self.game, self.env, self.oracle, self.solver = game, env, oracle, solver
    self.variant = variant
    self.directory = directory
    self._exact = (evaluation.OpponentExploitability(game)
                   if evaluator == EXACT else None)
    self._evaluate = self._exact if evaluator == EXACT else evaluator
    self.members: list[Any] = []
    self.response_returns: list[float] = []
    self.log: list[Iteration] = []
    self._episodes, self._wall_time = 0, 0.0
    self._solution: Optional[Solution] = None
    self._record = {"game": str(game), "variant": variant,
                    "oracle": oracle.record, "solver": solver.record}
    if directory:
      learner_lib.share_compilations(os.path.join(directory,
                                                  "compilation_cache"))
      if os.path.exists(self._state_path):
        self._restore()

  @property
  def _state_path(self) -> str:
    return os.path.join(self.directory, "state.pkl")

  def _path(self, name: str) -> Optional[str]:
    """Where the oracle or the solver checkpoints in this iteration."""
    return self.directory and os.path.join(self.directory, _ITERATION, name)

  def step(self) -> Iteration:
    """One NXDO iteration."""
    started = time.perf_counter()
    iteration = len(self.log)
    if not self.members:
      self._add(self.oracle.respond(opponents_lib.uniform_for(self.env), -1,
                                    self._path("response_initial")))
    restricted = self.restricted_game()
    solution = self.solver.solve(restricted, iteration, self.response_returns,
                                 self._path(f"solve{iteration}"))
    meta_ne = meta_policy(restricted, solution.meta_apply,
                          solution.meta_params)
    response = self.oracle.respond(meta_ne, iteration,
                                   self._path(f"response{iteration}"))
    self._episodes += solution.episodes
    self._wall_time += time.perf_counter() - started
    self._solution = solution
    self.log.append(Iteration(
        iteration, len(self.members), self._episodes + response.episodes,
        self._wall_time,
        self._evaluate(meta_ne) if self._evaluate else None,
        response.mean_return,
        restricted_exploitability(restricted, meta_ne, self._exact)
        if self._exact and not restricted.members.continuous else None,
        solution.estimate))
    self._add(response)
    self._save()
    return self.log[-1]

  def restricted_game(self, size: Optional[int] = None) -> RestrictedGame:
    """The restricted game of the first `size` members (default all)."""
    return RestrictedGame(self.env, self.oracle.apply,
                          self.members[:size or len(self.members)],
                          self.variant)

  def meta_ne(self) -> opponents_lib.Opponent:
    """The last meta-NE found, as a policy of the original game."""
    if self._solution is None:
      raise ValueError("no meta-NE yet: run an iteration first")
    return meta_policy(self.restricted_game(self.log[-1].population),
                       self._solution.meta_apply, self._solution.meta_params)

  def tabular_policy(self) -> policy_lib.TabularPolicy:
    """The last meta-NE as an OpenSpiel TabularPolicy (of Leduc poker for
    m-Clone Leduc)."""
    if self._exact is None:
      raise ValueError("a tabular policy needs the tree engine "
                       "(evaluator=EXACT)")
    sweeps = self._exact.sweeps
    return tree_policies.to_tabular(sweeps.tree, evaluation.opponent_policy(
        sweeps, self._exact.clones, self.meta_ne()))

  def _add(self, response: Response) -> None:
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
    self._solution = Solution(saved.tree["meta_params"],
                              self.solver.meta_apply(restricted), 0)


# The reference's settings per game.


@dataclasses.dataclass(frozen=True)
class Recipe:
  """NXDO's settings on one game, as the reference ran it (and the rivals
  measured beside it learn with the same oracle)."""
  env: Any  # The learners' JAX engine (auto-reset).
  oracle_config: best_response.AnyConfig
  check_steps: int  # Between a best response's plateau checks.
  max_steps: int  # A best response's most batched steps.
  schedule: Schedule  # NFSP's on the restricted games.
  evaluator: Any  # EXACT, or a function of the meta-NE (an Opponent).

  def oracle(self, num_envs: int = 64, seed: int = 0) -> LearnedOracle:
    return LearnedOracle(self.env, self.oracle_config, self.check_steps,
                         self.max_steps, num_envs=num_envs, seed=seed)

  def solver(self, num_envs: int = 64, seed: int = 0) -> NFSPSolver:
    return NFSPSolver(nfsp.Config(), self.schedule, num_envs, seed)


def recipe(game: pyspiel.Game, num_envs: int = 64) -> Recipe:
  """The reference's settings for `game`.

  Poker (Kuhn, Leduc, m-Clone Leduc): DDQN best responses checked every 625
  batched steps of 64 games and stopped by 3,125 (about the reference's
  20,000 and 100,000 episodes), NFSP on the 20-Clone Leduc schedule (7
  warm-start iterations, the threshold from 1.0 down to 0.05, at least 3,500
  steps, about 50,000 episodes), exact exploitability. The Loss Game:
  continuous PPO best responses (every 3,125 steps, at most 15,625: a game
  is 10 decisions a seat), NFSP for 15,625 steps (the reference's 1e6)
  growing by 1.5 after 5 warm-start iterations, and the approximate
  exploitability from a PPO best response of the same budget.

  Raises:
    ValueError: no JAX engine plays `game`.
  """
  if game.get_type().short_name != "loss_game":
    return Recipe(engines.make(game, auto_reset=True),
                  best_response.oracle_config("ddqn"), 625, 3_125,
                  Schedule(min_steps=3_500), EXACT)
  env = engines.make(game, auto_reset=True, continuous=True)
  config = best_response.oracle_config("continuous_ppo")
  evaluator = functools.partial(
      best_response.approximate_exploitability, env, config=config,
      check_steps=3_125, max_steps=15_625, num_envs=num_envs, eval_steps=500)
  return Recipe(env, config, 3_125, 15_625,
                Schedule(kind="growing", warm_start_iterations=5,
                         start_steps=15_625, growth=1.5), evaluator)
