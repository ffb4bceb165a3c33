"""Tests of NXDO's restricted games and of its meta-policy as a policy of the
original game."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel_ext.algorithms.nxdo import meta_ne
from open_spiel_ext.algorithms.nxdo import restricted_game
from open_spiel_ext.algorithms.rl import network_policies
from open_spiel_ext.algorithms.rl import opponents
from open_spiel_ext.algorithms.tree import game_tree
from open_spiel_ext.algorithms.tree import sweeps
from open_spiel_ext.games import batched_loss_game
from open_spiel_ext.games import batched_poker
import pyspiel

SHARPNESS = 1e4  # Logits this steep make a linear policy pure.


def linear_apply(params, observation):
  return SHARPNESS * observation @ params


def pure_members(env, count: int, seed: int = 0) -> list[np.ndarray]:
  """Random pure policies: argmax of a random linear function."""
  rng = np.random.default_rng(seed)
  size = env.observation_shape[0]
  return [jnp.asarray(rng.normal(size=(size, env.num_actions)), jnp.float32)
          for _ in range(count)]


def pure_action(member, observation, mask):
  return np.asarray(jnp.argmax(
      jnp.where(mask, linear_apply(member, observation), -jnp.inf), axis=-1))


@pytest.mark.parametrize("engine", [batched_poker.kuhn_poker,
                                    batched_poker.leduc_poker])
def test_meta_actions_play_the_chosen_members_actions(engine):
  env = engine(auto_reset=True)
  members = pure_members(env, 5)
  restricted = restricted_game.RestrictedGame(env, linear_apply, members)
  assert restricted.num_actions == 8  # Capacity: the next power of two >= 8.
  keys = jax.random.split(jax.random.PRNGKey(3), 16)
  state, expected = restricted.init(keys), env.init(keys)
  step, env_step = jax.jit(restricted.step), jax.jit(env.step)
  rng = np.random.default_rng(4)
  rows = np.arange(16)
  for _ in range(40):
    np.testing.assert_array_equal(state.observation, expected.observation)
    np.testing.assert_array_equal(state.legal_action_mask,
                                  np.tile(np.arange(8) < 5, (16, 1)))
    meta_actions = rng.integers(0, 5, 16)
    player = np.asarray(expected.current_player)
    observation = np.asarray(expected.observation)[rows, player]
    actions = np.array([
        pure_action(members[k], observation[i], expected.legal_action_mask[i])
        for i, k in enumerate(meta_actions)])
    state = step(state, jnp.asarray(meta_actions))
    expected = env_step(expected, jnp.asarray(actions))
    np.testing.assert_array_equal(state.rewards, expected.rewards)


def test_valid_actions_are_the_union_of_the_members_actions():
  env = batched_poker.leduc_poker(clones=2, auto_reset=True)
  members = pure_members(env, 3, seed=1)
  restricted = restricted_game.RestrictedGame(env, linear_apply, members,
                                              variant="nxdo_va", capacity=4)
  assert restricted.num_actions == env.num_actions
  state = restricted.init(jax.random.split(jax.random.PRNGKey(0), 32))
  step = jax.jit(restricted.step)
  rng = np.random.default_rng(5)
  rows = np.arange(32)
  for _ in range(30):
    inner = state.inner
    observation = np.asarray(inner.observation)[rows, np.maximum(
        np.asarray(inner.current_player), 0)]
    expected = np.zeros_like(np.asarray(inner.legal_action_mask))
    for member in members:
      actions = pure_action(member, observation, inner.legal_action_mask)
      expected[rows, actions] = True
    expected &= np.asarray(inner.legal_action_mask)
    np.testing.assert_array_equal(state.legal_action_mask, expected)
    mask = np.asarray(state.legal_action_mask)
    state = step(state, jnp.asarray([rng.choice(np.flatnonzero(row))
                                     for row in mask]))


def test_padding_members_are_not_members():
  env = batched_poker.kuhn_poker(auto_reset=True)
  members = pure_members(env, 2)
  restricted = restricted_game.RestrictedGame(env, linear_apply, members,
                                              capacity=16)
  state = restricted.init(jax.random.split(jax.random.PRNGKey(0), 4))
  assert np.asarray(state.legal_action_mask).sum(axis=1).tolist() == [2] * 4


def test_meta_policy_mixes_the_members_policies():
  game = pyspiel.load_game("kuhn_poker")
  tree = game_tree.build_tree(game)
  env = batched_poker.kuhn_poker(auto_reset=True)
  members = pure_members(env, 3, seed=2)
  restricted = restricted_game.RestrictedGame(env, linear_apply, members)
  tables = [opponents.network(linear_apply, m).members_table(tree, 1)[0]
            for m in members]
  # A uniform meta-policy mixes the members equally at every state...
  uniform = meta_ne.meta_policy(restricted, lambda p, x: jnp.zeros(
      (x.shape[0], restricted.num_actions)), None)
  np.testing.assert_allclose(uniform.members_table(tree, 1)[0],
                             np.mean(tables, axis=0), atol=1e-6)
  # ... and one that always picks member 1 plays member 1.
  pick = meta_ne.meta_policy(
      restricted, lambda p, x: SHARPNESS * jax.nn.one_hot(
          jnp.full(x.shape[0], 1), restricted.num_actions), None)
  np.testing.assert_allclose(pick.members_table(tree, 1)[0], tables[1],
                             atol=1e-6)
  value = sweeps.TreeSweeps(tree).exploitability(
      pick.members_table(tree, 1)[0])
  assert value == pytest.approx(sweeps.TreeSweeps(tree).exploitability(
      network_policies.tabulate(tree, lambda t, p: np.asarray(
          linear_apply(members[1], t)))), abs=1e-6)


def test_meta_policy_acts_like_its_table():
  env = batched_poker.kuhn_poker(auto_reset=True)
  members = pure_members(env, 2, seed=3)
  restricted = restricted_game.RestrictedGame(env, linear_apply, members)
  pick = meta_ne.meta_policy(
      restricted, lambda p, x: SHARPNESS * jax.nn.one_hot(
          jnp.zeros(x.shape[0], jnp.int32), restricted.num_actions), None)
  state = env.init(jax.random.split(jax.random.PRNGKey(1), 64))
  rows = np.arange(64)
  observation = state.observation[rows, state.current_player]
  actions = pick.act(pick.params, observation, state.legal_action_mask,
                     jnp.zeros(64, jnp.int32), jax.random.PRNGKey(2))
  np.testing.assert_array_equal(
      actions, pure_action(members[0], observation, state.legal_action_mask))


def test_bad_restricted_games_are_refused():
  env = batched_poker.kuhn_poker(auto_reset=True)
  members = pure_members(env, 3)
  with pytest.raises(ValueError, match="variant must be one of"):
    restricted_game.RestrictedGame(env, linear_apply, members, variant="xdo")
  with pytest.raises(ValueError, match="do not fit capacity=2"):
    restricted_game.RestrictedGame(env, linear_apply, members, capacity=2)
  with pytest.raises(ValueError, match="at least one population member"):
    restricted_game.RestrictedGame(env, linear_apply, [])
  with pytest.raises(ValueError, match="va_threshold must be in"):
    restricted_game.RestrictedGame(env, linear_apply, members,
                                   variant="nxdo_va", va_threshold=0.0)


def test_continuous_members_play_their_actions():
  env = batched_loss_game.TurnBasedLossGame("loss_game(bins=2,moves=3)",
                                            auto_reset=True, continuous=True)
  rng = np.random.default_rng(6)
  members = [jnp.asarray(rng.normal(size=(env.observation_shape[0], 2)),
                         jnp.float32) for _ in range(3)]
  act = lambda params, observation: jnp.tanh(observation @ params)
  restricted = restricted_game.RestrictedGame(env, act, members)
  keys = jax.random.split(jax.random.PRNGKey(0), 8)
  state, expected = restricted.init(keys), env.init(keys)
  rows = np.arange(8)
  for _ in range(12):
    meta_actions = rng.integers(0, 3, 8)
    observation = expected.observation[rows, expected.current_player]
    actions = jnp.stack([act(members[k], observation[i][None])[0]
                         for i, k in enumerate(meta_actions)])
    state = restricted.step(state, jnp.asarray(meta_actions))
    expected = env.step(expected, actions)
    np.testing.assert_allclose(state.observation, expected.observation,
                               atol=1e-4)
    np.testing.assert_allclose(state.rewards, expected.rewards, atol=1e-4)
  with pytest.raises(ValueError, match="nxdo_va masks discrete actions"):
    restricted_game.RestrictedGame(env, act, members, variant="nxdo_va")
  meta_policy = meta_ne.meta_policy(restricted, lambda p, x: jnp.zeros(
      (x.shape[0], restricted.num_actions)), None)
  with pytest.raises(ValueError, match="no policy array"):
    meta_policy.members_table(None, 1)
