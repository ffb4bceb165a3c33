"""k-GMP families and RPS choice: payoffs, game values and equilibria."""

import numpy as np
import pytest

from open_spiel.python import policy
from open_spiel.python.algorithms import expected_game_score
from open_spiel.python.algorithms import exploitability
from open_spiel_ext.games import k_gmp
import pyspiel

ZERO_VALUE_GAMES = [
    "k_gmp", "k_gmp(actions=2,k=1)", "k_gmp(actions=7,k=3)", "clone_gmp",
    "clone_gmp(classes=4,clones=3,k=2)", "rps_choice", "rps_choice(games=4)"
]


def matrix_payoff(game: pyspiel.Game, subgame: int, action0: int,
                  action1: int) -> float:
  """Player 0's payoff, read by playing the game."""
  state = game.new_initial_state()
  for action in (subgame, action0, action1):
    state.apply_action(action)
  assert state.is_terminal()
  return state.returns()[0]


@pytest.mark.parametrize("game_string", ZERO_VALUE_GAMES)
def test_uniform_play_is_an_equilibrium_of_value_zero(game_string):
  game = pyspiel.load_game(game_string)
  uniform = policy.UniformRandomPolicy(game)
  assert exploitability.nash_conv(game, uniform) == pytest.approx(0, abs=1e-12)
  value = expected_game_score.policy_value(game.new_initial_state(),
                                           [uniform, uniform])
  assert value == pytest.approx([0, 0], abs=1e-12)


def test_k_gmp_payoffs():
  game = pyspiel.load_game("k_gmp(actions=3,k=2)")
  for subgame in range(2):
    for a0 in range(3):
      for a1 in range(3):
        assert matrix_payoff(game, subgame, a0, a1) == (2 if a0 == a1 else -1)


def test_clone_gmp_matches_by_class():
  game = pyspiel.load_game("clone_gmp(classes=3,clones=2,k=1)")
  assert game.num_distinct_actions() == 6
  for a0 in range(6):
    for a1 in range(6):
      expected = 2 if a0 % 3 == a1 % 3 else -1
      assert matrix_payoff(game, 0, a0, a1) == expected


def test_rps_choice_payoffs_and_pick():
  game = pyspiel.load_game("rps_choice(games=3)")
  state = game.new_initial_state()
  assert state.current_player() == 0
  assert state.legal_actions() == [0, 1, 2]
  rock, paper, scissors = 0, 1, 2
  for subgame in range(3):
    assert matrix_payoff(game, subgame, paper, rock) == 1
    assert matrix_payoff(game, subgame, rock, paper) == -1
    assert matrix_payoff(game, subgame, scissors, scissors) == 0
  picked = game.new_initial_state().child(2)
  assert picked.information_state_string(1) == "p1 subgame:2"


def test_player_one_never_sees_player_zeros_action():
  game = pyspiel.load_game("k_gmp(actions=3,k=2)")
  views = {game.new_initial_state().child(1).child(a0).information_state_string(1)
           for a0 in range(3)}
  assert views == {"p1 subgame:1"}


def test_perturbations_come_from_the_seed():
  first = k_gmp.perturbations(5, 4, seed=3)
  assert np.all(np.abs(first) < 1)
  np.testing.assert_array_equal(first, k_gmp.perturbations(5, 4, seed=3))
  assert not np.allclose(first, k_gmp.perturbations(5, 4, seed=4))
  game = pyspiel.load_game("perturbed_k_gmp(actions=4,k=5,seed=3)")
  for subgame in range(5):
    for a0 in range(4):
      for a1 in range(4):
        expected = 3 + first[subgame, a0] if a0 == a1 else -1
        assert matrix_payoff(game, subgame, a0, a1) == pytest.approx(expected)


def test_perturbed_subgames_have_distinct_equilibria():
  """CFR+ finds each subgame's equilibrium: play a ∝ 1 / (actions + δ_a)."""
  k, actions, seed = 4, 3, 11
  game = pyspiel.load_game(
      f"cached_tree(game=perturbed_k_gmp(actions={actions},k={k},seed={seed}))")
  solver = pyspiel.CFRPlusSolver(game)
  for _ in range(3000):
    solver.evaluate_and_update_policy()
  table = solver.tabular_average_policy().policy_table()
  inverse_gaps = 1.0 / (actions + k_gmp.perturbations(k, actions, seed))
  closed_form = inverse_gaps / inverse_gaps.sum(axis=1, keepdims=True)
  for subgame in range(k):
    for player in (0, 1):
      found = [prob for _, prob in table[f"p{player} subgame:{subgame}"]]
      np.testing.assert_allclose(found, closed_form[subgame], atol=5e-3)
  for first in range(k):
    for second in range(first + 1, k):
      assert np.abs(closed_form[first] - closed_form[second]).max() > 0.01
  assert pyspiel.exploitability(game, solver.average_policy()) < 1e-3
