"""Discrete SAC: its config checks, its masks of illegal actions, its
temperature and reproducibility (its Kuhn best responses, measured exactly,
are in rl_test.py)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel_ext.algorithms.rl import learner
from open_spiel_ext.algorithms.rl import opponents
from open_spiel_ext.algorithms.rl import sac
from open_spiel_ext.algorithms.rl import versus
from open_spiel_ext.games import batched_poker

NUM_ENVS = 64


def _trainer(config: sac.Config, env, num_envs: int = NUM_ENVS):
  """(the learner, run): run(steps, seed) -> (the learner's state, the
  metrics of its run) after `steps` batched steps against the uniform
  policy (compiled once for every run)."""
  uniform = opponents.uniform()
  versus_env = versus.VersusEnv(env, uniform)
  sac_learner = sac.SAC(config, versus_env.observation_shape,
                        versus_env.num_actions, num_envs)
  train_steps = learner.make_train_steps(sac_learner, versus_env)

  def run(steps: int, seed: int = 0):
    carry = learner.init_carry(sac_learner, versus_env,
                               jax.random.PRNGKey(seed), num_envs)
    carry, metrics = train_steps(carry, uniform.params, uniform.weights,
                                 steps)
    return carry.learner, metrics

  return sac_learner, run


def test_a_learned_temperature_falls_while_entropy_is_above_its_target():
  # Kuhn best responses learned with SAC are measured in rl_test.py.
  config = sac.Config(learning_starts=64, batch_size=32)
  _, run = _trainer(config, batched_poker.kuhn_poker(auto_reset=True),
                    num_envs=8)
  _, metrics = run(200)
  assert float(metrics.learner["alpha"]) < config.alpha


@pytest.mark.parametrize("make_config, message", [
    (lambda: sac.Config(learning_rate=-0.1), "learning_rate=-0.1"),
    (lambda: sac.Config(policy_learning_rate=0), "policy_learning_rate=0"),
    (lambda: sac.Config(tau=0), "tau=0"),
    (lambda: sac.Config(tau=1.5), "tau=1.5"),
    (lambda: sac.Config(target_entropy_scale=-0.1),
     "target_entropy_scale=-0.1"),
    (lambda: sac.Config(target_entropy_scale=1.2), "target_entropy_scale=1.2"),
    (lambda: sac.Config(alpha=0), "alpha=0"),
    (lambda: sac.Config(hidden_sizes=()), r"hidden_sizes=\(\)"),
])
def test_bad_configs_are_refused_naming_the_value(make_config, message):
  with pytest.raises(ValueError, match=message):
    make_config()


@pytest.mark.slow
def test_illegal_actions_get_no_probability():
  """With logits that favour the illegal actions of Leduc's real masks (fold
  when nothing is owed, raise after the last raise), the policy gives them
  probability 0 and never plays them, and its entropy is over the legal
  ones."""
  versus_env = versus.VersusEnv(batched_poker.leduc_poker(auto_reset=True),
                                opponents.uniform())
  env_state = versus_env.init(jax.random.PRNGKey(0), 512)
  sac_learner = sac.SAC(sac.Config(), versus_env.observation_shape,
                        versus_env.num_actions, 512)
  state = sac_learner.init(jax.random.PRNGKey(1))
  policy = state.networks.policy
  head = dict(policy.params["policy/head"], b=jnp.array([30.0, 0.0, 30.0]))
  state = state._replace(networks=state.networks._replace(
      policy=policy._replace(params={**policy.params, "policy/head": head})))
  masks = observations = None
  for step in range(4):  # Reach states where fold or raise is illegal.
    observations = versus_env.observation(env_state)
    masks = versus_env.legal_mask(env_state)
    actions = sac_learner.act(state, observations, masks,
                              jax.random.PRNGKey(step))
    assert np.all(np.asarray(masks)[np.arange(512), np.asarray(actions)])
    env_state, _, _ = versus_env.step(env_state, actions)
  assert not np.asarray(masks).all()
  played = sac_learner.played(state)
  probs, log_probs = sac.policy_terms(played.apply(played.params,
                                                   observations), masks)
  np.testing.assert_array_equal(np.asarray(probs)[~np.asarray(masks)], 0)
  np.testing.assert_array_equal(np.asarray(log_probs)[~np.asarray(masks)], 0)
  np.testing.assert_allclose(np.asarray(probs).sum(-1), 1, rtol=1e-6)
  uniform_logits = jnp.zeros(masks.shape)
  np.testing.assert_allclose(sac.entropy(uniform_logits, masks),
                             sac.max_entropy(masks), rtol=1e-6)
  np.testing.assert_allclose(sac.max_entropy(masks),
                             np.log(np.asarray(masks).sum(-1)), rtol=1e-6)


def test_a_fixed_temperature_stays():
  config = sac.Config(learn_alpha=False, alpha=0.2, learning_starts=64,
                      batch_size=32)
  _, run = _trainer(config, batched_poker.kuhn_poker(auto_reset=True),
                    num_envs=8)
  state, metrics = run(20)
  assert int(state.networks.policy.step) > 0
  assert float(metrics.learner["alpha"]) == pytest.approx(0.2)


def test_the_same_seed_gives_the_same_parameters():
  config = sac.Config(learning_starts=100, batch_size=32,
                      buffer_capacity=2_000)
  _, run = _trainer(config, batched_poker.kuhn_poker(auto_reset=True),
                    num_envs=16)
  first, second, other = (run(100, seed)[0] for seed in (3, 3, 4))
  assert int(first.networks.critic.step) > 0
  for a, b in zip(jax.tree.leaves(first), jax.tree.leaves(second)):
    np.testing.assert_array_equal(a, b)
  assert not np.array_equal(first.networks.policy.params["policy/head"]["w"],
                            other.networks.policy.params["policy/head"]["w"])
