"""Rubik's cube: move tables, the batched engine's scrambles, the solvers
(`puzzle_conformance_test.py` checks the engine against the game,
`bad_input_test.py` the refusal of bad parameters)."""

import jax
import numpy as np
import pytest

from open_spiel_ext.experiments.puzzle_references import cube_solvers
from open_spiel_ext.games.puzzles import rubiks_cube
import pyspiel

# Positions at each quarter-turn (half-turn) distance, the published counts.
_QUARTER_TURN_COUNTS = (1, 6, 27, 120, 534, 2256, 8969, 33058, 114149, 360508,
                        930588, 1350852, 782536, 90280, 276)
_HALF_TURN_COUNTS = (1, 9, 54, 321, 1847, 9992, 50136, 227536, 870072,
                     1887748, 623800, 2644)


def test_quarter_turns_move_the_right_stickers():
  cube = rubiks_cube.RubiksCube(3)
  after = {name: cube.to_string(cube.next_state(cube.goal, action))
           for action, name in enumerate(rubiks_cube.MOVE_NAMES)}
  # U: the front's top row now shows the right face's colour, and so on.
  assert after["U"] == ("UUUUUUUUU/BBBRRRRRR/RRRFFFFFF/DDDDDDDDD/FFFLLLLLL/"
                        "LLLBBBBBB")
  assert after["R"] == ("UUFUUFUUF/RRRRRRRRR/FFDFFDFFD/DDBDDBDDB/LLLLLLLLL/"
                        "UBBUBBUBB")
  assert after["F"] == ("UUUUUULLL/URRURRURR/FFFFFFFFF/RRRDDDDDD/LLDLLDLLD/"
                        "BBBBBBBBB")


@pytest.mark.parametrize("size", [2, 3])
def test_moves_have_order_four_and_primes_undo_them(size):
  moves = rubiks_cube.move_permutations(size)
  identity = np.arange(6 * size * size)
  for action, move in enumerate(moves):
    undo = moves[rubiks_cube.inverse_move(action)]
    np.testing.assert_array_equal(move[undo], identity)
    np.testing.assert_array_equal(move[move][move][move], identity)
    assert not np.array_equal(move, identity)


def test_three_by_three_corners_move_as_a_two_by_two():
  corners = cube_solvers.corner_stickers(3)
  small = rubiks_cube.move_permutations(2)
  for action, move in enumerate(rubiks_cube.move_permutations(3)):
    np.testing.assert_array_equal(move[corners], corners[small[action]])


def test_whole_cube_rotations_keep_a_two_by_two_solved():
  game = pyspiel.load_game("rubiks_cube(size=2,scramble_moves=0)")
  cube = game.puzzle
  rotations = rubiks_cube.rotation_permutations(2)
  assert len({r.tobytes() for r in rotations}) == 24
  for rotation in rotations:
    assert cube.is_goal(cube.goal[rotation])
  # D and U' then differ only by a rotation: U D' solves to a rotated cube.
  state = cube.next_state(cube.next_state(cube.goal, 0), 3)
  assert cube.is_goal(state)
  assert not pyspiel.load_game("rubiks_cube").puzzle.is_goal(
      rubiks_cube.RubiksCube(3).next_state(rubiks_cube.solved(3), 0))


def test_batched_scrambles_are_random_moves_from_solved():
  engine = rubiks_cube.BatchedCube(3)
  key = jax.random.PRNGKey(7)
  cubes = np.asarray(engine.random_scrambles(key, 8, 12))
  actions = np.asarray(jax.random.randint(key, (12, 8), 0, 12))
  cube = rubiks_cube.RubiksCube(3)
  for column, expected in enumerate(cubes):
    state = cube.goal
    for action in actions[:, column]:
      state = cube.next_state(state, action)
    np.testing.assert_array_equal(state, expected)


def test_two_by_two_table_gives_gods_number_and_distribution():
  quarter = cube_solvers.distance_distribution(
      cube_solvers.two_by_two_table("quarter"))
  assert tuple(quarter.values()) == _QUARTER_TURN_COUNTS
  assert max(quarter) == 14 and sum(quarter.values()) == 3_674_160


@pytest.mark.slow  # A second table of 3.7 M positions.
def test_half_turn_two_by_two_table_gives_gods_number_and_distribution():
  half = cube_solvers.distance_distribution(
      cube_solvers.two_by_two_table("half"))
  assert tuple(half.values()) == _HALF_TURN_COUNTS
  assert max(half) == 11


def _breadth_first_depths(cube: rubiks_cube.RubiksCube, goals: np.ndarray,
                          depth: int) -> dict[bytes, int]:
  """Distances of every state within `depth` moves of one of `goals`."""
  seen = {goal.tobytes(): 0 for goal in goals}
  frontier = list(goals)
  for level in range(1, depth + 1):
    following = []
    for state in frontier:
      for action in range(12):
        child = cube.next_state(state, action)
        if child.tobytes() not in seen:
          seen[child.tobytes()] = level
          following.append(child)
    frontier = following
  return seen


def test_two_by_two_solver_is_optimal_and_solves():
  cube = rubiks_cube.RubiksCube(2)
  rng = np.random.RandomState(0)
  for seed in range(20):
    state = cube.scramble(rng.randint(1, 40), seed)
    actions = cube_solvers.solve_two_by_two(state)
    for action in actions:
      state = cube.next_state(state, action)
    assert cube.is_goal(state)
  # Against plain breadth-first search from the 24 orientations of solved.
  solved = cube.goal[rubiks_cube.rotation_permutations(2)]
  seen = _breadth_first_depths(cube, solved, 4)
  for key, depth in list(seen.items())[::41]:
    state = np.frombuffer(key, np.int8)
    assert len(cube_solvers.solve_two_by_two(state)) == depth


def test_three_by_three_ida_star_is_optimal_on_short_scrambles():
  cube = rubiks_cube.RubiksCube(3)
  seen = _breadth_first_depths(cube, cube.goal[None], 4)
  keys = list(seen)
  rng = np.random.RandomState(1)
  for index in rng.choice(len(keys), 30, replace=False):
    state = np.frombuffer(keys[index], np.int8)
    result = cube_solvers.solve_three_by_three(state)
    assert len(result.actions) == seen[keys[index]]
    for action in result.actions:
      state = cube.next_state(state, action)
    assert cube.is_goal(state)
  deeper = cube.scramble(12, seed=3)
  result = cube_solvers.solve_three_by_three(deeper)
  assert len(result.actions) <= 12 and result.nodes > 0


def _sticker_swaps(state: np.ndarray, count: int,
                   rng: np.random.RandomState) -> list[np.ndarray]:
  """`count` copies of `state` with two stickers of different colours
  swapped (colour counts stay right; centres stay put)."""
  size = int(round(np.sqrt(len(state) / 6)))
  movable = [i for i in range(len(state))
             if size != 3 or i % 9 != 4]  # 3×3×3 centres never move.
  swapped = []
  while len(swapped) < count:
    first, second = rng.choice(movable, 2, replace=False)
    if state[first] != state[second]:
      copy = state.copy()
      copy[first], copy[second] = state[second], state[first]
      swapped.append(copy)
  return swapped


@pytest.mark.parametrize("size", [2, 3])
def test_every_scramble_is_a_real_cube(size):
  cube = rubiks_cube.RubiksCube(size)
  rng = np.random.RandomState(size)
  states = [cube.scramble(rng.randint(0, 60), seed) for seed in range(300)]
  if size == 2:  # Whole-cube turns too: a 2×2×2 has no fixed frame.
    states += [state[rotation] for state in states[:20]
               for rotation in rubiks_cube.rotation_permutations(2)]
  for state in states:
    rubiks_cube.check_real_cube(state, size)
    assert np.array_equal(cube.parse(cube.to_string(state)), state)
  rubiks_cube.BatchedCube(size).check_states(np.array(states))


@pytest.mark.parametrize("size", [2, 3])
def test_sticker_swaps_of_solved_and_scrambled_cubes_are_refused(size):
  cube = rubiks_cube.RubiksCube(size)
  rng = np.random.RandomState(10 + size)
  for start in [cube.goal] + [cube.scramble(30, seed) for seed in range(10)]:
    for state in _sticker_swaps(start, 40, rng):
      with pytest.raises(ValueError, match="not a position of a real cube"):
        cube.parse(cube.to_string(state))
      with pytest.raises(ValueError, match="not a position of a real cube"):
        rubiks_cube.BatchedCube(size).check_states(state[None])


def _with_faces(faces: dict[str, str], size: int = 3) -> str:
  """The solved cube's notation with some faces replaced."""
  return "/".join(faces.get(face, face * size * size)
                  for face in rubiks_cube.FACES)


@pytest.mark.parametrize("size,state,condition", [
    # The example: right colour counts, impossible stickers.
    (2, "UUUR/RRRU/FFFF/DDDD/LLLL/BBBB", "no corner of a cube has"),
    # One corner (UFR) twisted in place.
    (3, _with_faces({"U": "UUUUUUUUF", "R": "URRRRRRRR", "F": "FFRFFFFFF"}),
     "corner twists sum to"),
    # One edge (UF) flipped in place.
    (3, _with_faces({"U": "UUUUUUUFU", "F": "FUFFFFFFF"}),
     "edge flips sum to an odd number"),
    # Two edges (UF, DF) swapped.
    (3, _with_faces({"U": "UUUUUUUDU", "D": "DUDDDDDDD"}),
     "corner permutation is even and the edge permutation odd"),
])
def test_impossible_cubes_name_the_condition(size, state, condition):
  with pytest.raises(ValueError, match=condition):
    pyspiel.load_game(f"rubiks_cube(size={size},state={state})")


def test_a_cubie_twice_is_named():
  state = rubiks_cube.solved(2).copy()
  slots = rubiks_cube.cubie_slots(2)[0]
  state[slots[1]] = state[slots[0]]
  with pytest.raises(ValueError, match="the corner DLB appears 2 times and "
                     "the corner DFL not at all"):
    rubiks_cube.check_real_cube(state, 2)


def test_solvers_refuse_impossible_cubes():
  flipped = rubiks_cube.RubiksCube(3).parse(
      _with_faces({})).copy()
  flipped[[7, 19]] = flipped[[19, 7]]  # UF's two stickers: a flipped edge.
  with pytest.raises(ValueError, match="edge flips"):
    cube_solvers.solve_three_by_three(flipped)
  twisted = rubiks_cube.solved(2).copy()
  slot = rubiks_cube.cubie_slots(2)[0][0]
  twisted[slot] = twisted[np.roll(slot, 1)]
  with pytest.raises(ValueError, match="corner twists"):
    cube_solvers.solve_two_by_two(twisted)


def test_facelets_and_face_turns_follow_kociembas_notation():
  cube = rubiks_cube.RubiksCube(3)
  assert cube_solvers.facelets(cube.goal) == "".join(f * 9 for f in "URFDLB")
  # Kociemba's facelet string after a clockwise R: U's right column shows F.
  turned = cube_solvers.facelets(cube.next_state(
      cube.goal, rubiks_cube.MOVE_NAMES.index("R")))
  assert turned[:9] == "UUFUUFUUF" and turned[18:27] == "FFDFFDFFD"
  assert cube_solvers.quarter_turns("R U' F2") == [
      rubiks_cube.MOVE_NAMES.index(m) for m in ("R", "U'", "F", "F")]
  with pytest.raises(ValueError, match="'X2'"):
    cube_solvers.quarter_turns("R X2")


def test_two_phase_solutions_solve_deep_scrambles():
  pytest.importorskip("kociemba")
  cube = rubiks_cube.RubiksCube(3)
  for seed in range(10):
    state = cube.scramble(100, seed=seed)
    actions = cube_solvers.solve_two_phase(state)
    assert len(actions) <= 2 * 24  # At most 24 face turns by default.
    for action in actions:
      state = cube.next_state(state, action)
    assert cube.is_goal(state)
