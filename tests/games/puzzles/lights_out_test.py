"""Lights Out: the game, the batched engine's scrambles, the GF(2) solver
(`puzzle_conformance_test.py` checks the engine against the game,
`bad_input_test.py` the refusal of bad parameters)."""

import collections

import jax
import numpy as np
import pytest

from open_spiel_ext.experiments.puzzle_references import lights_out_gf2
from open_spiel_ext.games.puzzles import lights_out
import pyspiel


def test_pressing_toggles_the_light_and_its_neighbours():
  state = pyspiel.load_game(
      "lights_out(size=3,state=000/000/000)").new_initial_state()
  assert state.is_terminal()  # The goal: nothing to do.
  state = pyspiel.load_game(
      "lights_out(size=3,state=010/111/010)").new_initial_state()
  state.apply_action(4)  # The centre.
  assert state.is_terminal() and state.returns() == [-1.0]
  state = pyspiel.load_game(
      "lights_out(size=3,state=110/100/000)").new_initial_state()
  assert state.action_to_string(0, 0) == "r1c1"
  state.apply_action(0)  # A corner toggles three lights.
  assert str(state) == "000/000/000"


def test_scramble_is_seeded_and_max_length_ends_the_game():
  game = pyspiel.load_game("lights_out(size=5,scramble_moves=7,seed=3,"
                           "max_length=4)")
  again = pyspiel.load_game("lights_out(size=5,scramble_moves=7,seed=3)")
  assert str(game.new_initial_state()) == str(again.new_initial_state())
  state = game.new_initial_state()
  while not state.is_terminal():
    state.apply_action(state.legal_actions()[0])
  assert state.returns()[0] >= -4


def test_batched_scrambles_match_repeated_presses():
  engine = lights_out.BatchedLightsOut(4)
  key = jax.random.PRNGKey(5)
  boards = np.asarray(engine.random_scrambles(key, 16, 9))
  presses = np.asarray(jax.random.randint(key, (16, 9), 0, 16))
  table = lights_out.toggle_table(4)
  for board, row in zip(boards, presses):
    expected = np.zeros(16, np.int8)
    for press in row:
      expected ^= table[press]
    np.testing.assert_array_equal(board, expected)


def test_gf2_solves_1000_random_7x7_boards():
  boards = lights_out_gf2.random_reachable_boards(7, 1000, seed=0)
  table = lights_out.toggle_table(7)
  for board in boards:
    presses = lights_out_gf2.solve(board, 7)
    assert not ((board + presses @ table) % 2).any()


@pytest.mark.parametrize("size", [4, 5, 7])
def test_fewest_presses_of_a_batch_are_each_boards_solution(size):
  # 4x4 and 5x5 have null spaces (4 and 2 dimensions), 7x7 none.
  boards = lights_out_gf2.random_reachable_boards(size, 200, seed=size)
  np.testing.assert_array_equal(
      lights_out_gf2.fewest_presses(boards, size),
      [lights_out_gf2.solve(board, size).sum() for board in boards])


def test_fewest_presses_refuses_a_board_that_cannot_be_turned_off():
  boards = lights_out_gf2.random_reachable_boards(5, 3, seed=0)
  boards[2, 0] ^= 1  # One light on its own: 5x5 cannot turn it off.
  with pytest.raises(ValueError, match="board 2 of this 5x5"):
    lights_out_gf2.fewest_presses(boards, 5)
  with pytest.raises(ValueError, match=r"\[B, 25\]"):
    lights_out_gf2.fewest_presses(boards[:, :24], 5)


def _breadth_first_distances(size: int) -> dict[int, int]:
  """Fewest presses to the goal of every solvable board, boards as bitmasks."""
  masks = [int("".join(str(v) for v in row[::-1]), 2)
           for row in lights_out.toggle_table(size)]
  distances = {0: 0}
  frontier = collections.deque([0])
  while frontier:
    board = frontier.popleft()
    for mask in masks:
      if board ^ mask not in distances:
        distances[board ^ mask] = distances[board] + 1
        frontier.append(board ^ mask)
  return distances


@pytest.mark.parametrize("size", [3, pytest.param(4, marks=pytest.mark.slow)])
def test_gf2_is_optimal_against_breadth_first_search(size):
  distances = _breadth_first_distances(size)
  squares = size * size
  for code in range(2 ** squares):
    board = np.array([(code >> i) & 1 for i in range(squares)], np.int8)
    if code in distances:
      assert lights_out_gf2.solve(board, size).sum() == distances[code]
    else:
      with pytest.raises(ValueError, match="cannot be turned off"):
        lights_out_gf2.solve(board, size)
  assert len(distances) == {3: 512, 4: 2 ** 12}[size]
