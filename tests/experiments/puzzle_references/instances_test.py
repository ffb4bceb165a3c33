"""Seeded puzzle instances: reproducible, solved by their optimal
solutions, and refused for a puzzle without a table entry."""

import pytest

from open_spiel_ext.experiments.puzzle_references import instances
import pyspiel


@pytest.mark.parametrize("name, size", [("sliding_puzzle", 3),
                                        ("lights_out", 5)])
def test_instances_are_seeded_and_their_solutions_reach_the_goal(name, size):
  drawn = list(instances.generate(name, size, 3, seed=4))
  assert drawn == list(instances.generate(name, size, 3, seed=4))
  for instance in drawn:
    state = pyspiel.load_game(
        name, {"size": size, "state": instance.state}).new_initial_state()
    for move in instance.solution:
      state.apply_action(next(
          a for a in state.legal_actions()
          if state.action_to_string(a) == move))
    assert state.is_terminal()
    assert instance.optimal_length == len(instance.solution)


def test_without_an_exact_solver_in_reach_lengths_are_none():
  instance, = instances.generate("rubiks_cube", 3, 1, seed=0)
  assert instance.optimal_length is None and instance.solution is None


def test_an_unknown_puzzle_is_refused_by_name():
  with pytest.raises(ValueError, match="got 'sokoban'"):
    instances.scrambled_states("sokoban", 1, 1, 0)
  with pytest.raises(ValueError, match="got 'sokoban'"):
    instances.make_puzzle("sokoban", 1)
