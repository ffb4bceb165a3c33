"""CAPI: acquisition, scoring with exact values, and a run on Tiny Hanabi E."""

import itertools

import numpy as np
import pytest

import open_spiel_ext  # pylint: disable=unused-import
from open_spiel_ext.algorithms import capi
from open_spiel_ext.algorithms import pub_mdp
import pyspiel


def test_most_likely_prescriptions_equal_brute_force():
  rng = np.random.default_rng(0)
  rows = [np.log(rng.dirichlet(np.ones(3))) for _ in range(4)]
  choices = capi._most_likely(rows, 7)  # pylint: disable=protected-access
  every = sorted(itertools.product(range(3), repeat=4),
                 key=lambda c: -sum(r[a] for r, a in zip(rows, c)))
  np.testing.assert_array_equal(choices, every[:7])


def test_sampled_rows_follow_their_distributions_independently():
  mdp = pub_mdp.build(pyspiel.load_game("tiny_hanabi_a"))
  learner = capi.Capi(mdp, capi.CapiConfig(seed=3))
  rows = np.array([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6]])
  draws = learner._sample_rows(rows, 200_000)  # pylint: disable=protected-access
  assert draws.shape == (2, 200_000)
  for row, probabilities in zip(draws, rows):
    np.testing.assert_allclose(np.bincount(row, minlength=3) / row.size,
                               probabilities, atol=0.005)
  joint = np.bincount(3 * draws[0] + draws[1], minlength=9) / draws.shape[1]
  np.testing.assert_allclose(joint, np.outer(*rows).ravel(), atol=0.005)


def test_action_masks_set_each_private_state_on_its_action():
  gamma = np.array([[0, 2, 2], [1, 1, 0]])
  masks = capi._action_masks(gamma, np.array([0, 3, 5]), 3)  # pylint: disable=protected-access
  np.testing.assert_array_equal(masks, [[1, 0, (1 << 3) | (1 << 5)],
                                        [1 << 5, 1 | (1 << 3), 0]])


def test_each_depth_weighs_the_same_in_the_losses():
  weights = capi._per_depth_weights(np.array([0, 1, 1, 2, 2, 2, 2]))  # pylint: disable=protected-access
  np.testing.assert_allclose(weights, [1, 0.5, 0.5, 0.25, 0.25, 0.25, 0.25])


def exact_value_oracle(learner, mdp):
  """Replaces the value network by the PuB-MDP's exact optimal values."""
  graph = pub_mdp.belief_graph(mdp)
  optimal = graph.optimal_values()
  lookup = {}
  for index, belief in enumerate(graph.beliefs):
    bits = [int(sum(1 << int(i) for i in np.flatnonzero(r)))
            for r in belief.reach]
    lookup[(belief.stage, *bits)] = optimal[index]
  learner._values_of_keys = lambda keys: np.array(  # pylint: disable=protected-access
      [lookup[tuple(int(v) for v in key)] for key in keys])


@pytest.mark.parametrize("letter", "acef")
@pytest.mark.parametrize("acquisition", capi.ACQUISITIONS)
def test_search_with_exact_values_plays_optimally(letter, acquisition):
  mdp = pub_mdp.build(pyspiel.load_game(f"tiny_hanabi_{letter}"))
  learner = capi.Capi(mdp, capi.CapiConfig(num_prescriptions=200,
                                           acquisition=acquisition))
  exact_value_oracle(learner, mdp)
  decisions = learner.play_episode(explore=False)
  optimum = pub_mdp.belief_graph(mdp).optimal_values()[0]
  assert decisions[0].q == pytest.approx(optimum)
  assert sum(d.probability * d.reward for d in decisions) == pytest.approx(
      optimum)


def test_capi_solves_tiny_hanabi_e():
  mdp = pub_mdp.build(pyspiel.load_game("tiny_hanabi_e"))
  config = capi.CapiConfig(episodes=600, num_prescriptions=100,
                           learning_rate=1e-3, updates_per_episode=5,
                           eval_every=100, seed=0)
  values = [p.search_value for p in capi.train(mdp, config)]
  assert max(values) == pytest.approx(10.0)


def test_tabular_policy_moves_toward_the_best_and_keeps_its_floor():
  mdp = pub_mdp.build(pyspiel.load_game("tiny_hanabi_e"))
  config = capi.CapiConfig(policy="tabular", num_prescriptions=50,
                           tabular_policy_rate=0.5, policy_floor=0.03,
                           epsilon=0.0)
  learner = capi.Capi(mdp, config)
  decisions = learner.play_episode()
  for _ in range(20):
    learner.train_on(decisions)
  root = learner.table[0, 0, :2, :3]
  for private in range(2):
    best = decisions[0].target[0][private]
    assert root[private, best] > 0.97
    # Floored at 0.03 / 3 actions, then renormalised.
    np.testing.assert_allclose(np.delete(root[private], best), 0.01,
                               rtol=0.02)
    assert root[private].sum() == pytest.approx(1)


@pytest.mark.parametrize("field,value", [("acquisition", "top"),
                                         ("policy", "lstm"),
                                         ("num_prescriptions", 0),
                                         ("epsilon", 2.0),
                                         ("learning_rate", 0.0),
                                         ("hidden_sizes", ())])
def test_bad_configurations_are_named(field, value):
  with pytest.raises(ValueError, match=field):
    capi.CapiConfig(**{field: value}).validate()
