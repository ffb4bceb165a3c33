"""Tests of the Loss Game: its rules, its pyspiel form and its continuous
batched environment, which must agree with the pyspiel game step by step (the
binned engine's contract and agreement are `batched_conformance_test.py`'s,
the refusal of bad parameters `bad_input_test.py`'s)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel_ext.games import batched
from open_spiel_ext.games import batched_loss_game
from open_spiel_ext.games import engines
from open_spiel_ext.games import loss_game
import pyspiel

TOLERANCE = 1e-4  # float32 engines against the float64 pyspiel game.


def test_two_dimensional_moves_follow_direction_and_magnitude():
  dynamics = loss_game.Dynamics(2, alpha=2.7)
  # Direction 0 (angle 0) at full magnitude; direction 1/4 (angle π/2) at
  # half magnitude; zero magnitude in any direction.
  actions = np.array([[-1.0, 1.0], [-0.5, 0.0], [0.3, -1.0]])
  np.testing.assert_allclose(dynamics.displacement(actions),
                             [[2.7, 0.0], [0.0, 1.35], [0.0, 0.0]],
                             atol=1e-12)
  np.testing.assert_allclose(dynamics.loss(np.array([np.pi / 2, np.pi / 2])),
                             2.0)


def test_sixteen_dimensional_loss_and_bounded_moves():
  dynamics = loss_game.Dynamics(16, max_move=0.1)
  x = np.full(16, 0.25)
  np.testing.assert_allclose(dynamics.loss(x), np.sin(4.0) + np.sin(0.25))
  moves = dynamics.displacement(np.linspace(-3, 3, 16))
  assert np.abs(moves).max() == pytest.approx(0.1)  # Clipped to [−1, 1].


def test_binned_actions_are_the_grid_in_base_bins():
  assert loss_game.binned_action(0, 10, 2).tolist() == [-1.0, -1.0]
  assert loss_game.binned_action(99, 10, 2).tolist() == [1.0, 1.0]
  np.testing.assert_allclose(loss_game.binned_action(19, 10, 2),
                             [-1 + 2 / 9, 1.0])  # Coordinate 0 first.
  np.testing.assert_allclose(loss_game.binned_action(5, 2, 3), [1, -1, 1])


def test_pyspiel_game_pays_player_zero_the_loss_every_step():
  game = pyspiel.load_game("loss_game(moves=2)")
  state = game.new_initial_state()
  state.apply_actions([9, 99])  # Angle 0 and 2π at full magnitude: 2α, 0.
  np.testing.assert_allclose(state.x, [5.4, 0.0], atol=1e-12)
  assert state.rewards() == pytest.approx([np.sin(5.4), -np.sin(5.4)])
  state.apply_actions([0, 0])  # Zero magnitude: x stays.
  assert state.is_terminal()
  assert state.returns() == pytest.approx([2 * np.sin(5.4), -2 * np.sin(5.4)])


def test_random_simulation_with_ten_thousand_actions():
  # (16 dimensions are simulated through the turn-based form below.)
  pyspiel.random_sim_test(pyspiel.load_game(
      "loss_game(bins=100,moves=4,alpha=1.5)"), num_sims=3, serialize=True,
                          verbose=False)


def test_continuous_actions_on_the_grid_agree_with_pyspiel():
  engine = batched_loss_game.TurnBasedLossGame("loss_game(bins=10,moves=5)",
                                               continuous=True)
  assert engine.num_actions == 2
  reference = batched.PyspielVectorEnv(engine.game)
  keys = jax.random.split(jax.random.PRNGKey(0), 4)
  state, expected = engine.init(keys), reference.init(keys)
  step = jax.jit(engine.step)
  rng = np.random.default_rng(2)
  for _ in range(10):
    actions = rng.integers(0, 100, 4)
    state = step(state, jnp.asarray(loss_game.binned_action(actions, 10, 2),
                                    jnp.float32))
    expected = reference.step(expected, actions)
    for field in ("current_player", "observation", "rewards", "terminated"):
      np.testing.assert_allclose(np.asarray(getattr(state, field)),
                                 getattr(expected, field), atol=TOLERANCE,
                                 err_msg=field)
  assert np.asarray(state.terminated).all()
  assert not np.asarray(state.legal_action_mask).any()


def test_continuous_engine_restarts_finished_games():
  engine = batched_loss_game.TurnBasedLossGame(
      "loss_game(dims=16,bins=2,moves=2)", auto_reset=True, continuous=True)
  state = engine.init(jnp.zeros((3, 2), jnp.uint32))
  ones = jnp.ones((3, 16))
  for _ in range(3):
    state = engine.step(state, ones)
    assert not np.asarray(state.terminated).any()
  state = engine.step(state, ones)
  assert np.asarray(state.terminated).all()
  expected = loss_game.Dynamics(16).loss(np.full(16, 0.4))
  np.testing.assert_allclose(state.rewards[:, 0], expected, atol=TOLERANCE)
  np.testing.assert_allclose(state.x, 0.0)  # A fresh game.
  assert np.asarray(state.legal_action_mask).all()


def test_engines_refuse_bad_settings():
  continuous = batched_loss_game.TurnBasedLossGame("loss_game(bins=2)",
                                                   continuous=True)
  with pytest.raises(ValueError, match="must have shape \\(2, 2\\)"):
    continuous.checked_step(continuous.init(jnp.zeros((2, 2), jnp.uint32)),
                            np.zeros((2, 3)))
  with pytest.raises(ValueError, match="TurnBasedLossGame plays loss_game"):
    batched_loss_game.TurnBasedLossGame("kuhn_poker")
  state = pyspiel.load_game("loss_game(bins=2)").new_initial_state()
  with pytest.raises(pyspiel.SpielError, match="action 4 is not in"):
    state.apply_actions([4, 0])


def test_make_finds_the_loss_games_engine_with_its_options():
  loss = pyspiel.load_game("loss_game(bins=3)")
  binned = engines.make(loss, auto_reset=True)
  continuous = engines.make(loss, auto_reset=True, continuous=True)
  assert (binned.num_actions, continuous.num_actions) == (9, 2)
  assert binned.auto_reset and continuous.continuous
  turn_based = engines.make(pyspiel.convert_to_turn_based(loss))
  assert turn_based.num_actions == 9 and not turn_based.auto_reset
  assert engines.make(pyspiel.load_game("kuhn_poker")).num_actions == 2
  with pytest.raises(ValueError, match="kuhn_poker takes no option "
                     "continuous; its options are auto_reset"):
    engines.make(pyspiel.load_game("kuhn_poker"), continuous=True)
  with pytest.raises(ValueError, match="TurnBasedLossGame plays loss_game"):
    engines.make("turn_based_simultaneous_game(game=oshi_zumo())")
