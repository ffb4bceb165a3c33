"""PPO: its continuous mode on a task with a known optimum, GAE against a
hand computation, the squashed Gaussian's density, and config checks (its
discrete mode's Kuhn best responses are in rl_test.py)."""

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import integrate

from open_spiel_ext.algorithms.rl import learner
from open_spiel_ext.algorithms.rl import ppo


class _TaskState(NamedTuple):
  observation: jax.Array
  key: jax.Array


class _OneStepTask:
  """Each step: observe x ~ U(-1, 1)², act a ∈ (-1, 1)², receive
  -|a - a*(x)|², a*(x) = (0.6 x0 - 0.3, -0.5 x1); every step ends a game."""

  num_actions = 2
  observation_shape = (2,)

  @staticmethod
  def optimum(observation: jax.Array) -> jax.Array:
    return jnp.stack([0.6 * observation[:, 0] - 0.3,
                      -0.5 * observation[:, 1]], -1)

  def init(self, key: jax.Array, batch: int) -> _TaskState:
    observation_key, key = jax.random.split(key)
    return _TaskState(jax.random.uniform(observation_key, (batch, 2),
                                         minval=-1, maxval=1), key)

  def observation(self, state: _TaskState) -> jax.Array:
    return state.observation

  def legal_mask(self, state: _TaskState) -> jax.Array:
    return jnp.ones((state.observation.shape[0], 1), bool)

  def play(self, state, actions, params, weights):
    del params, weights
    reward = -((actions - self.optimum(state.observation))**2).sum(-1)
    batch = state.observation.shape[0]
    return (self.init(state.key, batch), reward, jnp.ones(batch, bool))


def _played_error(learned: ppo.PPO, state: ppo.State) -> float:
  observation = jax.random.uniform(jax.random.PRNGKey(7), (4096, 2),
                                   minval=-1, maxval=1)
  policy = learned.played(state)
  actions = policy.apply(policy.params, observation)
  return float(jnp.abs(actions - _OneStepTask.optimum(observation)).mean())


def test_continuous_ppo_learns_a_one_step_task_with_a_known_optimum():
  task, batch = _OneStepTask(), 64
  learned = ppo.PPO(ppo.Config(continuous=True, hidden_sizes=(64, 64),
                               learning_rate=3e-3, entropy_coef=0.0,
                               log_std_init=-1.0),
                    task.observation_shape, task.num_actions, batch)
  carry = learner.init_carry(learned, task, jax.random.PRNGKey(0), batch)
  untrained = _played_error(learned, carry.learner)
  train_steps = learner.make_train_steps(learned, task)
  carry, metrics = train_steps(carry, (), jnp.ones(1), 3_000)
  trained = _played_error(learned, carry.learner)
  assert untrained > 0.2
  assert trained < 0.05, (untrained, trained)
  assert int(metrics.episodes) == 3_000 * batch


class _EdgeTask(_OneStepTask):
  """The best action is at the edge of the range the game clips to."""

  def play(self, state, actions, params, weights):
    del params, weights
    reward = jnp.clip(actions, -1.0, 1.0).sum(-1)
    batch = state.observation.shape[0]
    return (self.init(state.key, batch), reward, jnp.ones(batch, bool))


def test_continuous_ppo_stays_finite_with_the_best_action_at_an_edge():
  # A tanh-squashed Gaussian turned to NaN here (the Loss Game's case).
  task, batch = _EdgeTask(), 64
  learned = ppo.PPO(ppo.Config(continuous=True, hidden_sizes=(16,),
                               learning_rate=3e-3, entropy_coef=0.0),
                    task.observation_shape, task.num_actions, batch)
  carry = learner.init_carry(learned, task, jax.random.PRNGKey(0), batch)
  train_steps = learner.make_train_steps(learned, task)
  carry, metrics = train_steps(carry, (), jnp.ones(1), 2_000)
  params = carry.learner.train.params
  assert all(bool(jnp.isfinite(leaf).all()) for leaf in
             jax.tree.leaves(params))
  assert float(metrics.learner["approx_kl"]) < 0.1
  policy = learned.played(carry.learner)
  actions = policy.apply(policy.params, jnp.zeros((8, 2)))
  np.testing.assert_allclose(actions, 1.0)


def _small_ppo():
  """A small PPO on the one-step task, rollouts of 4 steps of 8 games."""
  task, batch = _OneStepTask(), 8
  learned = ppo.PPO(ppo.Config(continuous=True, hidden_sizes=(8,),
                               rollout_length=4, minibatches=2),
                    task.observation_shape, task.num_actions, batch)
  carry = learner.init_carry(learned, task, jax.random.PRNGKey(0), batch)
  return task, batch, learned, carry, learner.make_train_steps(learned, task)


def test_a_portable_carry_keeps_what_was_learned_and_trains_on():
  task, batch, learned, carry, train_steps = _small_ppo()
  carry, _ = train_steps(carry, (), jnp.ones(1), 6)  # Mid-rollout.
  assert int(carry.learner.step) == 2
  portable = learner.portable_carry(learned, carry)
  assert portable.env is None and portable.learner.rollout is None
  whole = learner.whole_carry(learned, task, portable, batch)
  assert int(whole.learner.step) == 0 and whole.env.observation.shape == (
      batch, 2)
  assert not jnp.any(whole.learner.rollout.observation)
  assert jax.tree.all(jax.tree.map(jnp.array_equal, whole.learner.train,
                                   carry.learner.train))
  whole, _ = train_steps(whole, (), jnp.ones(1), 4)  # A full rollout again.
  assert not jax.tree.all(jax.tree.map(jnp.array_equal, whole.learner.train,
                                       carry.learner.train))
  assert learner.whole_carry(learned, task, carry, batch) is carry


def test_a_compact_carry_between_rollouts_trains_on_exactly_alike():
  task, batch, learned, carry, train_steps = _small_ppo()
  carry, _ = train_steps(carry, (), jnp.ones(1), 8)  # Two whole rollouts.
  compact = learner.compact_carry(learned, carry)
  assert compact.learner.rollout is None and compact.env is not None
  again = learner.whole_carry(learned, task, compact, batch)
  one, _ = train_steps(carry, (), jnp.ones(1), 4)
  other, _ = train_steps(again, (), jnp.ones(1), 4)
  assert jax.tree.all(jax.tree.map(jnp.array_equal, one.learner.train,
                                   other.learner.train))
  # Mid-rollout the rollout is kept.
  middle, _ = train_steps(carry, (), jnp.ones(1), 2)
  assert learner.compact_carry(learned, middle).learner.rollout is not None


def test_gae_matches_a_hand_computation():
  rewards = np.array([[1.0], [0.0], [2.0]])
  values = np.array([[0.5], [0.2], [0.1]])
  done = np.array([[False], [True], [False]])
  last_value, discount, lam = np.array([0.3]), 0.9, 0.8
  rollout = ppo.Rollout(None, None, None, jnp.asarray(rewards),
                        jnp.asarray(done), None, jnp.asarray(values))
  advantages, returns = ppo.gae(rollout, jnp.asarray(last_value), discount,
                                lam)
  delta2 = 2.0 + discount * 0.3 - 0.1
  delta1 = 0.0 - 0.2  # The game ends: no bootstrap.
  delta0 = 1.0 + discount * 0.2 - 0.5
  expected = [delta0 + discount * lam * delta1, delta1, delta2]
  np.testing.assert_allclose(np.asarray(advantages)[:, 0], expected,
                             atol=1e-6)
  np.testing.assert_allclose(np.asarray(returns), np.asarray(advantages) +
                             values, atol=1e-6)


def test_gaussian_log_prob_is_a_density():
  mean, log_std = jnp.array([[0.4]]), jnp.array([-0.3])
  density = lambda a: float(jnp.exp(ppo.gaussian_log_prob(
      mean, log_std, jnp.array([[a]])))[0])
  total, _ = integrate.quad(density, -np.inf, np.inf, limit=200)
  assert total == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize("fields, message", [
    ({"learning_rate": -0.1}, "learning_rate=-0.1"),
    ({"clip_epsilon": 0.0}, "clip_epsilon=0.0"),
    ({"gae_lambda": 1.5}, "gae_lambda=1.5"),
    ({"entropy_coef": -1.0}, "entropy_coef=-1.0"),
    ({"shared_trunk": True, "continuous": True}, "shared_trunk=True"),
])
def test_bad_configs_are_refused_naming_the_value(fields, message):
  with pytest.raises(ValueError, match=message):
    ppo.Config(**fields)


def test_a_rollout_that_does_not_split_into_minibatches_is_refused():
  with pytest.raises(ValueError, match="minibatches=3"):
    ppo.PPO(ppo.Config(rollout_length=16, minibatches=3), (4,), 2, batch=8)
