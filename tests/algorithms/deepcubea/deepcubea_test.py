"""DAVI targets and target updates, exact resume, BWAS, the shipped models."""

import json
import os
import signal

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from open_spiel_ext.algorithms.deepcubea import bwas
from open_spiel_ext.algorithms.deepcubea import davi
from open_spiel_ext.algorithms.deepcubea import puzzles
from open_spiel_ext.algorithms.deepcubea import shipping
from open_spiel_ext.algorithms.nn import training
from open_spiel_ext.algorithms.puzzle_solvers import batch_astar
from open_spiel_ext.experiments import puzzle_recipes
from open_spiel_ext.experiments.puzzle_references import cube_solvers
from open_spiel_ext.experiments.puzzle_references import instances
from open_spiel_ext.experiments.puzzle_references import sliding_solvers
from open_spiel_ext.games.puzzles import rubiks_cube
from open_spiel_ext.games.puzzles import sliding_puzzle

# A network small enough that a few iterations take well under a second.
_TINY = davi.Config(puzzle="rubiks_cube", size=2, max_scramble=6,
                    batch_size=32, hidden_sizes=(32,), num_blocks=1,
                    check_every=4, loss_threshold=100.0)


def test_bellman_targets_by_hand():
  # State 0: children worth 3, 5 and an illegal 0.5 -> 1 + 3.
  # State 1: its second child is the goal (worth 0 whatever J says) -> 1.
  # State 2: a goal itself -> 0.
  # State 3: negative estimates count as they are -> 1 - 0.5.
  child_values = jnp.array([[3.0, 5.0, 0.5], [2.0, 7.0, 4.0],
                            [1.0, 1.0, 1.0], [-0.5, 2.0, 3.0]])
  child_is_goal = jnp.array([[False, False, False], [False, True, False],
                             [False, False, False], [False, False, False]])
  legal = jnp.array([[True, True, False], [True, True, True],
                     [True, True, True], [True, True, True]])
  state_is_goal = jnp.array([False, False, True, False])
  targets = davi.bellman_targets(child_values, child_is_goal, legal,
                                 state_is_goal)
  np.testing.assert_allclose(targets, [4.0, 1.0, 0.0, 0.5])


def test_targets_start_from_zero_and_follow_the_target_network():
  config = davi.Config(puzzle="sliding_puzzle", size=3, max_scramble=4,
                       batch_size=8, hidden_sizes=(16,), num_blocks=0)
  learner = davi.Davi(config)
  state = learner.init()
  puzzle = sliding_puzzle.SlidingPuzzle(3)
  goal = puzzle.goal
  one_away = puzzle.next_state(goal, puzzle.legal_actions(goal)[0])
  two_away = next(puzzle.next_state(one_away, a)
                  for a in puzzle.legal_actions(one_away)
                  if not puzzle.is_goal(puzzle.next_state(one_away, a)))
  boards = jnp.asarray(np.stack([goal, one_away, two_away]))
  # Before the first copy J_target = 0: y = 1 everywhere but the goal.
  np.testing.assert_allclose(learner.targets(state, boards), [0, 1, 1])
  # After it, y = 1 + min over the children of J_target (0 at the goal).
  ready = training.copy_to_target(state)

  def by_hand(board):
    children = jnp.asarray(np.stack([
        puzzle.next_state(board, a) for a in puzzle.legal_actions(board)]))
    values = learner.cost_to_go(state.target_params, state.target_net_state,
                                children)
    return 1 + min(0.0 if puzzle.is_goal(np.asarray(child)) else float(value)
                   for child, value in zip(children, values))

  np.testing.assert_allclose(learner.targets(ready, boards),
                             [0, by_hand(one_away), by_hand(two_away)],
                             rtol=1e-5)


@pytest.mark.parametrize("iteration,loss,update", [
    (4, 0.01, True), (8, 0.049, True), (4, 0.05, False), (3, 0.01, False),
    (6, 0.0, False)])
def test_target_update_rule(iteration, loss, update):
  assert davi.should_update_target(iteration, loss, check_every=4,
                                   loss_threshold=0.05) == update


def _train(config, output_dir, iterations):
  return davi.train(config, davi.RunConfig(
      iterations=iterations, output_dir=str(output_dir), log_every=4,
      eval_every=0), log=lambda line: None)


def test_target_network_is_copied_every_check_below_the_threshold(tmp_path):
  state, progress = _train(_TINY, tmp_path / "loose", 12)
  assert progress.target_updates == 3
  assert bool(training.has_target(state))
  strict = davi.Config(**{**_TINY.__dict__, "loss_threshold": 1e-9})
  state, progress = _train(strict, tmp_path / "strict", 12)
  assert progress.target_updates == 0
  assert not bool(training.has_target(state))
  # Untouched target: still the initial network.
  initial = davi.Davi(strict).init()
  jax.tree.map(np.testing.assert_array_equal, state.target_params,
               initial.target_params)


def test_resumed_run_matches_an_uninterrupted_one(tmp_path):
  whole, _ = _train(_TINY, tmp_path / "whole", 14)
  # Stops between two target checks, so the loss window is carried over.
  _train(_TINY, tmp_path / "parts", 6)
  resumed, progress = _train(_TINY, tmp_path / "parts", 14)
  assert progress.iteration == 14
  jax.tree.map(np.testing.assert_array_equal, jax.device_get(whole),
               jax.device_get(resumed))
  lines = (tmp_path / "parts" / davi.METRICS).read_text().splitlines()
  assert len(lines) == 3  # Iterations 4 and 8, 12: one log each, kept.
  assert (tmp_path / "parts" / davi.PLOT).exists()


def test_ctrl_c_checkpoints_a_whole_iteration_and_the_run_resumes(tmp_path):
  """Ctrl-C (here sent while iteration 8's line is logged) ends the run at
  the end of that iteration with a checkpoint of it, where it saved nothing
  since its last timed checkpoint; resumed, it ends as a run never stopped,
  and a metrics line written after the checkpoint (a crash) is not kept
  twice."""
  whole, _ = _train(_TINY, tmp_path / "whole", 14)
  parts = tmp_path / "parts"

  def interrupt_at_8(line):
    if line.startswith("iteration       8"):
      os.kill(os.getpid(), signal.SIGINT)

  with pytest.raises(KeyboardInterrupt):
    davi.train(_TINY, davi.RunConfig(
        iterations=14, output_dir=str(parts), log_every=4, eval_every=0,
        checkpoint_seconds=1e9), log=interrupt_at_8)
  _, progress = davi.load_checkpoint(str(parts / davi.CHECKPOINT), _TINY)
  assert progress.iteration == 8
  with open(parts / davi.METRICS, "a", encoding="utf-8") as f:
    f.write('{"kind": "train", "iteration": 12, "loss": 0.0}\n')
  resumed, progress = _train(_TINY, parts, 14)
  assert progress.iteration == 14
  jax.tree.map(np.testing.assert_array_equal, jax.device_get(whole),
               jax.device_get(resumed))
  iterations = [json.loads(line)["iteration"] for line in
                (parts / davi.METRICS).read_text().splitlines()]
  assert iterations == [4, 8, 12]


def test_a_run_on_a_new_machine_resumes_from_its_mirrored_model(tmp_path):
  mirror = tmp_path / "mirror"

  def train_mirrored(output_dir, iterations):
    return davi.train(_TINY, davi.RunConfig(
        iterations=iterations, output_dir=str(output_dir), log_every=4,
        eval_every=0, checkpoint_seconds=0.0, mirror_dir=str(mirror)),
                      log=lines.append)

  lines = []
  first, _ = train_mirrored(tmp_path / "first", 8)
  lines.clear()  # A new machine: its output_dir holds no checkpoint.
  resumed, progress = train_mirrored(tmp_path / "again", 12)
  assert any("resumed from the model mirrored in" in line for line in lines)
  assert progress.iteration == 12 and progress.target_updates == 3
  assert [json.loads(line)["iteration"] for line in (
      tmp_path / "again" / davi.METRICS).read_text().splitlines()] == [4, 8,
                                                                     12]
  start = davi.Davi(_TINY).from_model(str(tmp_path / "first" / davi.MODEL))
  jax.tree.map(np.testing.assert_array_equal, jax.device_get(first.params),
               jax.device_get(start.params))
  assert not jax.tree.all(jax.tree.map(  # It trained on from there.
      lambda a, b: bool(np.array_equal(a, b)),
      jax.device_get(start.params), jax.device_get(resumed.params)))


@pytest.mark.parametrize("candidate, baseline, trials, more", [
    (0.430, 0.425, 1000, False),  # The campaign's 90-minute cube: chance.
    (0.480, 0.425, 1000, True),  # 2.5 standard errors.
    (0.60, 0.50, 100, False),  # 1.4 standard errors.
    (0.60, 0.50, 1000, True),
    (1.0, 1.0, 100, False),  # Both solve everything: no evidence.
    (0.40, 0.50, 1000, False),
])
def test_a_model_solves_more_only_beyond_chance(candidate, baseline, trials,
                                                 more):
  assert shipping.solves_more(candidate, baseline, trials) == more


def test_checkpoint_of_another_configuration_is_refused(tmp_path):
  _train(_TINY, tmp_path, 2)
  other = davi.Config(**{**_TINY.__dict__, "batch_size": 16})
  with pytest.raises(ValueError, match="batch_size=16"):
    _train(other, tmp_path, 4)


def test_exported_model_reproduces_the_network(tmp_path):
  state, _ = _train(_TINY, tmp_path, 4)
  model = davi.CostToGo.load(str(tmp_path / davi.MODEL))
  cube = rubiks_cube.RubiksCube(2)
  states = np.stack([cube.scramble(5, seed) for seed in range(6)] +
                    [cube.goal])
  expected = davi.Davi(_TINY).cost_to_go(state.params, state.net_state,
                                         jnp.asarray(states))
  np.testing.assert_allclose(model(states), expected, rtol=1e-5, atol=1e-5)
  assert model(states)[-1] == 0.0  # The goal.
  assert model.info["iterations"] == 4


def test_greedy_evaluation_of_the_shipped_two_by_two_model():
  model = bwas.shipped_model("rubiks_cube", 2)
  params, net_state = model.network_weights()
  solved, values = model.davi.evaluate(params, net_state,
                                       jax.random.PRNGKey(0), (1, 3), 20)
  np.testing.assert_array_equal(solved, [1.0, 1.0])
  assert 0.5 < values[0] < 1.5 < values[1] < 4.0


@pytest.mark.slow
def test_bwas_with_an_admissible_heuristic_is_optimal():
  engine = rubiks_cube.BatchedCube(2)
  cube = rubiks_cube.RubiksCube(2)
  for seed in range(6):
    state = cube.scramble(20, seed)
    optimal = len(cube_solvers.solve_two_by_two(state))
    result = batch_astar.batch_weighted_astar(
        state, batch_astar.engine_expander(engine),
        lambda states: cube_solvers.corner_distance(states) / 2.0,
        lambda states: np.asarray(engine.is_goal(states)), weight=1.0,
        batch_size=1)
    assert len(result.actions) == optimal


def _follow(puzzle, state, actions):
  for action in actions:
    state = puzzle.next_state(state, action)
  return state


def test_shipped_models_are_small_and_load():
  for puzzle_name, size in puzzle_recipes.DAVI_SHIPPED:
    path = bwas.shipped_model_path(puzzle_name, size)
    assert os.path.getsize(path) <= 10 * 2**20
    model = davi.CostToGo.load(path)
    assert (model.config.puzzle, model.config.size) == (puzzle_name, size)
    assert model.info["iterations"] > 0


def test_shipped_two_by_two_model_solves_optimally():
  model = bwas.shipped_model("rubiks_cube", 2)
  cube = rubiks_cube.RubiksCube(2)
  for seed in range(3):
    state = cube.scramble(100, seed)
    solution = bwas.solve(model, state, weight=0.6, batch_size=1000)
    assert cube.is_goal(_follow(cube, state, solution.actions))
    assert len(solution.actions) == len(cube_solvers.solve_two_by_two(state))


def test_shipped_fifteen_puzzle_model_solves_a_scramble():
  model = bwas.shipped_model("sliding_puzzle", 4)
  puzzle = sliding_puzzle.SlidingPuzzle(4)
  board = puzzle.scramble(40, seed=1)
  optimal = len(sliding_solvers.solve(board, 4).actions)
  solution = bwas.solve(model, board, weight=0.8, batch_size=200)
  assert puzzle.is_goal(_follow(puzzle, board, solution.actions))
  assert len(solution.actions) <= optimal + 2


def test_distinct_scrambles_of_lights_out_lie_exactly_their_depth_away():
  engine = puzzles.make_engine("lights_out", 7)
  depths = jnp.arange(1, 50)
  exact = lambda states: instances.exact_distances("lights_out", 7,
                                                   np.asarray(states))
  distinct = davi.scramble(engine, jax.random.PRNGKey(0), depths, 49,
                           distinct=True)
  np.testing.assert_array_equal(exact(distinct), depths)
  # Presses drawn with repeats cancel in pairs: never farther than their
  # number, and on 49 buttons mostly nearer.
  walked = exact(davi.scramble(engine, jax.random.PRNGKey(0), depths, 49))
  assert np.all(walked <= depths) and np.mean(walked < depths) > 0.5


@pytest.mark.parametrize("changes,bad", [
    ({"batch_size": 0}, "batch_size=0"),
    ({"check_every": 6, "generation_batches": 4}, "generation_batches=4"),
    ({"lr_decay": 1.5}, "lr_decay=1.5"),
    ({"size": 9}, "size=9"),
    ({"puzzle": "sokoban"}, "puzzle='sokoban'"),
    ({"scramble": "shuffle"}, "scramble='shuffle'"),
    ({"scramble": "distinct", "max_scramble": 13}, "max_scramble=13"),
])
def test_bad_configurations_are_named(changes, bad):
  with pytest.raises(ValueError, match=bad):
    davi.Config(**{**_TINY.__dict__, **changes}).validate()


def test_bad_search_inputs_are_named():
  with pytest.raises(ValueError, match="size=5"):
    bwas.shipped_model_path("sliding_puzzle", 5)
  model = bwas.shipped_model("rubiks_cube", 2)
  with pytest.raises(ValueError, match="shape"):
    bwas.solve(model, np.zeros(54, np.int8), 0.6, 10)
