"""The batched Stratego engine and its observations agree with the pyspiel
game, move by move."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from open_spiel_ext.games.stratego import batched
from open_spiel_ext.games.stratego import batched_observer
from open_spiel_ext.games.stratego import game as stratego
from open_spiel_ext.games.stratego import rules
import pyspiel
import stratego_test

SQUARE_FIELDS = ("owner", "kind", "moved", "revealed", "shown_scout")


def chasing_action(state: stratego.StrategoState, rng: np.random.RandomState,
                   keen: float) -> int:
  """A uniformly random legal action, except that with probability `keen`
  it is drawn among the moves that threaten a piece or evade a threat (so
  that chases, and the more-squares rule, come up often)."""
  legal = state.legal_actions()
  if not state.setup_done() or rng.uniform() >= keen:
    return legal[rng.randint(len(legal))]
  player = state.current_player()
  army = state.get_game().rules
  chasing = []
  for action in legal:
    move = army.decode_move(action)
    if state.owner[move.target] != -1:
      continue
    threatens = any(state.owner[square] == 1 - player
                    for square in rules.NEIGHBOURS[move.target])
    evades = (state.chaser == 1 - player and
              state.chase_square in rules.NEIGHBOURS[move.origin])
    if threatens or evades:
      chasing.append(action)
  choices = chasing or legal
  return choices[rng.randint(len(choices))]


def play_in_lockstep(army: str, ply_limit: int, num_games: int, seed: int,
                     keen: float = 0.0, observed_games: int = 0,
                     **rule_params) -> tuple[np.ndarray, int]:
  """Plays random games in both engines at once, checking every ply.

  At every ply and for every game: the same legal actions, the same pieces
  and flags on every square, the same captures; at the end the same returns.
  In the first `observed_games` games also both players' observation
  tensors.

  Args:
    army, ply_limit, rule_params: the game (and engine) parameters.
    num_games: games played at once.
    seed: seeds the moves.
    keen: how often a move is drawn among chasing and evading ones.

  Returns:
    The games' returns for player 0, and how many moves the more-squares
    rule forbade.
  """
  engine = batched.BatchedStratego(army, ply_limit, **rule_params)
  observer = batched_observer.BatchedObserver(engine)
  name = "barrage_stratego" if army == "barrage" else "stratego"
  params = "".join(f",{key}={str(value).lower()}"
                   for key, value in rule_params.items())
  game = pyspiel.load_game(f"{name}(ply_limit={ply_limit}{params})")
  states = [game.new_initial_state() for _ in range(num_games)]
  boards = engine.initial(num_games)
  rng = np.random.RandomState(seed)
  forbidden = 0
  while not all(state.is_terminal() for state in states):
    masks = np.asarray(engine.legal_mask(boards))
    actions = np.zeros(num_games, np.int32)
    for index, state in enumerate(states):
      if state.is_terminal():
        continue
      legal = state.legal_actions()
      assert np.flatnonzero(masks[index]).tolist() == legal, str(state)
      if state.chaser == state.current_player():
        forbidden += len(state._move_actions(state.current_player(),  # pylint: disable=protected-access
                                             chasing=False)) - len(legal)
      actions[index] = chasing_action(state, rng, keen)
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
    if observed_games:
      observations = np.asarray(observer.observations(boards))
      for index, state in enumerate(states[:observed_games]):
        for player in range(2):
          np.testing.assert_allclose(
              observations[index, player], state.observation_tensor(player),
              err_msg=f"player {player}'s observation in game {index}:\n"
              f"{state}", atol=1e-6)
  returns = engine.returns(boards)
  np.testing.assert_array_equal(
      returns, np.array([state.returns() for state in states]))
  return returns[:, 0], forbidden


@pytest.mark.parametrize("army,ply_limit,num_games,seed", [
    pytest.param("barrage", 80, 1500, 0, marks=pytest.mark.slow),
    ("barrage", 1000, 60, 1),
    pytest.param("classic", 80, 500, 2, marks=pytest.mark.slow),
    ("classic", 2000, 12, 3),
])
def test_engines_agree_on_random_games(army, ply_limit, num_games, seed):
  results, _ = play_in_lockstep(army, ply_limit, num_games, seed,
                                observed_games=8)
  assert len(set(results.tolist())) > 1  # Wins or draws of both kinds.


@pytest.mark.parametrize("army,num_games,seed,rule_params", [
    ("barrage", 120, 4, {}),
    ("classic", 40, 5, {}),
    ("barrage", 40, 6, {"more_squares_rule": False,
                         "both_stuck_draw": False}),
])
def test_engines_agree_on_chases(army, num_games, seed, rule_params):
  _, forbidden = play_in_lockstep(army, 200, num_games, seed, keen=0.9,
                                  **rule_params)
  if rule_params.get("more_squares_rule", True):
    assert forbidden > 0  # The rule came into play.
  else:
    assert forbidden == 0


@pytest.mark.slow
@pytest.mark.parametrize("army,num_games,seed", [("barrage", 3000, 7),
                                                 ("classic", 1000, 8)])
def test_engines_agree_on_many_long_chasing_games(army, num_games, seed):
  _, forbidden = play_in_lockstep(army, 1000, num_games, seed, keen=0.9)
  assert forbidden > 0


def replay_in_engine(state: stratego.StrategoState,
                     **rule_params) -> batched.Boards:
  """Replays a fixed-setup game's moves in the batched engine, checking the
  legal actions before every move and the result at the end."""
  game = state.get_game()
  engine = batched.BatchedStratego(game.rules.army, game.ply_limit,
                                   **rule_params)
  fresh = game.new_initial_state()
  boards = engine.from_positions(
      jnp.asarray([fresh.setups[0] + fresh.setups[1]]))
  for action in state.history():
    assert np.flatnonzero(engine.legal_mask(boards)[0]).tolist() == (
        fresh.legal_actions())
    fresh.apply_action(action)
    boards = engine.step(boards, jnp.asarray([action]))
  if not fresh.is_terminal():
    assert np.flatnonzero(engine.legal_mask(boards)[0]).tolist() == (
        fresh.legal_actions())
  assert (int(boards.winner[0]) != batched.ONGOING) == fresh.is_terminal()
  np.testing.assert_array_equal(engine.returns(boards)[0], fresh.returns())
  return boards


@pytest.mark.parametrize("more_squares_rule", [True, False])
def test_the_lake_chase_in_the_batched_engine(more_squares_rule):
  state = stratego_test.lake_chase(more_squares_rule=more_squares_rule)
  replay_in_engine(state, more_squares_rule=more_squares_rule)


def test_the_straight_back_exception_in_the_batched_engine():
  state = stratego_test.fixed_state({"e4": "M"}, {"e7": "G", "j7": "S"})
  stratego_test.play(state, "e4-e5", "j7-j6", "e5-e6", "e7-f7", "e6-f6",
                     "f7-e7", "f6-e6", "e7-f7")
  replay_in_engine(state)


@pytest.mark.parametrize("name", sorted(stratego_test.TWO_SQUARE_GAMES))
def test_the_two_square_rule_in_the_batched_engine(name):
  replay_in_engine(stratego_test.two_square_game(name))


@pytest.mark.parametrize("both_stuck_draw", [True, False])
def test_both_stuck_in_the_batched_engine(both_stuck_draw):
  state = stratego_test.lone_scouts(both_stuck_draw=both_stuck_draw)
  boards = replay_in_engine(state, both_stuck_draw=both_stuck_draw)
  assert int(boards.winner[0]) == (-1 if both_stuck_draw else 1)


@pytest.mark.parametrize("both_stuck_draw", [True, False])
def test_both_stuck_from_the_setup_in_the_batched_engine(both_stuck_draw):
  blocked = "BBCPBBCNBB/NTSYJPSTLS/SNLPTLJSNT/NSFMGSPLJS"
  army = rules.rules_for("classic")
  positions = [square for player, text in enumerate(
      (blocked, rules.mirrored_setup(blocked)))
               for _, square in rules.parse_setup(army, player, text, "setup")]
  engine = batched.BatchedStratego("classic", 2000,
                                   both_stuck_draw=both_stuck_draw)
  boards = engine.from_positions(jnp.asarray([positions]))
  assert int(boards.winner[0]) == (-1 if both_stuck_draw else 1)


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


def test_rollout_counts_only_plies_of_unfinished_games():
  engine = batched.BatchedStratego("barrage", 30)
  boards = engine.random_setups(jax.random.PRNGKey(2), 64)
  final, plies = engine.random_rollout(jax.random.PRNGKey(3), boards, 40)
  assert int(plies) == int(np.asarray(final.ply).sum())
  assert (np.asarray(final.winner) != batched.ONGOING).all()
  assert (np.asarray(final.ply) <= 30).all()
