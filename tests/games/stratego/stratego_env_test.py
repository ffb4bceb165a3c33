"""Stratego's learning environment against the pyspiel game, step by step."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel_ext.games import batched as contract
from open_spiel_ext.games.stratego import env as env_lib
from open_spiel_ext.games.stratego import rules
import pyspiel

SETUP = rules.EXAMPLE_SETUPS["barrage"]
GAMES = {
    "placement": "barrage_stratego(ply_limit=40)",
    "random": "barrage_stratego(setup=random,ply_limit=40)",
    "fixed": (f"barrage_stratego(setup=fixed,ply_limit=40,setup0={SETUP},"
              f"setup1={rules.mirrored_setup(SETUP)})"),
}


def _replay_setups(state: pyspiel.State, positions: np.ndarray,
                   army: rules.Rules) -> None:
  """Places the env's random setup in a pyspiel game with chance setups
  (pieces of one type in ascending squares, as its placements go)."""
  for player in range(2):
    squares = positions[player * army.army_size:(player + 1) *
                        army.army_size].copy()
    types = np.array(army.placement_types)
    for piece_type in np.unique(types):
      squares[types == piece_type] = np.sort(squares[types == piece_type])
    for piece_type, square in zip(types, squares):
      state.apply_action(army.placement_action(int(piece_type), int(square)))


@pytest.mark.parametrize("setup,relative", [
    ("placement", False), ("random", False), ("fixed", False),
    ("placement", True)])
def test_the_env_plays_the_pyspiel_game(setup, relative):
  game = pyspiel.load_game(GAMES[setup])
  env = env_lib.StrategoEnv(game, relative_actions=relative)
  rotated = game.rules.rotated_actions()
  batch = 6
  state = env.init(jax.random.split(jax.random.PRNGKey(0), batch))
  games = [game.new_initial_state() for _ in range(batch)]
  if setup == "random":
    for index, pyspiel_state in enumerate(games):
      _replay_setups(pyspiel_state, np.asarray(state.boards.position[index]),
                     game.rules)
  rng = np.random.default_rng(1)
  steps = 0
  while not all(s.is_terminal() for s in games):
    actions = np.zeros(batch, np.int32)
    for index, pyspiel_state in enumerate(games):
      player = int(state.current_player[index])
      assert player == (contract.GAME_OVER if pyspiel_state.is_terminal()
                        else pyspiel_state.current_player())
      legal = pyspiel_state.legal_actions() if player >= 0 else []
      shown = np.flatnonzero(state.legal_action_mask[index])
      if relative and player == 1:
        shown = np.sort(rotated[shown])
      assert shown.tolist() == legal
      for observer in range(2):
        np.testing.assert_allclose(
            state.observation[index, observer],
            pyspiel_state.observation_tensor(observer), atol=1e-6)
      if legal:
        action = int(rng.choice(legal))
        pyspiel_state.apply_action(action)
        actions[index] = rotated[action] if relative and player == 1 else (
            action)
    state = env.checked_step(state, jnp.asarray(actions))
    steps += 1
    for index, pyspiel_state in enumerate(games):
      assert bool(state.terminated[index]) == pyspiel_state.is_terminal()
  assert steps > 20
  np.testing.assert_array_equal(np.asarray(state.rewards)[:, 0] == 0, True)


def test_rotating_actions_twice_is_the_identity_and_mirrors_the_board():
  army = rules.rules_for("barrage")
  rotated = army.rotated_actions()
  np.testing.assert_array_equal(rotated[rotated], np.arange(len(rotated)))
  for action in range(army.move_base, army.num_distinct_actions, 97):
    move, turned = army.decode_move(action), army.decode_move(
        int(rotated[action]))
    assert turned.origin == 99 - move.origin
    assert turned.target == (None if move.target is None else
                             99 - move.target)


def test_auto_reset_pays_the_returns_and_starts_a_fresh_game():
  game = pyspiel.load_game(GAMES["random"])
  env = env_lib.StrategoEnv(game, auto_reset=True)
  state = env.init(jax.random.split(jax.random.PRNGKey(2), 16))
  key = jax.random.PRNGKey(3)
  total, ended = np.zeros((16, 2)), np.zeros(16, int)
  for _ in range(60):
    key, draw = jax.random.split(key)
    logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
    before = state
    state = env.step(state, jax.random.categorical(draw, logits))
    done = np.asarray(state.terminated)
    total += np.asarray(state.rewards)
    ended += done
    assert (np.asarray(state.rewards)[~done] == 0).all()
    # A game that ended shows a fresh one: nobody has moved in it yet.
    assert (np.asarray(state.boards.ply)[done] == 0).all()
    assert (np.asarray(state.current_player)[done] == 0).all()
    assert not np.array_equal(np.asarray(state.key)[done],
                              np.asarray(before.key)[done]) or not done.any()
  assert ended.sum() >= 16  # The 40-ply limit ends every game.
  np.testing.assert_array_equal(total.sum(axis=1), 0.0)


def test_the_env_refuses_other_games_and_illegal_actions():
  with pytest.raises(ValueError, match="not a Stratego game"):
    env_lib.StrategoEnv(pyspiel.load_game("kuhn_poker"))
  env = env_lib.StrategoEnv(pyspiel.load_game(GAMES["fixed"]))
  state = env.init(jax.random.split(jax.random.PRNGKey(0), 2))
  with pytest.raises(ValueError, match="action 0 is not legal in game 0"):
    env.checked_step(state, jnp.zeros(2, jnp.int32))
