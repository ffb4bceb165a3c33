"""The CayleyPy baseline: our cube and CayleyPy's move together, its paths
replay in our game, and a short training run writes a model that solves."""

import json
import os
import sys

import numpy as np
import pytest

cayleypy = pytest.importorskip("cayleypy")

# pylint: disable=g-import-not-at-top,wrong-import-position
from open_spiel_ext.games.puzzles import rubiks_cube

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO_ROOT, "benchmarks"))
import cayleypy_solver  # pylint: disable=g-bad-import-order

GAME = rubiks_cube.RubiksCube(3)
# U R F D L: five quarter turns no shorter sequence undoes.
FIVE_MOVES = [0, 6, 10, 2, 4]


def _apply(state, actions):
  for action in actions:
    state = GAME.next_state(state, action)
  return state


def test_the_maps_are_permutations_and_the_goal_is_their_centre():
  assert sorted(cayleypy_solver.move_map()) == list(range(12))
  assert sorted(cayleypy_solver.sticker_map()) == list(range(54))
  assert sorted(cayleypy_solver.colour_map()) == list(range(6))
  np.testing.assert_array_equal(
      cayleypy_solver.to_cayleypy(rubiks_cube.solved(3)),
      cayleypy_solver.graph_definition().central_state)
  assert cayleypy_solver.from_cayleypy_moves(cayleypy_solver.move_map()) == list(range(12))


def test_random_sequences_move_both_cubes_alike():
  graph = cayleypy.CayleyGraph(cayleypy_solver.graph_definition(), device="cpu")
  rng = np.random.default_rng(0)
  for _ in range(20):
    start = GAME.scramble(int(rng.integers(0, 30)), int(rng.integers(1000)))
    actions = rng.integers(0, 12, 25).tolist()
    theirs = graph.apply_path(cayleypy_solver.to_cayleypy(start),
                              [int(cayleypy_solver.move_map()[a]) for a in actions])
    np.testing.assert_array_equal(
        theirs.reshape(-1).numpy(),
        cayleypy_solver.to_cayleypy(_apply(start, actions)))
    # Their generators' inverses too: a path back to the start.
    back = [a ^ 1 for a in reversed(actions)]
    np.testing.assert_array_equal(
        graph.apply_path(theirs, [int(cayleypy_solver.move_map()[a])
                                  for a in back]).reshape(-1).numpy(),
        cayleypy_solver.to_cayleypy(start))


@pytest.fixture(name="untrained_solver")
def untrained_solver_fixture(tmp_path):
  """A solver over a freshly initialised (untrained) model."""
  path = str(tmp_path / "untrained.pt")
  cayleypy.save_checkpoint(path, cayleypy_solver.model_config().build_model(),
                           cayleypy_solver.model_config(),
                           graph_def=cayleypy_solver.graph_definition())
  return cayleypy_solver.load(path)


def test_solve_returns_our_actions_and_counts_the_beam(untrained_solver):
  # A 3-move scramble is found at the third layer, before the beam of 200
  # prunes anything: the model's ranking does not matter.
  state = _apply(rubiks_cube.solved(3), [0, 6, 10])
  run = cayleypy_solver.solve(untrained_solver, state, beam_width=200)
  assert len(run["actions"]) == 3
  assert GAME.is_goal(_apply(state, run["actions"]))
  # The start, its 12 children, then their (deduplicated) children.
  assert 1 + 12 < run["nodes_expanded"] <= 1 + 12 + 12 * 12
  assert run["steps"] == 3 and run["seconds"] > 0
  assert cayleypy_solver.solve(untrained_solver, rubiks_cube.solved(3),
                        beam_width=10)["actions"] == []


def test_nodes_expanded_is_the_beam_of_each_layer(untrained_solver):
  state = _apply(rubiks_cube.solved(3), FIVE_MOVES)
  run = cayleypy_solver.solve(untrained_solver, state, beam_width=50, max_steps=3)
  assert run["actions"] is None
  assert run["steps"] == 3
  assert run["nodes_expanded"] == 1 + 12 + 50  # The beam fills at layer 2.
  assert run["children"] == 12 * run["nodes_expanded"]
  assert run["network_states"] > 50  # The children it pruned.


def test_a_path_that_misses_our_goal_is_refused(untrained_solver,
                                                monkeypatch):
  monkeypatch.setattr(cayleypy_solver, "from_cayleypy_moves",
                      lambda path: [0] * len(path))
  with pytest.raises(RuntimeError, match="does not solve"):
    cayleypy_solver.solve(untrained_solver,
                   _apply(rubiks_cube.solved(3), [6, 10]), beam_width=100)


@pytest.mark.slow  # About 20 s: 12 s of training, then 3 s more.
def test_training_writes_a_model_that_solves_and_is_reused(tmp_path, capsys):
  path = cayleypy_solver.train(minutes=0.2, output_dir=str(tmp_path), seed=1)
  record_path = os.path.splitext(path)[0] + ".json"
  record = json.loads(open(record_path, encoding="utf-8").read())
  assert record["settings"]["seed"] == 1 and record["minutes"] == 0.2
  assert record["iterations"] > 0
  assert 0 < record["examples_seen"] <= (
      record["iterations"] * cayleypy_solver.RECIPE["batch_size"])
  assert 10 < record["training_seconds"] < 30

  solver = cayleypy_solver.load(path)
  state = GAME.scramble(3, seed=5)
  run = cayleypy_solver.solve(solver, state, beam_width=200)
  assert run["actions"] is not None and len(run["actions"]) <= 3
  assert GAME.is_goal(_apply(state, run["actions"]))

  modified = os.path.getmtime(path)
  assert cayleypy_solver.train(minutes=0.1, output_dir=str(tmp_path),
                        seed=1) == path
  assert "reusing" in capsys.readouterr().out
  assert os.path.getmtime(path) == modified

  assert cayleypy_solver.train(minutes=0.25, output_dir=str(tmp_path),
                        seed=1) == path
  record = json.loads(open(record_path, encoding="utf-8").read())
  assert record["minutes"] == 0.25 and len(record["sessions"]) == 2
  assert "training on from" in capsys.readouterr().out
