"""The Stratego policy network: its head's action layout, legal play from
random positions, material shaping, and bad sizes refused."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel_ext.algorithms import p2sro
from open_spiel_ext.algorithms.rl import networks
from open_spiel_ext.algorithms.rl import opponents
from open_spiel_ext.algorithms.rl import ppo
from open_spiel_ext.algorithms.stratego import network
from open_spiel_ext.experiments import stratego_recipes
from open_spiel_ext.games.stratego import env as env_lib
from open_spiel_ext.games.stratego import rules as rules_lib
from open_spiel_ext.utils import executors
import pyspiel

GAME = "barrage_stratego(ply_limit=200)"
# One environment (one compilation of its steps) for the tests that play.
ENV = env_lib.StrategoEnv(pyspiel.load_game(GAME), relative_actions=True,
                          material_shaping=1.0)


def test_the_head_lays_out_every_action_at_its_square_and_channel():
  rules = rules_lib.rules_for("barrage")
  types = rules.num_types
  channels = types + rules_lib.MOVES_PER_SQUARE
  index = network.head_index(types)
  assert len(index) == rules.num_distinct_actions
  np.testing.assert_array_equal(np.sort(index),
                                np.arange(rules_lib.NUM_SQUARES * channels))
  for piece_type in range(types):
    for square in (0, 37, 99):
      assert index[rules.placement_action(piece_type, square)] == (
          square * channels + piece_type)
  for origin in (0, 45, 99):
    for direction in range(rules_lib.NUM_DIRECTIONS):
      for distance in (1, 9):
        assert index[rules.move_action(origin, direction, distance)] == (
            origin * channels + types + direction * rules_lib.MAX_DISTANCE +
            distance - 1)


def test_the_policy_plays_only_legal_actions_from_random_positions():
  env = ENV
  policy = networks.build("stratego_conv", (8, 8), env.num_actions, "policy")
  value = networks.build("stratego_conv", (8, 8), 1, "value")
  batch = 32
  state = env.init(jax.random.split(jax.random.PRNGKey(0), batch))
  rows = jnp.arange(batch)
  params = policy.init(jax.random.PRNGKey(1), state.observation[:, 0])
  value_params = value.init(jax.random.PRNGKey(2), state.observation[:, 0])
  assert value.apply(value_params, state.observation[:, 0]).shape == (batch, 1)
  act = opponents.network(policy.apply, params)
  sample = jax.jit(act.act)
  key = jax.random.PRNGKey(3)
  decisions = 0
  for _ in range(120):  # Placements, then moves of both armies.
    key, draw = jax.random.split(key)
    mover = jnp.maximum(state.current_player, 0)
    actions = sample(act.params, state.observation[rows, mover],
                     state.legal_action_mask, jnp.zeros(batch, jnp.int32),
                     draw)
    live = ~np.asarray(state.terminated)
    assert np.asarray(state.legal_action_mask)[rows, actions][live].all()
    decisions += live.sum()
    state = env.checked_step(state, actions)
  assert decisions > 3_000


def test_material_shaping_sums_to_each_games_result():
  env = ENV
  batch = 32
  state = env.init(jax.random.split(jax.random.PRNGKey(4), batch))
  key = jax.random.PRNGKey(5)
  total, shaped = np.zeros((batch, 2)), 0
  while not np.asarray(state.terminated).all():
    key, draw = jax.random.split(key)
    actions = jax.random.categorical(
        draw, jnp.where(state.legal_action_mask, 0.0, -jnp.inf))
    state = env.step(state, jnp.where(state.terminated, 0, actions))
    rewards = np.asarray(state.rewards)
    total += rewards
    shaped += (rewards[~np.asarray(state.terminated)] != 0).any(-1).sum()
  results = np.where(np.asarray(state.boards.winner) == 0, 1.0, np.where(
      np.asarray(state.boards.winner) == 1, -1.0, 0.0))
  assert shaped > 0  # Captures were paid as they happened...
  np.testing.assert_allclose(total[:, 0], results, atol=1e-5)  # ...netting 0.
  np.testing.assert_allclose(total[:, 1], -results, atol=1e-5)


def test_learners_see_stratego_in_their_own_frame_with_shaping():
  env = p2sro.engine(pyspiel.load_game("barrage_stratego"),
                     **stratego_recipes.ENGINE_OPTIONS)
  assert env.auto_reset and env.relative_actions
  assert env.material_shaping == stratego_recipes.MATERIAL_SHAPING > 0


def test_a_fresh_process_finds_the_stratego_network_by_name():
  # A spawned worker (P2SRO's learners) or a restored checkpoint names the
  # network before anything has imported the module that registers it.
  assert "stratego_conv" in executors.in_fresh_process(
      networks.registered_networks)


def test_bad_network_settings_are_refused():
  with pytest.raises(ValueError, match="network must be one of"):
    ppo.Config(network="resnet")
  with pytest.raises(ValueError, match="num_outputs=4301"):
    network.placement_types(4301)
  with pytest.raises(ValueError, match="material_shaping"):
    env_lib.StrategoEnv(pyspiel.load_game(GAME), material_shaping=-1.0)
  with pytest.raises(ValueError, match="observation of 50"):
    model = networks.build("stratego_conv", (8,), 4300, "policy")
    model.init(jax.random.PRNGKey(0), jnp.zeros((1, 50)))


def test_the_head_transposes_into_the_action_order():
  per_square = jax.random.normal(jax.random.PRNGKey(6), (3, 100, 7 + 36))
  np.testing.assert_array_equal(
      network.to_actions(per_square, 7),
      per_square.reshape(3, -1)[:, network.head_index(7)])


def test_the_convolutions_gradient_is_the_convolutions():
  x = jax.random.normal(jax.random.PRNGKey(7), (2, 10, 10, 5))
  kernel = jax.random.normal(jax.random.PRNGKey(8), (3, 3, 5, 4))

  def reference(x, kernel):
    return jax.lax.conv_general_dilated(
        x, kernel, (1, 1), "SAME",
        dimension_numbers=("NHWC", "HWIO", "NHWC"))

  cotangent = jax.random.normal(jax.random.PRNGKey(9), (2, 10, 10, 4))
  expected = jax.vjp(reference, x, kernel)[1](cotangent)
  actual = jax.vjp(network.conv3x3, x, kernel)[1](cotangent)
  np.testing.assert_allclose(network.conv3x3(x, kernel), reference(x, kernel),
                             rtol=1e-5, atol=1e-5)
  for want, got in zip(expected, actual):
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_each_move_reads_the_square_it_lands_on():
  rules = rules_lib.rules_for("barrage")
  scores = jax.random.normal(jax.random.PRNGKey(10), (2, 10, 10, 36))
  at = np.asarray(network.at_targets(scores)).reshape(2, 100, 36)
  flat = np.asarray(scores).reshape(2, 100, 36)
  checked = 0
  for index, move in enumerate(rules.moves):
    if move.target is not None:  # Off the board or past a lake: illegal.
      channel = index % rules_lib.MOVES_PER_SQUARE
      np.testing.assert_array_equal(at[:, move.origin, channel],
                                    flat[:, move.target, channel])
      checked += 1
  assert checked > 1_000


def test_a_shared_trunk_is_the_policy_network_with_the_value_head_added():
  game = pyspiel.load_game(GAME)
  observation = jnp.zeros((3, game.observation_tensor_size()))
  actions = game.num_distinct_actions()
  both = networks.build_actor_critic("stratego_conv", (8, 8), actions,
                                     "policy")
  params = both.init(jax.random.PRNGKey(0), observation)
  logits, value = both.apply(params, observation)
  assert logits.shape == (3, actions) and value.shape == (3, 1)
  policy = networks.build("stratego_conv", (8, 8), actions, "policy").init(
      jax.random.PRNGKey(0), observation)
  value_alone = networks.build("stratego_conv", (8, 8), 1, "value").init(
      jax.random.PRNGKey(0), observation)
  assert set(params) == set(policy) | {
      name.replace("value", "policy", 1) for name in value_alone}
