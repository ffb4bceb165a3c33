"""Free-label trainers and the beam and greedy searches: labels, learning in
seconds on small puzzles, exact resume, duplicates, replayed solutions."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from open_spiel_ext.algorithms.deepcubea import beam
from open_spiel_ext.algorithms.deepcubea import davi
from open_spiel_ext.algorithms.deepcubea import free_labels
from open_spiel_ext.experiments import puzzle_recipes
from open_spiel_ext.experiments.puzzle_references import instances
from open_spiel_ext.experiments.puzzle_references import lights_out_gf2
from open_spiel_ext.games.puzzles import lights_out
from open_spiel_ext.games.puzzles import rubiks_cube


def _config(puzzle, size, target=None, **changes):
  return puzzle_recipes.replace(
      puzzle_recipes.free_label_config(puzzle, size, target), **changes)


def _train(config, tmp_path, iterations, **run):
  run_config = free_labels.RunConfig(iterations=iterations,
                                     output_dir=str(tmp_path), log_every=0,
                                     eval_every=0, **run)
  free_labels.train(config, run_config, log=lambda line: None)
  return free_labels.Model.load(str(tmp_path / free_labels.MODEL))


def test_walk_labels_undo_each_step_and_never_revisit():
  config = _config("rubiks_cube", 3, free_labels.LAST_MOVE, walks=16)
  trainer = free_labels.Trainer(config)
  states, moves = free_labels.walks(trainer.engine, jax.random.PRNGKey(3),
                                    16, 26, False, 4)
  goal = np.asarray(trainer.engine.goal)
  path = np.concatenate([np.broadcast_to(goal, (1, 16, goal.size)),
                         np.asarray(states)])
  for step in range(26):
    undone = np.asarray(trainer.engine.step(states[step], moves[step]))
    np.testing.assert_array_equal(undone, path[step])
    for back in range(1, 5):  # Never one of the last four states again.
      if step + 1 - back >= 0:
        assert (path[step + 1] != path[step + 1 - back]).any(axis=1).all()
  encoded, labels = trainer.examples(jax.random.PRNGKey(3), 16)
  assert encoded.shape == (16 * 26, goal.size)
  np.testing.assert_array_equal(labels, np.asarray(moves).ravel())


def test_distance_labels_count_the_steps_walked():
  trainer = free_labels.Trainer(_config("sliding_puzzle", 3, "distance",
                                        walks=5))
  _, labels = trainer.examples(jax.random.PRNGKey(0), 5)
  np.testing.assert_array_equal(
      np.asarray(labels).reshape(31, 5), np.arange(1, 32)[:, None] *
      np.ones((1, 5)))


def test_pressed_labels_are_the_boards_unique_solution():
  # 7x7 Lights Out has an invertible toggle matrix: the presses of a walk
  # that never repeats one are the one fewest-press solution of its board.
  trainer = free_labels.Trainer(_config("lights_out", 7, walks=3))
  states, labels = trainer.examples(jax.random.PRNGKey(1), 3)
  states, labels = np.asarray(states), np.asarray(labels)
  for state, pressed in zip(states[::7], labels[::7]):
    np.testing.assert_array_equal(lights_out_gf2.solve(state, 7), pressed)
  np.testing.assert_array_equal(labels.sum(axis=1).reshape(49, 3),
                                np.arange(1, 50)[:, None] * np.ones((1, 3)))


def test_state_hashes_differ_for_neighbours_and_agree_for_equals():
  engine = free_labels.Trainer(_config("rubiks_cube", 3, walks=2)).engine
  cube = engine.goal[None]
  children = engine.next_states(cube)[0]
  hashes = np.asarray(beam.state_hashes(jnp.concatenate([cube, children]),
                                        0))
  assert len(set(hashes.tolist())) == 13
  assert beam.state_hashes(children, 1).tolist() == beam.state_hashes(
      jnp.asarray(np.asarray(children)), 1).tolist()


@pytest.fixture(scope="module")
def two_by_two_policy(tmp_path_factory):
  config = _config("rubiks_cube", 2, walks=64, hidden_sizes=(128,),
                   num_blocks=1)
  return _train(config, tmp_path_factory.mktemp("cube2"), 400)


def test_last_move_learns_the_two_by_two_in_seconds(two_by_two_policy):
  cube = rubiks_cube.RubiksCube(2)
  starts = [cube.scramble(moves, seed) for seed, moves in
            enumerate(range(6, 11))]
  results = [beam.beam_search(two_by_two_policy, start, 256)
             for start in starts]
  assert all(r.actions is not None for r in results)
  # Within the 2x2x2's diameter, 14 quarter turns.
  assert max(len(r.actions) for r in results) <= 14
  # A policy network is called on the beam, not on the children.
  assert all(r.network_states <= 256 * r.depth for r in results)
  assert all(r.children == 12 * r.nodes_expanded for r in results)


def test_distance_learns_the_eight_puzzle_in_seconds(tmp_path):
  config = _config("sliding_puzzle", 3, "distance", walks=64,
                   hidden_sizes=(128,), num_blocks=1)
  model = _train(config, tmp_path, 400)
  puzzle = instances.make_puzzle("sliding_puzzle", 3)
  rng = np.random.RandomState(0)
  starts = [puzzle.scramble(rng.randint(15, 25), seed) for seed in range(5)]
  results = [beam.beam_search(model, start, 128) for start in starts]
  assert all(r.actions is not None for r in results)
  assert all(r.network_states == r.children for r in results)
  # BWAS takes the same model as its heuristic.
  from open_spiel_ext.algorithms.deepcubea import bwas  # pylint: disable=g-import-not-at-top
  assert bwas.solve(model, starts[0], 0.8, 64, 200_000).actions is not None


def test_pressed_greedy_solves_every_three_by_three_board_optimally(
    tmp_path):
  model = _train(_config("lights_out", 3, walks=200, hidden_sizes=(128,),
                         num_blocks=1), tmp_path, 300)
  boards = (np.arange(512)[:, None] >> np.arange(9)) & 1
  reachable = lights_out_gf2.fewest_presses(boards.astype(np.int8), 3)
  for board, fewest in zip(boards.astype(np.int8), reachable):
    result = beam.greedy(model, board)
    assert result.actions is not None and len(result.actions) == fewest


def test_a_resumed_training_equals_one_never_stopped(tmp_path):
  config = _config("rubiks_cube", 2, walks=8, hidden_sizes=(16,),
                   num_blocks=0)
  whole = free_labels.Trainer(config)
  _train(config, tmp_path / "whole", 6)
  _train(config, tmp_path / "parts", 3)
  _train(config, tmp_path / "parts", 6)
  del whole
  a, _ = free_labels.load_checkpoint(str(tmp_path / "whole" / "checkpoint.pkl"),
                                     config)
  b, progress = free_labels.load_checkpoint(
      str(tmp_path / "parts" / "checkpoint.pkl"), config)
  assert progress.iteration == 6 and progress.examples == 6 * 8 * 14
  for left, right in zip(jax.tree.leaves(a), jax.tree.leaves(b)):
    np.testing.assert_array_equal(left, right)


def test_a_distance_model_is_davis_network_and_warm_starts_it(tmp_path):
  config = _config("rubiks_cube", 2, "distance", walks=8,
                   hidden_sizes=(16,), num_blocks=1)
  model = _train(config, tmp_path, 2)
  davi_config = davi.Config(puzzle="rubiks_cube", size=2, max_scramble=6,
                            batch_size=8, hidden_sizes=(16,), num_blocks=1)
  state = davi.Davi(davi_config).from_model(str(tmp_path / "model.npz"))
  cubes = jnp.asarray(np.stack(instances.scrambled_states("rubiks_cube", 2, 4,
                                                          1)))
  np.testing.assert_allclose(
      davi.Davi(davi_config).cost_to_go(state.params, state.net_state, cubes),
      model(np.asarray(cubes)), rtol=1e-5)
  lines = []
  # The run records where it started, and a run resumed on a new machine
  # (from its mirrored model) still does.
  for output_dir, iterations in (("warm", 2), ("new_machine", 4)):
    davi.train(davi_config, davi.RunConfig(
        iterations=iterations, output_dir=str(tmp_path / output_dir),
        eval_every=0, checkpoint_seconds=0.0,
        init_model=str(tmp_path / "model.npz"),
        mirror_dir=str(tmp_path / "mirror")), log=lines.append)
    info = davi.CostToGo.load(str(tmp_path / output_dir / davi.MODEL)).info
    assert info["iterations"] == iterations
    assert info["started_from"] == "model.npz"
    assert info["started_from_seconds"] == round(
        model.info["training_seconds"], 1)
  assert any("started from the network in" in line for line in lines)
  assert any("resumed from the model mirrored" in line for line in lines)


def test_a_search_that_cannot_finish_says_why(two_by_two_policy):
  start = rubiks_cube.RubiksCube(2).scramble(30, 5)
  assert beam.beam_search(two_by_two_policy, start, 1,
                          max_depth=2).stop_reason == beam.DEPTH_LIMIT
  result = beam.beam_search(two_by_two_policy, start, 4, max_nodes=10)
  assert result.stop_reason == beam.NODE_BUDGET and result.actions is None
  goal = np.asarray(two_by_two_policy.engine.goal)
  assert beam.beam_search(two_by_two_policy, goal, 4).actions == []


def test_bad_inputs_are_named(two_by_two_policy, tmp_path):
  with pytest.raises(ValueError, match="beam_width"):
    beam.beam_search(two_by_two_policy, np.zeros(24, np.int8), 0)
  with pytest.raises(ValueError, match="shape"):
    beam.beam_search(two_by_two_policy, np.zeros(54, np.int8), 4)
  with pytest.raises(ValueError, match="not a position of a real cube"):
    beam.beam_search(two_by_two_policy, np.zeros(24, np.int8), 4)
  with pytest.raises(ValueError, match="ranks moves"):
    two_by_two_policy(np.zeros((1, 24), np.int8))
  with pytest.raises(ValueError, match="pressed"):
    puzzle_recipes.free_label_config("rubiks_cube", 3, "pressed")
  with pytest.raises(ValueError, match="walk_length"):
    _config("lights_out", 3, walk_length=10).validate()
  bad = tmp_path / "bad.npz"
  np.savez(bad, x=np.zeros(2))
  with pytest.raises(ValueError, match="bad.npz"):
    free_labels.load_model(str(bad))
  with pytest.raises(ValueError, match="no shipped free-label model"):
    free_labels.shipped_model_path("sliding_puzzle", 5)


def test_lights_out_engine_and_walks_agree_on_the_toggle_table():
  trainer = free_labels.Trainer(_config("lights_out", 3, walks=2))
  states, moves = free_labels.walks(trainer.engine, jax.random.PRNGKey(0), 2,
                                    9, True, 0)
  table = lights_out.toggle_table(3)
  board = np.zeros(9, np.int8)
  for state, move in zip(np.asarray(states)[:, 0], np.asarray(moves)[:, 0]):
    board = board ^ table[move]
    np.testing.assert_array_equal(board, state)
  assert sorted(np.asarray(moves)[:, 0].tolist()) == list(range(9))
