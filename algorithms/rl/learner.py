"""What every learner of `algorithms/rl` offers, and the loop that trains one.

A learner (DDQN, PPO, discrete SAC) is built from its `Config` and the task's
sizes and offers pure, jittable functions:

  init(key) -> state: its networks, optimiser states, buffers, counters;
  act(state, observation [B, *], mask [B, A], key) -> actions [B]: the
    actions it explores with;
  observe(state, transition, key) -> (state, metrics): takes one batched
    step's `Transition` and learns from it when its schedule says so
    (`metrics` is a dict of scalars);
  played(state) -> `LearnedPolicy`: the policy it has learned, as it plays
    it when it is done (greedy for DDQN, its softmax policy for PPO and SAC);
  optionally compact(state), portable(state) and whole(state): the state
    as a checkpoint keeps it losslessly, without what need not travel off a
    machine, and back (`compact_carry`, `portable_carry`; PPO's rollout).

`make_train_steps` runs batched steps of a learner against a `VersusEnv`
inside one `lax.scan` (or, over a `HostVersusEnv`, in a Python loop of
jitted learner steps): the learner acts, the environment (and its opponent)
moves, the learner observes. `run_in_chunks` adds the log, checkpoints and
resumption every trainer shares. A `LearnedPolicy` is a logits function of a
network with its parameters: an `Opponent` for the next learner (PSRO's
population), an OpenSpiel policy, or a policy array of the tree engine.
"""

import dataclasses
import os
import time
from typing import Any, Callable, NamedTuple, Optional, Protocol

import jax
import jax.numpy as jnp
import numpy as np
import optax

from open_spiel_ext.algorithms.rl import opponents
from open_spiel_ext.algorithms.rl import versus as versus_lib
from open_spiel_ext.utils import checkpoints

# (params, observation [B, *]) -> logits [B, A].
LogitsFn = Callable[[Any, jax.Array], jax.Array]
GREEDY_LOGIT_GAP = 1e4  # Turns values into the logits of an argmax policy.
# A training metric's value at a step that did not train; summaries of
# several steps average over the steps that trained.
NOT_TRAINED = float("nan")


def check_positive(config: Any, *names: str) -> None:
  """Raises ValueError naming the first of `names` that is not > 0."""
  for name in names:
    value = getattr(config, name)
    if not value > 0:
      raise ValueError(f"{name} must be > 0, got {name}={value!r}")


def check_non_negative(config: Any, *names: str) -> None:
  """Raises ValueError naming the first of `names` that is < 0."""
  for name in names:
    value = getattr(config, name)
    if not value >= 0:
      raise ValueError(f"{name} must be >= 0, got {name}={value!r}")


def check_unit_interval(config: Any, *names: str) -> None:
  """Raises ValueError naming the first of `names` outside [0, 1]."""
  for name in names:
    value = getattr(config, name)
    if not 0 <= value <= 1:
      raise ValueError(f"{name} must be in [0, 1], got {name}={value!r}")


def check_widths(config: Any, name: str) -> None:
  """Raises ValueError unless `name` is a non-empty tuple of widths >= 1."""
  widths = getattr(config, name)
  if not widths or any(width < 1 for width in widths):
    raise ValueError(f"{name} must be layer widths >= 1, got "
                     f"{name}={widths!r}")


def learning_rate_schedule(start: float, end: Optional[float],
                           updates: int) -> optax.Schedule:
  """Linear from `start` to `end` over `updates` updates; constant if `end`
  is None."""
  return optax.constant_schedule(start) if end is None else (
      optax.linear_schedule(start, end, updates))


class Transition(NamedTuple):
  """One batched step from the learner's side; every leaf has batch axis B."""
  observation: jax.Array
  mask: jax.Array
  action: jax.Array
  reward: jax.Array
  done: jax.Array
  next_observation: jax.Array
  next_mask: jax.Array


def example_transition(observation_shape: tuple[int, ...],
                       num_actions: int) -> Transition:
  """One discrete transition of zeros: what a replay buffer is made from."""
  observation = jnp.zeros(observation_shape, jnp.float32)
  mask = jnp.zeros(num_actions, bool)
  return Transition(observation, mask, jnp.int32(0), jnp.float32(0),
                    jnp.float32(0), observation, mask)


@dataclasses.dataclass(frozen=True)
class LearnedPolicy:
  """A network's policy: softmax of `apply(params, observation)` over the
  legal actions."""
  apply: LogitsFn
  params: Any

  def logits_fn(self) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """(tensors, players) -> logits, as `network_policies.NetworkPolicy` and
    `network_policies.tabulate` take it."""
    apply = jax.jit(self.apply)
    return lambda tensors, players: np.asarray(apply(self.params, tensors))

  def as_opponent(self) -> opponents.Opponent:
    return opponents.network(self.apply, self.params)


def greedy(values_fn: LogitsFn) -> LogitsFn:
  """The logits of the argmax policy of an action-value function (ties and
  legality are settled by the mask the logits meet later)."""

  def apply(params, observation):
    values = values_fn(params, observation)
    return (values - jnp.max(values, -1, keepdims=True)) * GREEDY_LOGIT_GAP

  return apply


class Learner(Protocol):
  """See the module docstring."""

  def init(self, key: jax.Array) -> Any:
    ...

  def act(self, state: Any, observation: jax.Array, mask: jax.Array,
          key: jax.Array) -> jax.Array:
    ...

  def observe(self, state: Any, transition: Transition,
              key: jax.Array) -> tuple[Any, dict[str, jax.Array]]:
    ...

  def played(self, state: Any) -> LearnedPolicy:
    ...


class Carry(NamedTuple):
  """What `train_steps` carries from one chunk of steps to the next."""
  learner: Any
  env: versus_lib.VersusState
  episode_return: jax.Array  # [B] the learner's return so far this game.
  key: jax.Array


class ChunkMetrics(NamedTuple):
  """Sums over a chunk of steps, for the log."""
  episodes: jax.Array  # Games that ended.
  return_sum: jax.Array  # Sum of the learner's returns in them.
  # The learner's metrics, averaged over the steps that trained (NaN if
  # none did; per-step values such as DQN's epsilon over every step).
  learner: dict[str, jax.Array]


def init_carry(learner: Learner, versus: versus_lib.VersusEnv, key: jax.Array,
               batch: int) -> Carry:
  learner_key, env_key, key = jax.random.split(key, 3)
  return Carry(learner.init(learner_key), versus.init(env_key, batch),
               jnp.zeros(batch), key)


def portable_carry(learner: Learner, carry: Carry) -> Carry:
  """`carry` as it travels off a machine: no games in progress (`env` and
  `episode_return` None) and the learner's state as its optional
  `portable(state)` keeps it (PPO drops the rollout it is collecting;
  learners without the method keep everything, a replay buffer included)."""
  portable = getattr(learner, "portable", None)
  state = portable(carry.learner) if portable else carry.learner
  return carry._replace(learner=state, env=None, episode_return=None)


def compact_carry(learner: Learner, carry: Carry) -> Carry:
  """`carry` as a checkpoint keeps it, losing nothing: the learner's state
  as its optional `compact(state)` keeps it (PPO between rollouts: without
  its rollout buffer)."""
  compact = getattr(learner, "compact", None)
  return carry._replace(learner=compact(carry.learner)) if compact else carry


def whole_carry(learner: Learner, versus: versus_lib.VersusEnv, carry: Carry,
                batch: int) -> Carry:
  """A carry `compact_carry` or `portable_carry` wrote, made whole (the
  learner's optional `whole(state)` refills what they dropped); a portable
  one on `batch` fresh games."""
  whole = getattr(learner, "whole", None)
  state = whole(carry.learner) if whole else carry.learner
  if carry.env is not None:
    return carry if state is carry.learner else carry._replace(learner=state)
  env_key, key = jax.random.split(carry.key)
  return Carry(state, versus.init(env_key, batch), jnp.zeros(batch), key)


def make_train_steps(learner: Learner, versus: versus_lib.VersusEnv
                    ) -> Callable[[Carry, Any, jax.Array, int],
                                  tuple[Carry, ChunkMetrics]]:
  """`train_steps(carry, opponent_params, opponent_weights, steps)`: `steps`
  batched steps against the opponent with those parameters; jitted and
  scanned on a JAX engine, a Python loop of jitted learner steps on a
  `HostVersusEnv`."""

  def one_step(carry: Carry, opponent_params, opponent_weights):
    key, act_key, learn_key = jax.random.split(carry.key, 3)
    observation = versus.observation(carry.env)
    mask = versus.legal_mask(carry.env)
    actions = learner.act(carry.learner, observation, mask, act_key)
    env_state, reward, done = versus.play(carry.env, actions, opponent_params,
                                          opponent_weights)
    transition = Transition(observation, mask, actions, reward, done,
                            versus.observation(env_state),
                            versus.legal_mask(env_state))
    learner_state, metrics = learner.observe(carry.learner, transition,
                                             learn_key)
    episode_return = carry.episode_return + reward
    summary = (done.sum(), jnp.where(done, episode_return, 0.0).sum(),
               metrics)
    return Carry(learner_state, env_state,
                 jnp.where(done, 0.0, episode_return), key), summary

  def summarize(carry, summaries):
    episodes, returns, metrics = summaries
    return carry, ChunkMetrics(episodes.sum(), returns.sum(),
                               jax.tree.map(jnp.nanmean, metrics))

  def train_steps(carry, opponent_params, opponent_weights, steps):
    return summarize(*jax.lax.scan(
        lambda c, _: one_step(c, opponent_params, opponent_weights), carry,
        None, length=steps))

  if getattr(versus, "jittable", True):
    return jax.jit(train_steps, static_argnums=3)
  learner = _Jitted(learner)

  def host_train_steps(carry, opponent_params, opponent_weights, steps):
    summaries = []
    for _ in range(steps):
      carry, summary = one_step(carry, opponent_params, opponent_weights)
      summaries.append(summary)
    return summarize(carry, jax.tree.map(lambda *x: jnp.stack(x),
                                         *summaries))

  return host_train_steps


class _Jitted:
  """A learner whose functions are jitted one by one, for the host loop."""

  def __init__(self, learner: Learner):
    self.init = jax.jit(learner.init)
    self.act = jax.jit(learner.act)
    self.observe = jax.jit(learner.observe)
    self.played = learner.played


@dataclasses.dataclass(frozen=True)
class RunConfig:
  """What a training run does besides its learner's config."""
  steps: int
  num_envs: int
  eval_every: int
  seed: int
  seats: Any = None

  def __post_init__(self):
    check_positive(self, "steps", "num_envs", "eval_every")

  def as_record(self, config: Any, **extra: Any) -> dict[str, Any]:
    """The run's whole configuration, as checkpoints keep it."""
    return {"learner": type(config).__module__, **dataclasses.asdict(config),
            **{f"run_{name}": value for name, value in
               dataclasses.asdict(self).items()}, **extra}


def env_name(env: Any) -> str:
  """The game an engine plays, for checkpoint records: its pyspiel game's
  string, or the engine's name where it has no pyspiel game (a restricted
  game)."""
  game = getattr(env, "game", None)
  return str(game) if game is not None else str(getattr(env, "name", env))


def run_in_chunks(carry: Any, advance: Callable[[Any, int], tuple[Any, Any]],
                  make_entry: Callable[[Any, int, Any, float, list], Any],
                  steps: int, chunk: int, record: dict[str, Any],
                  checkpoint_path: Optional[str] = None,
                  on_entry: Optional[Callable[[Any], None]] = None,
                  stop: Optional[Callable[[list], bool]] = None
                 ) -> tuple[Any, list]:
  """Advances a training carry `chunk` steps at a time up to `steps`, with a
  log entry, a checkpoint and a callback after every chunk.

  Args:
    carry: the run's starting state (a pytree).
    advance: (carry, steps) -> (carry, what happened meanwhile).
    make_entry: (carry, step, what happened, seconds of training so far,
      log so far) -> the chunk's log entry, which keeps those seconds as its
      `wall_time` (evaluations and checkpoints do not count).
    steps: steps in all.
    chunk: steps per chunk.
    record: the run's whole configuration (`RunConfig.as_record`), saved
      with checkpoints; an existing checkpoint at `checkpoint_path` made
      with another is refused, but for its `run_steps`: a run, finished or
      not, goes on to `steps` from wherever it stopped (a finished run is
      extended), unless it has trained more steps than that.
    checkpoint_path: resume from and save to this file.
    on_entry: called with each entry (progress output).
    stop: called with the log after each entry (and on resuming); the run
      ends early once it returns True (a plateau, a threshold reached).

  Returns:
    (the final carry, the log).
  """
  step, log = 0, []
  if checkpoint_path and os.path.exists(checkpoint_path):
    saved = checkpoints.restore(checkpoint_path, record,
                                may_differ=lambda name: name == "run_steps")
    if saved.step > steps:
      raise checkpoints.CheckpointError(
          f"checkpoint {checkpoint_path} has trained {saved.step:,d} steps, "
          f"more than the {steps:,d} asked for: ask for {saved.step:,d} or "
          "more to extend it, or use another output directory")
    carry, step, log = saved.tree, saved.step, saved.extra["log"]
  trained = log[-1].wall_time if log else 0.0
  while step < steps and not (stop and log and stop(log)):
    size = min(chunk, steps - step)
    started = time.perf_counter()
    carry, happened = jax.block_until_ready(advance(carry, size))
    trained += time.perf_counter() - started
    step += size
    log.append(make_entry(carry, step, happened, trained, log))
    if checkpoint_path:
      checkpoints.save(checkpoint_path, carry, record, step=step,
                       extra={"log": log})
    if on_entry:
      on_entry(log[-1])
  return carry, log
