"""The batched Stratego engine agrees with the pyspiel game, move by move."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from open_spiel_ext.games.stratego import batched
from open_spiel_ext.games.stratego import rules
import pyspiel

SQUARE_FIELDS = ("owner", "kind", "moved", "revealed", "shown_scout")


def play_in_lockstep(army: str, ply_limit: int, num_games: int,
                     seed: int) -> np.ndarray:
  """Plays random games in both engines at once, checking every ply.

  At every ply and for every game: the same legal actions, the same pieces
  and flags on every square, the same captures; at the end the same returns.

  Returns:
    The games' returns for player 0.
  """
  engine = batched.BatchedStratego(army, ply_limit)
  name = "barrage_stratego" if army == "barrage" else "stratego"
  game = pyspiel.load_game(f"{name}(ply_limit={ply_limit})")
  states = [game.new_initial_state() for _ in range(num_games)]
  boards = engine.initial(num_games)
  rng = np.random.RandomState(seed)
  while not all(state.is_terminal() for state in states):
    masks = np.asarray(engine.legal_mask(boards))
    actions = np.zeros(num_games, np.int32)
    for index, state in enumerate(states):
      if state.is_terminal():
        continue
      legal = state.legal_actions()
      assert np.flatnonzero(masks[index]).tolist() == legal, str(state)
      actions[index] = legal[rng.randint(len(legal))]
      state.apply_action(int(actions[index]))
    boards = engine.step(boards, jnp.asarray(actions))
    squares = engine.squares(boards)
    for field in SQUARE_FIELDS:
      expected = np.array([getattr(state, field) for state in states])
      np.testing.assert_array_equal(np.asarray(squares[field]), expected,
                                    err_msg=field)
    np.testing.assert_array_equal(
        np.asarray(boards.captured),
        np.array([state.captured for state in states]))
    np.testing.assert_array_equal(
        np.asarray(boards.winner) != batched.ONGOING,
        [state.is_terminal() for state in states])
  returns = engine.returns(boards)
  np.testing.assert_array_equal(
      returns, np.array([state.returns() for state in states]))
  return returns[:, 0]


@pytest.mark.parametrize("army,ply_limit,num_games,seed", [
    ("barrage", 80, 1500, 0),
    ("barrage", 1000, 150, 1),
    ("classic", 80, 500, 2),
    ("classic", 2000, 30, 3),
])
def test_engines_agree_on_random_games(army, ply_limit, num_games, seed):
  results = play_in_lockstep(army, ply_limit, num_games, seed)
  assert len(set(results.tolist())) > 1  # Wins or draws of both kinds.


def test_random_setups_are_legal_setups():
  engine = batched.BatchedStratego("barrage", 1000)
  boards = engine.random_setups(jax.random.PRNGKey(0), 200)
  squares = engine.squares(boards)
  army = rules.rules_for("barrage")
  for owner, kind in zip(np.asarray(squares["owner"]),
                         np.asarray(squares["kind"])):
    for player, rows in enumerate(rules.SETUP_ROWS):
      own = np.flatnonzero(owner == player)
      assert set(own // 10) <= set(rows)
      assert np.bincount(kind[own], minlength=army.num_types).tolist() == (
          list(army.counts))
  assert (np.asarray(boards.winner) == batched.ONGOING).all()
  assert np.asarray(boards.legal).any(axis=-1).all()


def test_random_setups_match_the_pyspiel_game():
  engine = batched.BatchedStratego("barrage", 1000)
  boards = engine.random_setups(jax.random.PRNGKey(1), 20)
  squares = engine.squares(boards)
  masks = np.asarray(engine.legal_mask(boards))
  army = rules.rules_for("barrage")
  for index in range(20):
    cells = [rules.EMPTY] * rules.NUM_SQUARES
    for square, kind in enumerate(np.asarray(squares["kind"][index])):
      if kind >= 0:
        cells[square] = army.types[kind].letter
    setups = [rules.setup_rows_string(cells, p) for p in range(2)]
    state = pyspiel.load_game(
        f"barrage_stratego(setup=fixed,setup0={setups[0]},"
        f"setup1={setups[1]})").new_initial_state()
    assert np.flatnonzero(masks[index]).tolist() == state.legal_actions()


def test_uniform_true_index_is_uniform():
  mask = np.zeros((4, 70), bool)
  mask[0, [3, 40, 69]] = True
  mask[1, 5] = True
  mask[2, :] = True
  keys = jax.random.split(jax.random.PRNGKey(0), 3000)
  draws = np.asarray(jax.vmap(
      lambda key: batched.uniform_true_index(key, jnp.asarray(mask)))(keys))
  assert set(draws[:, 0]) == {3, 40, 69}
  assert (draws[:, 1] == 5).all()
  counts = np.bincount(draws[:, 2], minlength=70)
  assert counts.min() > 10 and counts.max() < 80  # Expected 3000/70 = 43.
  assert (draws[:, 3] == 0).all()  # No True entry.
  for value in (3, 40, 69):
    assert abs(np.mean(draws[:, 0] == value) - 1 / 3) < 0.04


def test_rollout_counts_only_plies_of_unfinished_games():
  engine = batched.BatchedStratego("barrage", 30)
  boards = engine.random_setups(jax.random.PRNGKey(2), 64)
  final, plies = engine.random_rollout(jax.random.PRNGKey(3), boards, 40)
  assert int(plies) == int(np.asarray(final.ply).sum())
  assert (np.asarray(final.winner) != batched.ONGOING).all()
  assert (np.asarray(final.ply) <= 30).all()
