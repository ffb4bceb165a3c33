"""A population of learned policies: its payoff table, exact and sampled,
and the exploitability of its mixtures."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel_ext.algorithms.rl import dqn
from open_spiel_ext.algorithms.rl import network_policies
from open_spiel_ext.algorithms.rl import opponents
from open_spiel_ext.algorithms.rl import population as population_lib
from open_spiel_ext.algorithms.tree import game_tree
from open_spiel_ext.algorithms.tree import sweeps
from open_spiel_ext.games import batched_poker
import pyspiel

KUHN = pyspiel.load_game("kuhn_poker")
NETWORK = dqn.q_network((8,), 2)


def _members(count):
  return [NETWORK.init(jax.random.PRNGKey(seed), jnp.zeros((1, 11)))
          for seed in range(count)]


def _filled(exact, games_per_entry=20_000, **options):
  population = population_lib.Population(
      KUHN, NETWORK.apply, batched_poker.kuhn_poker(auto_reset=True),
      games_per_entry=games_per_entry, exact=exact, **options)
  for params in _members(3):
    population.add(params)
  return population


def test_exact_payoffs_are_the_tree_engines_seat_averaged_values():
  population = _filled(exact=True)
  payoffs = population.payoffs
  np.testing.assert_allclose(payoffs, -payoffs.T, atol=1e-12)
  tree = game_tree.build_tree(KUHN)
  tree_sweeps = sweeps.TreeSweeps(tree)
  tables = [network_policies.tabulate(
      tree, lambda t, p, params=params: np.asarray(NETWORK.apply(params, t)))
            for params in population.members]
  player = tree.infoset_player[:, None]
  value = lambda a, b: tree_sweeps.expected_value(
      np.where(player == 0, a, b))
  expected = 0.5 * (value(tables[2], tables[0]) - value(tables[0], tables[2]))
  assert payoffs[2, 0] == pytest.approx(expected, abs=1e-9)
  assert np.abs(payoffs).max() > 0.01  # Random members differ.
  opponent = population.opponent(np.array([0.2, 0.0, 0.8]))
  np.testing.assert_allclose(opponent.members_table(tree, 1),
                             np.stack(tables), atol=1e-6)
  np.testing.assert_allclose(opponent.weights, [0.2, 0.0, 0.8])
  alone = population.exploitability(np.array([1.0, 0.0, 0.0]))
  assert alone == pytest.approx(tree_sweeps.exploitability(tables[0]),
                                abs=1e-9)


def test_sampled_payoffs_agree_with_the_exact_ones():
  exact = _filled(exact=True).payoffs
  sampled = _filled(exact=False, games_per_entry=40_000).payoffs
  # Kuhn's returns are at most 2 chips: 4 standard errors of 40,000 games.
  np.testing.assert_allclose(sampled, exact, atol=4 * 2 / np.sqrt(40_000))


def test_an_entry_counts_each_game_once_however_long():
  """One batch of whole games: shorter games (folds) are not counted more
  often than longer ones (showdowns), as they would be were the first
  endings of restarting games counted."""
  exact = _filled(exact=True).payoffs
  sampled = _filled(exact=False, games_per_entry=20_000,
                    entry_batch=20_000).payoffs
  np.testing.assert_allclose(sampled, exact, atol=4 * 2 / np.sqrt(20_000))


def test_games_dealt_to_slots_as_they_free_up_are_each_counted_once():
  """A call deals 8 games a slot on average, each to the next free slot:
  the mean stays the exact one (no game counted twice, cut short or lost
  to an idle slot), in an eighth of the slots."""
  exact = _filled(exact=True).payoffs
  population = _filled(exact=False, games_per_entry=20_000, entry_batch=2_500,
                       entry_games_per_slot=8)
  assert population.entry_games == 3 * 20_000
  np.testing.assert_allclose(population.payoffs, exact,
                             atol=4 * 2 / np.sqrt(20_000))
  with pytest.raises(ValueError, match="entry_games_per_slot=0"):
    population_lib.Population(KUHN, NETWORK.apply, entry_games_per_slot=0)


def test_an_entry_stops_once_its_standard_error_is_small_enough():
  exact = _filled(exact=True).payoffs
  population = _filled(exact=False, games_per_entry=40_000, entry_batch=512,
                       entry_standard_error=0.05)
  # Three entries, each stopped well before 40,000 games (Kuhn's returns
  # have a standard deviation of about 1.3 chips: a few batches suffice).
  assert population.entry_games <= 3 * 10 * 512
  np.testing.assert_allclose(population.payoffs, exact, atol=4 * 0.05 + 0.01)
  errors = population.standard_errors
  off_diagonal = ~np.eye(3, dtype=bool)
  assert (0 < errors[off_diagonal]).all() and (errors <= 0.05).all()
  np.testing.assert_array_equal(errors, errors.T)
  assert (_filled(exact=True).standard_errors == 0).all()


def test_sampled_entries_depend_on_the_pair_only():
  """A resumed run (its table restored, no key) samples the entries it adds
  as a run never stopped: each entry's games are keyed by the pair."""
  reference = _filled(exact=False, games_per_entry=256)
  resumed = population_lib.Population(
      KUHN, NETWORK.apply, batched_poker.kuhn_poker(auto_reset=True),
      games_per_entry=256, exact=False)
  first, second, third = _members(3)
  resumed.add(first)
  resumed.add(second)
  resumed.payoffs_with([third])  # Trials in between change nothing.
  restarted = population_lib.Population(
      KUHN, NETWORK.apply, batched_poker.kuhn_poker(auto_reset=True),
      games_per_entry=256, exact=False)
  restarted.restore(resumed.state())
  restarted.add(third)
  np.testing.assert_array_equal(restarted.payoffs, reference.payoffs)


def test_bad_settings_are_refused():
  with pytest.raises(ValueError, match="games_per_entry=0"):
    population_lib.Population(KUHN, NETWORK.apply, games_per_entry=0)
  with pytest.raises(ValueError, match="entry_batch=1"):
    population_lib.Population(KUHN, NETWORK.apply, entry_batch=1)
  with pytest.raises(ValueError, match="entry_standard_error=-0.1"):
    population_lib.Population(KUHN, NETWORK.apply, entry_standard_error=-0.1)
  with pytest.raises(ValueError, match="batched engine"):
    population_lib.Population(KUHN, NETWORK.apply, exact=False)


def test_without_a_standard_error_target_every_game_is_played(monkeypatch):
  """entry_standard_error=0 plays games_per_entry games even where a batch's
  games all end alike (a standard error of 0: every 30-ply Stratego game
  drawn), which used to stop an entry after its first batch."""
  monkeypatch.setattr(population_lib, "seat_averaged_mean",
                      lambda returns, seats: (0.0, 0.0))
  population = _filled(exact=False, games_per_entry=64, entry_batch=16)
  assert population.entry_games == 3 * 64


def _anchors():
  """Uniform play and CFR+'s average policy, as fixed single policies."""
  return [opponents.uniform(), opponents.from_spec("cfr+:20", KUHN)]


def test_anchors_head_the_table_with_their_exact_entries():
  anchored = population_lib.Population(KUHN, NETWORK.apply,
                                       anchors=_anchors())
  plain = population_lib.Population(KUHN, NETWORK.apply)
  for params in _members(2):
    anchored.add(params)
    plain.add(params)
  assert len(anchored) == 4 and len(anchored.members) == 2
  np.testing.assert_allclose(anchored.payoffs[2:, 2:], plain.payoffs)
  np.testing.assert_allclose(anchored.payoffs, -anchored.payoffs.T,
                             atol=1e-12)
  tree = game_tree.build_tree(KUHN)
  tree_sweeps = sweeps.TreeSweeps(tree)
  tables = np.concatenate([a.members_table(tree, 1) for a in _anchors()] +
                          [plain.opponent(np.ones(2) / 2).members_table(
                              tree, 1)])
  player = tree.infoset_player[:, None]
  value = lambda a, b: tree_sweeps.expected_value(
      np.where(player == 0, a, b))
  for i, j in ((1, 0), (2, 0), (3, 1)):
    expected = 0.5 * (value(tables[i], tables[j]) -
                      value(tables[j], tables[i]))
    assert anchored.payoffs[i, j] == pytest.approx(expected, abs=1e-9)
  weights = np.array([0.1, 0.5, 0.0, 0.4])
  np.testing.assert_allclose(anchored.opponent(weights).members_table(tree, 1),
                             tables, atol=1e-6)
  assert anchored.exploitability(weights) == pytest.approx(
      tree_sweeps.exploitability(tree_sweeps.mixture_policy(tables, weights)),
      abs=1e-9)


def test_sampled_anchor_entries_agree_with_the_exact_ones():
  exact = population_lib.Population(KUHN, NETWORK.apply, anchors=_anchors())
  sampled = population_lib.Population(
      KUHN, NETWORK.apply, batched_poker.kuhn_poker(auto_reset=True),
      games_per_entry=20_000, exact=False, anchors=_anchors())
  for params in _members(1):
    exact.add(params)
    sampled.add(params)
  np.testing.assert_allclose(sampled.payoffs, exact.payoffs,
                             atol=4 * 2 / np.sqrt(20_000))


def test_an_unanchored_state_gets_the_anchors_put_first():
  """A run forked from one without anchors: its table gains their rows."""
  plain = population_lib.Population(KUHN, NETWORK.apply)
  anchored = population_lib.Population(KUHN, NETWORK.apply,
                                       anchors=_anchors())
  for params in _members(2):
    plain.add(params)
    anchored.add(params)
  forked = population_lib.Population(KUHN, NETWORK.apply, anchors=_anchors())
  forked.restore(plain.state())
  np.testing.assert_allclose(forked.payoffs, anchored.payoffs, atol=1e-12)
  third = _members(3)[2]
  forked.add(third)
  anchored.add(third)
  np.testing.assert_allclose(forked.payoffs, anchored.payoffs, atol=1e-12)
  with pytest.raises(ValueError, match="2 anchors, this one 1"):
    population_lib.Population(KUHN, NETWORK.apply,
                              anchors=_anchors()[:1]).restore(anchored.state())
