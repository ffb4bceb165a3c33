"""The Tiny Hanabi Suite: payoff tables as published and optimal joint values."""

import itertools

import numpy as np
import pytest

from open_spiel_ext.experiments import references
from open_spiel_ext.games import tiny_hanabi
import pyspiel


def payoff_table(game: pyspiel.Game) -> tuple[np.ndarray, np.ndarray]:
  """Reads, by playing the game, [card0, card1, action0, action1] payoffs.

  Returns:
    (payoffs, probabilities of each deal [card0, card1]).
  """
  root = game.new_initial_state()
  cards = len(root.chance_outcomes())
  actions = game.num_distinct_actions()
  payoffs = np.zeros((cards, cards, actions, actions))
  deal_probabilities = np.zeros((cards, cards))
  for card0, prob0 in root.chance_outcomes():
    dealt_one = root.child(card0)
    for card1, prob1 in dealt_one.chance_outcomes():
      dealt = dealt_one.child(card1)
      deal_probabilities[card0, card1] = prob0 * prob1
      for action0 in dealt.legal_actions():
        acted = dealt.child(action0)
        for action1 in acted.legal_actions():
          returns = acted.child(action1).returns()
          assert returns[0] == returns[1]  # Common payoff.
          payoffs[card0, card1, action0, action1] = returns[0]
  return payoffs, deal_probabilities


def best_joint_policy_value(game: pyspiel.Game) -> float:
  """Enumerates every deterministic joint policy and returns the best value.

  Player 0 maps its card to an action; player 1 maps its card and player 0's
  action to an action.
  """
  payoffs, deal_probabilities = payoff_table(game)
  cards, _, actions, _ = payoffs.shape
  deals = list(itertools.product(range(cards), repeat=2))
  best = -np.inf
  for policy0 in itertools.product(range(actions), repeat=cards):
    for policy1 in itertools.product(range(actions), repeat=cards * actions):
      value = sum(
          deal_probabilities[c0, c1] *
          payoffs[c0, c1, policy0[c0], policy1[c1 * actions + policy0[c0]]]
          for c0, c1 in deals)
      best = max(best, value)
  return best


@pytest.mark.parametrize("letter", sorted(tiny_hanabi.SUITE))
def test_optimal_joint_policy_value(letter):
  game = pyspiel.load_game(f"tiny_hanabi_{letter}")
  assert best_joint_policy_value(game) == pytest.approx(references.TINY_HANABI_OPTIMAL_VALUES[letter])


@pytest.mark.parametrize("letter", sorted(set(tiny_hanabi.SUITE) - {"e"}))
def test_payoffs_follow_the_published_order(letter):
  cards, actions, payoff = tiny_hanabi.SUITE[letter]
  payoffs, deal_probabilities = payoff_table(
      pyspiel.load_game(f"tiny_hanabi_{letter}"))
  assert payoffs.shape == (cards, cards, actions, actions)
  expected = [float(x) for x in payoff.split(";")]
  np.testing.assert_array_equal(payoffs.ravel(), expected)
  np.testing.assert_allclose(deal_probabilities, 1.0 / cards**2)


def test_game_e_is_openspiels_default_tiny_hanabi():
  payoffs, _ = payoff_table(pyspiel.load_game("tiny_hanabi_e"))
  default_payoffs, _ = payoff_table(pyspiel.load_game("tiny_hanabi"))
  assert payoffs.shape == (2, 2, 3, 3)
  np.testing.assert_array_equal(payoffs, default_payoffs)
