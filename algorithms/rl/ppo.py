"""Proximal policy optimisation on batched environments, for discrete actions
(with masks for illegal actions) or continuous ones.

PPO (Schulman et al., 2017) with clipped surrogate and generalised advantage
estimation, as a learner of `learner.py`. The policy and the value function
are separate networks, MLPs or the Stratego convolutions (`networks.py`), by
default: poker's returns, up to ±13 chips in Leduc, would make the value
loss dominate shared features. With `shared_trunk` they are two heads on one
trunk (`networks.build_actor_critic`), computed once instead of twice, for
games whose returns are small (Stratego's ±1: 8 minutes on one core against
the random bot took 1.23 times as many steps and won 85.0% of 400 games,
against 76.2% with two networks; `examples/stratego_p2sro.py`). Each
batched step's transition goes
into a rollout of `rollout_length` steps kept in the state (arrays
[T, B, ...]), with the log-probability and value of the action
under the parameters that chose it (they change only at the end of a
rollout, so `observe` recomputes them from those parameters). The step that
fills the rollout:

- computes GAE advantages (γ = `discount`, λ = `gae_lambda`) and returns,
  bootstrapping from the value of the last transition's next observation; a
  `done` step cuts the bootstrap (after a game ends, the next observation is
  the next game's);
- runs `epochs` epochs, each over the rollout shuffled into `minibatches`
  minibatches, of updates of the clipped surrogate + `value_coef` × the
  squared value error − `entropy_coef` × the entropy; advantages are
  normalised per minibatch (zero mean, unit standard deviation).

Discrete mode: the policy's logits are soft-maxed over the legal actions
(`nn/masking.py`); the learner explores by sampling it and plays it when it
is done (`played` gives its logits).

Continuous mode (`Config(continuous=True)`, `num_actions` the action
dimension): actions are Gaussian, their mean from the policy network and
their log standard deviation a learned parameter independent of the state
(starting at `log_std_init`, kept within LOG_STD_RANGE), and the game clips
them to its range, [-1, 1]^dim (as RLlib's PPO, which the NXDO reference
ran, does). The transition keeps the unclipped sample, so its
log-probability is exact. (A tanh-squashed Gaussian, tried first, broke
where the best action is at an edge, the Loss Game's longest step: the mean
grew without bound, tanh rounded to ±1 in float32, atanh of the stored
action no longer recovered the sample, and the log-probability ratios
overflowed into NaN parameters.) The mask is ignored. `played` gives the
deterministic action, the mean clipped to [-1, 1], not logits.
"""

import dataclasses
import math
from typing import NamedTuple, Optional

import haiku as hk
import jax
import jax.numpy as jnp
import optax

from open_spiel_ext.algorithms.nn import masking
from open_spiel_ext.algorithms.nn import training
from open_spiel_ext.algorithms.rl import learner as learner_lib
from open_spiel_ext.algorithms.rl import networks
from open_spiel_ext.algorithms.rl import sac

# Continuous mode's bounds on the log std (std from 0.0067 to 7.4).
LOG_STD_RANGE = (-5.0, 2.0)
_HALF_LOG_2_PI_E = 0.5 * math.log(2 * math.pi * math.e)


@dataclasses.dataclass(frozen=True)
class Config:
  """PPO's settings."""
  hidden_sizes: tuple[int, ...] = (128, 128)  # Of each network.
  network: str = "mlp"  # A name of networks.registered_networks().
  learning_rate: float = 1e-3
  rollout_length: int = 32  # Batched steps per rollout.
  epochs: int = 4  # Passes over each rollout.
  minibatches: int = 4  # Per epoch; they split rollout_length × batch.
  discount: float = 1.0
  gae_lambda: float = 0.95
  clip_epsilon: float = 0.2
  value_coef: float = 0.5
  entropy_coef: float = 0.01
  max_grad_norm: float = 0.5
  continuous: bool = False  # Gaussian actions (module docstring).
  log_std_init: float = 0.0  # Continuous mode's starting log std.
  shared_trunk: bool = False  # Policy and value heads on one trunk.

  def __post_init__(self):
    learner_lib.check_positive(self, "learning_rate", "rollout_length",
                               "epochs", "minibatches", "clip_epsilon",
                               "max_grad_norm")
    learner_lib.check_unit_interval(self, "discount", "gae_lambda")
    learner_lib.check_non_negative(self, "value_coef", "entropy_coef")
    learner_lib.check_widths(self, "hidden_sizes")
    networks.check(self.network)
    if self.shared_trunk and self.continuous:
      raise ValueError("shared_trunk is for discrete actions, got "
                       "shared_trunk=True with continuous=True")


class Params(NamedTuple):
  policy: hk.Params  # Logits (discrete) or the Gaussian's mean (continuous);
  # with a shared trunk, both heads.
  value: hk.Params  # Empty with a shared trunk.
  log_std: Optional[jax.Array]  # [dim] in continuous mode, else None.


class Rollout(NamedTuple):
  """A rollout's steps, [T, B, ...] (a batch of them for the update)."""
  observation: jax.Array
  mask: Optional[jax.Array]  # None in continuous mode.
  action: jax.Array
  reward: jax.Array
  done: jax.Array
  log_prob: jax.Array  # Of the action, under the parameters that chose it.
  value: jax.Array  # Of the observation, under those parameters.


class Batch(NamedTuple):
  """A minibatch of rollout steps with their advantages and returns."""
  steps: Rollout
  advantage: jax.Array
  target: jax.Array  # The value's regression target (the GAE return).


class State(NamedTuple):
  train: training.TrainState
  rollout: Optional[Rollout]  # None in a `portable` state.
  step: jax.Array  # Steps stored in the current rollout.


def gae(rollout: Rollout, last_value: jax.Array, discount: float,
        gae_lambda: float) -> tuple[jax.Array, jax.Array]:
  """GAE advantages and returns [T, B] of a rollout, bootstrapped from
  `last_value` [B] (the value after its last step) where no game ended."""

  def backwards(carry, step):
    advantage, next_value = carry
    reward, value, done = step
    live = 1.0 - done
    delta = reward + discount * live * next_value - value
    advantage = delta + discount * gae_lambda * live * advantage
    return (advantage, value), advantage

  _, advantages = jax.lax.scan(
      backwards, (jnp.zeros_like(last_value), last_value),
      (rollout.reward, rollout.value, rollout.done.astype(jnp.float32)),
      reverse=True)
  return advantages, advantages + rollout.value


def gaussian_log_prob(mean: jax.Array, log_std: jax.Array,
                      action: jax.Array) -> jax.Array:
  """log density [B] of actions [B, dim] under N(mean, exp(log_std)²)."""
  return (-0.5 * ((action - mean) / jnp.exp(log_std))**2 - log_std -
          0.5 * math.log(2 * math.pi)).sum(-1)


def _bounded(log_std: jax.Array) -> jax.Array:
  return jnp.clip(log_std, *LOG_STD_RANGE)


def _normalised(advantage: jax.Array) -> jax.Array:
  return (advantage - advantage.mean()) / (advantage.std() + 1e-8)


class PPO:
  """PPO as a learner of `learner.py` (see the module docstring)."""

  def __init__(self, config: Config, observation_shape: tuple[int, ...],
               num_actions: int, batch: int):
    samples = config.rollout_length * batch
    if samples % config.minibatches:
      raise ValueError(
          f"rollout_length × batch must split into minibatches, got "
          f"rollout_length={config.rollout_length}, batch={batch}, "
          f"minibatches={config.minibatches}")
    self.config = config
    self.policy = networks.build_policy(config.network, config.hidden_sizes,
                                        num_actions, config.shared_trunk)
    if config.shared_trunk:
      both = networks.build_actor_critic(config.network, config.hidden_sizes,
                                         num_actions, "policy")
      self._outputs_of = lambda params, x: both.apply(params.policy, x)
      self.value = None
    else:
      self.value = networks.build(config.network, config.hidden_sizes, 1,
                                  "value")
      self._outputs_of = lambda params, x: (
          self.policy.apply(params.policy, x),
          self.value.apply(params.value, x))
    self.observation_shape = tuple(observation_shape)
    self.num_actions = num_actions
    self.batch = batch
    self.optimizer = optax.chain(
        optax.clip_by_global_norm(config.max_grad_norm),
        optax.adam(config.learning_rate))
    self._update = training.make_update(self._loss, self.optimizer)
    self._played_apply = (self._deterministic_action if config.continuous
                          else self.policy.apply)

  def init(self, key: jax.Array) -> State:
    policy_key, value_key = jax.random.split(key)
    observation = jnp.zeros((1,) + self.observation_shape, jnp.float32)
    log_std = (jnp.full(self.num_actions, self.config.log_std_init,
                        jnp.float32) if self.config.continuous else None)
    params = Params(self.policy.init(policy_key, observation),
                    self.value.init(value_key, observation)
                    if self.value else {}, log_std)
    train = training.init_train_state(params, {}, self.optimizer)
    return State(train, self._empty_rollout(), jnp.int32(0))

  def _empty_rollout(self) -> Rollout:
    steps = (self.config.rollout_length, self.batch)
    zeros = jnp.zeros(steps, jnp.float32)
    if self.config.continuous:
      mask = None
      action = jnp.zeros(steps + (self.num_actions,), jnp.float32)
    else:
      mask = jnp.zeros(steps + (self.num_actions,), bool)
      action = jnp.zeros(steps, jnp.int32)
    return Rollout(jnp.zeros(steps + self.observation_shape, jnp.float32),
                   mask, action, zeros, jnp.zeros(steps, bool), zeros, zeros)

  def act(self, state: State, observation: jax.Array, mask: jax.Array,
          key: jax.Array) -> jax.Array:
    params = state.train.params
    output = self.policy.apply(params.policy, observation)
    if self.config.continuous:
      noise = jax.random.normal(key, output.shape)
      return output + jnp.exp(_bounded(params.log_std)) * noise
    return masking.masked_sample(key, output, mask)

  def _deterministic_action(self, policy_params: hk.Params,
                            observation: jax.Array) -> jax.Array:
    return jnp.clip(self.policy.apply(policy_params, observation), -1.0, 1.0)

  def _outputs(self, params: Params, observation: jax.Array
              ) -> tuple[jax.Array, jax.Array]:
    """The policy's output (logits or mean) and the value [B], in one pass
    of a shared trunk."""
    output, value = self._outputs_of(params, observation)
    return output, value[:, 0]

  def _log_prob_and_entropy(self, params: Params, output: jax.Array,
                            mask: Optional[jax.Array], action: jax.Array
                           ) -> tuple[jax.Array, jax.Array]:
    """The log-probability [B] of `action` and the policy's entropy [B],
    from the policy's `output` on the observations."""
    if self.config.continuous:
      log_std = _bounded(params.log_std)
      entropy = (log_std + _HALF_LOG_2_PI_E).sum() * jnp.ones(
          output.shape[:1])
      return gaussian_log_prob(output, log_std, action), entropy
    log_probs = masking.masked_log_softmax(output, mask)
    log_prob = jnp.take_along_axis(log_probs, action[:, None], -1)[:, 0]
    return log_prob, sac.entropy(output, mask)

  def _loss(self, params: Params, net_state: hk.State, batch: Batch):
    """Clipped surrogate + value_coef × squared error − entropy_coef ×
    entropy; its aux is the metrics."""
    config = self.config
    steps = batch.steps
    output, value = self._outputs(params, steps.observation)
    log_prob, entropy = self._log_prob_and_entropy(
        params, output, steps.mask, steps.action)
    ratio = jnp.exp(log_prob - steps.log_prob)
    advantage = _normalised(batch.advantage)
    clipped = jnp.clip(ratio, 1.0 - config.clip_epsilon,
                       1.0 + config.clip_epsilon)
    policy_loss = -jnp.mean(jnp.minimum(ratio * advantage,
                                        clipped * advantage))
    value_loss = 0.5 * jnp.mean((value - batch.target)**2)
    loss = (policy_loss + config.value_coef * value_loss -
            config.entropy_coef * entropy.mean())
    return loss, (net_state, {
        "policy_loss": policy_loss, "value_loss": value_loss,
        "entropy": entropy.mean(),
        "approx_kl": jnp.mean((ratio - 1.0) - (log_prob - steps.log_prob))})

  def _minibatches(self, batch: Batch, key: jax.Array) -> Batch:
    """`batch` [N, ...] shuffled into [minibatches, N / minibatches, ...]."""
    order = jax.random.permutation(key, self.batch *
                                   self.config.rollout_length)
    return jax.tree.map(
        lambda x: x[order].reshape((self.config.minibatches, -1) +
                                   x.shape[1:]), batch)

  def train(self, train: training.TrainState, rollout: Rollout,
            next_observation: jax.Array, key: jax.Array
           ) -> tuple[training.TrainState, dict[str, jax.Array]]:
    """`epochs` epochs of minibatch updates on a full rollout; returns the
    mean metrics."""
    config = self.config
    advantage, target = gae(
        rollout, self._outputs(train.params, next_observation)[1],
        config.discount, config.gae_lambda)
    flat = jax.tree.map(lambda x: x.reshape((-1,) + x.shape[2:]),
                        Batch(rollout, advantage, target))

    def epoch(train, epoch_key):
      return jax.lax.scan(self._update, train,
                          self._minibatches(flat, epoch_key))

    train, metrics = jax.lax.scan(epoch, train,
                                  jax.random.split(key, config.epochs))
    return train, jax.tree.map(jnp.mean, metrics)

  def observe(self, state: State, transition: learner_lib.Transition,
              key: jax.Array) -> tuple[State, dict[str, jax.Array]]:
    params = state.train.params
    mask = None if self.config.continuous else transition.mask
    output, value = self._outputs(params, transition.observation)
    log_prob, _ = self._log_prob_and_entropy(params, output, mask,
                                             transition.action)
    row = Rollout(transition.observation, mask, transition.action,
                  transition.reward, transition.done, log_prob, value)
    rollout = jax.tree.map(lambda stored, new: stored.at[state.step].set(new),
                           state.rollout, row)
    step = state.step + 1
    idle = {name: jnp.float32(learner_lib.NOT_TRAINED) for name in
            ("policy_loss", "value_loss", "entropy", "approx_kl")}
    train, metrics = jax.lax.cond(
        step == self.config.rollout_length, self.train,
        lambda t, r, o, k: (t, idle), state.train, rollout,
        transition.next_observation, key)
    return State(train, rollout, step % self.config.rollout_length), metrics

  def portable(self, state: State) -> State:
    """`state` without its rollout (`learner.portable_carry`): the steps
    collected since the last update are dropped."""
    return State(state.train, None, jnp.int32(0))

  def compact(self, state: State) -> State:
    """`state` as a checkpoint keeps it: between rollouts (step 0, where
    nothing in the rollout is read again) without the rollout, else whole;
    `whole` restores it exactly."""
    return self.portable(state) if int(state.step) == 0 else state

  def whole(self, state: State) -> State:
    """A `portable` state with an empty rollout again."""
    if state.rollout is not None:
      return state
    return state._replace(rollout=self._empty_rollout())

  def played(self, state: State) -> learner_lib.LearnedPolicy:
    """The softmax policy of the logits (discrete), or the deterministic
    action, the mean clipped to [-1, 1] (continuous)."""
    return learner_lib.LearnedPolicy(self._played_apply,
                                     state.train.params.policy)
