"""Double DQN on batched environments, with masks for illegal actions.

Each batched step's transitions go into a uniform replay ring; every
`train_every` steps, once `learning_starts` transitions are stored, the
network takes `updates_per_train` gradient steps on batches from it. The
target is double Q: the online network picks the next action (among the
legal ones), the target network values it; the target network is a copy
of the online one refreshed every `target_update_every` updates. Actions are
ε-greedy over the legal ones, ε falling linearly from `epsilon_start` to
`epsilon_end` over `epsilon_decay_steps` batched steps. The played policy is
greedy.
"""

import dataclasses
from typing import NamedTuple, Optional

import haiku as hk
import jax
import jax.numpy as jnp
import optax

from open_spiel_ext.algorithms.nn import layers
from open_spiel_ext.algorithms.nn import masking
from open_spiel_ext.algorithms.nn import training
from open_spiel_ext.algorithms.rl import buffers
from open_spiel_ext.algorithms.rl import learner as learner_lib


@dataclasses.dataclass(frozen=True)
class Config:
  """DDQN's settings."""
  hidden_sizes: tuple[int, ...] = (128, 128)
  learning_rate: float = 1e-3
  # The learning rate falls linearly to learning_rate_end over
  # learning_rate_decay_updates updates (then stays there); None: constant.
  learning_rate_end: Optional[float] = None
  learning_rate_decay_updates: int = 100_000
  batch_size: int = 512
  buffer_capacity: int = 200_000
  learning_starts: int = 2_000  # Transitions stored before the first update.
  train_every: int = 1  # Batched steps between trainings.
  updates_per_train: int = 1
  target_update_every: int = 500  # Updates between target refreshes.
  discount: float = 1.0
  epsilon_start: float = 1.0
  epsilon_end: float = 0.02
  epsilon_decay_steps: int = 4_000  # Batched steps.
  max_grad_norm: float = 10.0

  def __post_init__(self):
    learner_lib.check_positive(self, "learning_rate",
        "learning_rate_decay_updates", "batch_size", "buffer_capacity",
                   "train_every", "updates_per_train", "target_update_every",
                   "epsilon_decay_steps", "max_grad_norm")
    learner_lib.check_unit_interval(self, "discount", "epsilon_start", "epsilon_end")
    learner_lib.check_non_negative(self, "learning_starts")
    if self.learning_rate_end is not None:
      learner_lib.check_positive(self, "learning_rate_end")
    learner_lib.check_widths(self, "hidden_sizes")


def q_network(hidden_sizes: tuple[int, ...], num_actions: int,
              name: str = "q") -> hk.Transformed:
  """An MLP from information-state tensors to one value per action."""
  return hk.without_apply_rng(hk.transform(
      lambda x: layers.MLP(hidden_sizes, num_actions, name=name)(x)))


class State(NamedTuple):
  train: training.TrainState
  buffer: buffers.Buffer
  env_steps: jax.Array  # Batched steps observed.


def double_q_loss(apply, params, target_params, batch: learner_lib.Transition,
                  discount: float) -> jax.Array:
  """The squared error of Q(s, a) against r + γ Q_target(s', a*), a* the
  online network's best legal action at s'.

  Squared, not Huber: poker's returns are far apart (±1 to ±13 chips in
  Leduc), and a Huber loss would pull Q towards their median rather than
  their mean; on Leduc against uniform it left the greedy policy 0.15 chips
  short of a best response where the squared error gets within 0.02.
  """
  values = apply(params, batch.observation)
  chosen = jnp.take_along_axis(values, batch.action[:, None], -1)[:, 0]
  next_action = masking.masked_argmax(apply(params, batch.next_observation),
                                      batch.next_mask)
  next_value = jnp.take_along_axis(
      apply(target_params, batch.next_observation), next_action[:, None],
      -1)[:, 0]
  target = batch.reward + discount * (1.0 - batch.done) * next_value
  errors = chosen - jax.lax.stop_gradient(target)
  return jnp.mean(errors**2)


class DQN:
  """DDQN as a learner of `learner.py`."""

  def __init__(self, config: Config, observation_shape: tuple[int, ...],
               num_actions: int, batch: int):
    self.config = config
    self.network = q_network(config.hidden_sizes, num_actions)
    self.observation_shape = tuple(observation_shape)
    self.num_actions = num_actions
    self.batch = batch
    self.optimizer = optax.chain(
        optax.clip_by_global_norm(config.max_grad_norm),
        optax.adam(learner_lib.learning_rate_schedule(
            config.learning_rate, config.learning_rate_end,
            config.learning_rate_decay_updates)))
    self._update = training.make_update(self._loss, self.optimizer)
    self._greedy = learner_lib.greedy(self.network.apply)

  def init(self, key: jax.Array) -> State:
    params = self.network.init(
        key, jnp.zeros((1,) + self.observation_shape, jnp.float32))
    train = training.copy_to_target(training.init_train_state(
        params, {}, self.optimizer, with_target=True))
    example = learner_lib.example_transition(self.observation_shape,
                                             self.num_actions)
    return State(train, buffers.init(example, self.config.buffer_capacity),
                 jnp.int32(0))

  def epsilon(self, env_steps: jax.Array) -> jax.Array:
    config = self.config
    fraction = jnp.minimum(env_steps / config.epsilon_decay_steps, 1.0)
    return config.epsilon_start + fraction * (config.epsilon_end -
                                              config.epsilon_start)

  def act(self, state: State, observation: jax.Array, mask: jax.Array,
          key: jax.Array) -> jax.Array:
    explore_key, sample_key = jax.random.split(key)
    values = self.network.apply(state.train.params, observation)
    random_actions = masking.masked_sample(sample_key, jnp.zeros(mask.shape),
                                           mask)
    explore = jax.random.uniform(explore_key, mask.shape[:1]) < self.epsilon(
        state.env_steps)
    return jnp.where(explore, random_actions,
                     masking.masked_argmax(values, mask))

  def _loss(self, params, net_state, target_params, batch):
    loss = double_q_loss(self.network.apply, params, target_params, batch,
                         self.config.discount)
    return loss, (net_state, loss)

  def train(self, train: training.TrainState, buffer: buffers.Buffer,
            key: jax.Array) -> tuple[training.TrainState, jax.Array]:
    """`updates_per_train` updates on batches of `buffer`; returns the mean
    loss."""
    config = self.config

    def one_update(train, update_key):
      batch = buffers.sample(buffer, update_key, config.batch_size)
      train, loss = self._update(train, train.target_params, batch)
      refresh = train.step % config.target_update_every == 0
      train = jax.lax.cond(refresh, training.copy_to_target, lambda t: t,
                           train)
      return train, loss

    train, losses = jax.lax.scan(
        one_update, train, jax.random.split(key, config.updates_per_train))
    return train, losses.mean()

  def observe(self, state: State, transition: learner_lib.Transition,
              key: jax.Array) -> tuple[State, dict[str, jax.Array]]:
    return self.learn(state, transition,
                      jnp.ones(transition.action.shape, bool), key)

  def learn(self, state: State, transitions: learner_lib.Transition,
            valid: jax.Array, key: jax.Array
           ) -> tuple[State, dict[str, jax.Array]]:
    """Stores the `valid` transitions of one batched step and trains when
    due (`observe` for learners whose every transition is valid)."""
    config = self.config
    buffer = buffers.add(state.buffer, transitions, valid)
    env_steps = state.env_steps + 1
    due = (buffer.size >= max(config.learning_starts, 1)) & (
        env_steps % config.train_every == 0)
    idle = jnp.float32(learner_lib.NOT_TRAINED)
    train, loss = jax.lax.cond(due, self.train, lambda t, b, k: (t, idle),
                               state.train, buffer, key)
    return State(train, buffer, env_steps), {
        "loss": loss, "epsilon": self.epsilon(env_steps)}

  def played(self, state: State) -> learner_lib.LearnedPolicy:
    return learner_lib.LearnedPolicy(self._greedy, state.train.params)
