"""Every puzzle's batched engine keeps the contract of
`games/puzzles/single_player.py` (`BatchedPuzzle`).

One check per clause, each parametrised over every engine (`CASES`): the
members, the shapes and dtypes of what each function returns, illegal moves
leaving a state as it is, reverse moves undone by a forward move, and
agreement with the puzzle's pyspiel game over random walks from scrambled
starts (children, legal moves, goals, encodings). What is particular to one
puzzle is tested beside it (`lights_out_test.py`, `rubiks_cube_test.py`,
`sliding_puzzle_test.py`, `sokoban_test.py`).
"""

import dataclasses
import functools
from typing import Callable

import jax.numpy as jnp
import numpy as np
import pytest

from open_spiel_ext.games.puzzles import lights_out
from open_spiel_ext.games.puzzles import rubiks_cube
from open_spiel_ext.games.puzzles import single_player
from open_spiel_ext.games.puzzles import sliding_puzzle
from open_spiel_ext.games.puzzles import sokoban
import pyspiel

NUM_WALKS, NUM_STEPS = 200, 20


@dataclasses.dataclass(frozen=True)
class Case:
  """One engine and its pyspiel game.

  Attributes:
    make: the engine.
    game_string: `game_string(i)`, the pyspiel game walk i starts in.
    undo: [R] the forward move that undoes each reverse move of
      `prev_states`.
  """
  make: Callable[[], single_player.BatchedPuzzle]
  game_string: Callable[[int], str]
  undo: tuple[int, ...]


def scrambled(name: str, size: int) -> Callable[[int], str]:
  """Walk i starts i % 25 seeded random moves from the goal (at it, for one
  walk in 25)."""
  return lambda i: (f"{name}(size={size},scramble_moves={i % 25},seed={i},"
                    f"max_length={NUM_STEPS})")


CASES = {
    "lights_out_5": Case(lambda: lights_out.BatchedLightsOut(5),
                         scrambled("lights_out", 5), tuple(range(25))),
    "sliding_puzzle_3": Case(lambda: sliding_puzzle.BatchedSlidingPuzzle(3),
                             scrambled("sliding_puzzle", 3), (0, 1, 2, 3)),
    "sliding_puzzle_4": Case(lambda: sliding_puzzle.BatchedSlidingPuzzle(4),
                             scrambled("sliding_puzzle", 4), (0, 1, 2, 3)),
    "sliding_puzzle_7": Case(lambda: sliding_puzzle.BatchedSlidingPuzzle(7),
                             scrambled("sliding_puzzle", 7), (0, 1, 2, 3)),
    "rubiks_cube_2": Case(lambda: rubiks_cube.BatchedCube(2),
                          scrambled("rubiks_cube", 2), tuple(range(12))),
    "rubiks_cube_3": Case(lambda: rubiks_cube.BatchedCube(3),
                          scrambled("rubiks_cube", 3), tuple(range(12))),
    # Reverse moves: steps back, then pulls, each undone by the opposite
    # step.
    "sokoban": Case(sokoban.BatchedSokoban,
                    lambda i: f"sokoban(level={i},max_length={NUM_STEPS})",
                    (1, 0, 3, 2) * 2),
}


@functools.lru_cache(maxsize=None)
def engine_of(name: str) -> single_player.BatchedPuzzle:
  return CASES[name].make()


@functools.lru_cache(maxsize=None)
def games_of(name: str) -> tuple[pyspiel.Game, ...]:
  return tuple(pyspiel.load_game(CASES[name].game_string(i))
               for i in range(NUM_WALKS))


def start_boards(name: str) -> np.ndarray:
  """[walks, D] the walks' initial states."""
  return np.array([game.new_initial_state().cells for game in games_of(name)])


@pytest.mark.parametrize("name", CASES)
def test_engine_has_every_member_and_describes_its_game(name):
  engine, game = engine_of(name), games_of(name)[0]
  single_player.check_puzzle(engine)
  assert engine.num_actions == game.num_distinct_actions()
  if engine.goal is not None:
    np.testing.assert_array_equal(engine.goal, game.puzzle.goal)
    assert np.asarray(engine.is_goal(jnp.asarray(engine.goal)[None])).all()


def test_check_puzzle_names_what_is_missing():
  with pytest.raises(TypeError, match="lacks num_actions, goal, next_states"):
    single_player.check_puzzle(object())


@pytest.mark.parametrize("name", CASES)
def test_functions_return_the_contracts_shapes_and_dtypes(name):
  engine, game = engine_of(name), games_of(name)[0]
  boards = jnp.asarray(start_boards(name))
  batch, cells = boards.shape
  actions = jnp.zeros(batch, jnp.int32)
  shapes = {
      "next_states": (engine.next_states(boards),
                      (batch, engine.num_actions, cells), np.int8),
      "prev_states": (engine.prev_states(boards),
                      (batch, len(CASES[name].undo), cells), np.int8),
      "legal_mask": (engine.legal_mask(boards), (batch, engine.num_actions),
                     np.bool_),
      "step": (engine.step(boards, actions), (batch, cells), np.int8),
      "is_goal": (engine.is_goal(boards), (batch,), np.bool_),
      "encode": (engine.encode(boards), (batch,) + tuple(
          game.observation_tensor_shape()), np.float32),
  }
  for function, (value, shape, dtype) in shapes.items():
    assert (np.shape(value), np.asarray(value).dtype) == (shape, dtype), (
        function)


@pytest.mark.parametrize("name", CASES)
def test_illegal_moves_leave_the_state(name):
  engine = engine_of(name)
  boards = start_boards(name)
  children = np.asarray(engine.next_states(jnp.asarray(boards)))
  legal = np.asarray(engine.legal_mask(jnp.asarray(boards)))
  for action in range(engine.num_actions):
    np.testing.assert_array_equal(children[~legal[:, action], action],
                                  boards[~legal[:, action]])


@pytest.mark.parametrize("name", CASES)
def test_reverse_moves_are_undone_by_a_forward_move(name):
  engine, undo = engine_of(name), CASES[name].undo
  boards = start_boards(name)
  parents = np.asarray(engine.prev_states(jnp.asarray(boards)))
  moved = (parents != boards[:, None]).any(axis=-1)
  assert moved.any(axis=0).all()  # Every reverse move is made somewhere.
  for reverse, forward in enumerate(undo):
    rows = moved[:, reverse]
    before = jnp.asarray(parents[:, reverse])
    children = np.asarray(engine.next_states(before))[rows, forward]
    legal = np.asarray(engine.legal_mask(before))[rows, forward]
    np.testing.assert_array_equal(children, boards[rows])
    assert legal.all(), reverse


@pytest.mark.parametrize("name", CASES)
def test_engine_walks_like_pyspiel(name):
  """Random walks of legal moves in the engine and in the pyspiel games at
  once: the same states and goals while a game takes the walk's moves, the
  same legal moves and encodings while it lasts, and `step` picks the
  action's child of `next_states`."""
  engine = engine_of(name)
  states = [game.new_initial_state() for game in games_of(name)]
  boards = jnp.asarray(start_boards(name))
  rng = np.random.RandomState(0)
  checked = 0
  tracked = np.ones(len(states), bool)  # The games that took every move.
  for step in range(NUM_STEPS + 1):
    live = np.array([not state.is_terminal() for state in states])
    cells = np.array([state.cells for state in states])
    solved = np.array([state.is_solved() for state in states])
    np.testing.assert_array_equal(np.asarray(boards)[tracked],
                                  cells[tracked])
    np.testing.assert_array_equal(np.asarray(engine.is_goal(boards))[tracked],
                                  solved[tracked])
    legal = np.asarray(engine.legal_mask(boards))
    encoded = np.asarray(engine.encode(boards)).reshape(len(states), -1)
    for index in np.flatnonzero(live):
      assert np.flatnonzero(legal[index]).tolist() == (
          states[index].legal_actions()), (name, index, step)
      np.testing.assert_array_equal(
          encoded[index], states[index].observation_tensor(),
          err_msg=f"{name}: walk {index}, step {step}")
    checked += live.sum()
    if step == NUM_STEPS:
      break
    actions = np.array([rng.choice(np.flatnonzero(row)) if row.any() else 0
                        for row in legal])
    children = np.asarray(engine.next_states(boards))
    boards = engine.step(boards, jnp.asarray(actions))
    np.testing.assert_array_equal(children[np.arange(len(states)), actions],
                                  boards)
    for index in np.flatnonzero(live):
      states[index].apply_action(int(actions[index]))
    tracked = live
  assert checked > NUM_WALKS * NUM_STEPS // 2
