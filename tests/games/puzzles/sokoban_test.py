"""Sokoban: pushes, deadlocks, reverse play, shipped levels
(`puzzle_conformance_test.py` checks the batched engine against the game,
`bad_input_test.py` the refusal of bad parameters)."""

import jax
import jax.numpy as jnp
import numpy as np

from open_spiel_ext.algorithms.puzzle_solvers import batch_astar
from open_spiel_ext.games.puzzles import sokoban
from open_spiel_ext.games.puzzles import sokoban_generator
import pyspiel

_CORRIDOR = "#######/#@ $ .#/#######"


def _game(state: str, max_length: int = 50) -> pyspiel.Game:
  return pyspiel.load_game(f"sokoban(state={state},max_length={max_length})")


def test_the_player_walks_and_pushes_one_box():
  state = _game(_CORRIDOR).new_initial_state()
  assert [state.action_to_string(0, a) for a in state.legal_actions()] == ["R"]
  state.apply_action(3)
  assert str(state) == "#######/# @$ .#/#######"
  state.apply_action(3)  # Push.
  assert str(state) == "#######/#  @$.#/#######"
  state.apply_action(3)
  assert str(state) == "#######/#   @*#/#######"
  assert state.is_terminal() and state.returns() == [-3.0]


def test_two_boxes_in_a_row_and_walls_stop_a_push():
  state = _game("########/#@$$ ..#/########").new_initial_state()
  assert state.legal_actions() == []  # Cannot push two boxes.
  assert state.is_terminal() and not state.is_solved()
  state = _game("#####/#@$.#/#####").new_initial_state()
  state.apply_action(3)
  assert state.is_solved()


def test_a_box_in_a_corner_is_a_deadlock_kept_until_max_length():
  game = _game("#####/#$  #/#  .#/#  @#/#####", max_length=30)
  state = game.new_initial_state()
  rng = np.random.RandomState(0)
  while not state.is_terminal():
    state.apply_action(rng.choice(state.legal_actions()))
  assert not state.is_solved() and state.returns() == [-30.0]


def test_observation_is_four_planes():
  state = _game(_CORRIDOR).new_initial_state()
  planes = np.asarray(state.observation_tensor()).reshape(4, 3, 7)
  assert planes[0].sum() == 16 and planes[0, 1, 0] == 1  # Walls.
  assert planes[1, 1, 5] == 1 and planes[1].sum() == 1  # The goal.
  assert planes[2, 1, 3] == 1 and planes[2].sum() == 1  # The box.
  assert planes[3, 1, 1] == 1 and planes[3].sum() == 1  # The player.


def _shipped_boards(count: int) -> np.ndarray:
  return np.array([sokoban.parse_level(level).ravel()
                   for level in sokoban.shipped_levels()[:count]])


def test_shipped_levels_are_valid_ten_by_ten_with_four_boxes():
  levels = sokoban.shipped_levels()
  assert len(levels) == 1000
  boards = _shipped_boards(len(levels))
  assert boards.shape == (1000, 100)
  assert (((boards & sokoban.BOX) != 0).sum(axis=1) == 4).all()
  assert not np.asarray(sokoban.is_solved(np, boards)).any()
  game = pyspiel.load_game("sokoban(level=7)")
  assert str(game.new_initial_state()) == levels[7]


def test_prev_legal_mask_marks_the_reverse_moves_made():
  engine = sokoban.BatchedSokoban()
  boards = jnp.asarray(_shipped_boards(200))
  parents = np.asarray(engine.prev_states(boards))
  legal = np.asarray(engine.prev_legal_mask(boards))
  assert legal[:, 4:].any()  # Some pulls happen.
  np.testing.assert_array_equal(
      legal, (parents != np.asarray(boards)[:, None]).any(axis=-1))


def test_reverse_play_scrambles_are_solvable_in_as_many_moves():
  engine = sokoban.BatchedSokoban()
  level = "##########/#@  #    #/#  $.    #/#   ##   #/#   #  $.#/" \
          "#   #    #/#.$    # #/#     ## #/#        #/##########"
  solved = sokoban.parse_level(level).ravel()
  solved = np.where((solved & sokoban.GOAL) != 0, solved | sokoban.BOX,
                    solved & ~sokoban.BOX).astype(np.int8)
  scrambled = np.asarray(engine.random_scrambles(
      jax.random.PRNGKey(0), jnp.asarray(np.repeat(solved[None], 4, 0)), 12))
  for board in scrambled:
    result = batch_astar.batch_weighted_astar(
        board, batch_astar.engine_expander(engine), lambda s: np.zeros(len(s)),
        lambda s: np.asarray(engine.is_goal(s)), batch_size=16)
    assert result.actions is not None and len(result.actions) <= 12


def test_generated_levels_are_seeded_and_solvable():
  levels = sokoban_generator.generate_levels(3, seed=5, rows=7, cols=7,
                                             boxes=2, reverse_steps=80,
                                             min_distance=3)
  assert levels == sokoban_generator.generate_levels(
      3, seed=5, rows=7, cols=7, boxes=2, reverse_steps=80, min_distance=3)
  engine = sokoban.BatchedSokoban(7, 7)
  for level in levels:
    board = sokoban.parse_level(level).ravel()
    result = batch_astar.batch_weighted_astar(
        board, batch_astar.engine_expander(engine), lambda s: np.zeros(len(s)),
        lambda s: np.asarray(engine.is_goal(s)), batch_size=64)
    assert result.actions is not None
  text = sokoban_generator.format_levels(levels)
  assert sokoban.read_levels(text) == tuple(levels)
