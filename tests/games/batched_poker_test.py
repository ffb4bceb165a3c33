"""What is particular to the batched poker engines: their deals, clones and
purity (`batched_conformance_test.py` checks them against the contract of
`games/batched.py` and, move by move, against pyspiel)."""

import collections
import re

import jax
import numpy as np
import pytest

from open_spiel_ext.games import batched_poker

ENGINES = {
    "kuhn": batched_poker.kuhn_poker,
    "leduc": batched_poker.leduc_poker,
}


def test_auto_reset_draws_new_deals():
  engine = batched_poker.leduc_poker(auto_reset=True)
  state = engine.init(jax.random.split(jax.random.PRNGKey(4), 500))
  first_deals = np.asarray(state.cards)
  call = np.full(500, batched_poker.CALL, np.int32)
  for _ in range(4):  # Call, call; call, call: every game ends.
    state = engine.step(state, call)
  assert np.asarray(state.terminated).all()
  assert (np.asarray(state.current_player) == 0).all()
  same = (np.asarray(state.cards) == first_deals).all(axis=1)
  assert same.mean() < 0.05  # 1/120 for independent deals.
  state = engine.step(state, call)
  assert not np.asarray(state.terminated).any()
  np.testing.assert_array_equal(state.rewards, 0)


@pytest.mark.parametrize("name, num_deals", [("kuhn", 6), ("leduc", 120)])
def test_deals_are_uniform_without_replacement(name, num_deals):
  per_deal = 200
  engine = ENGINES[name]()
  cards = np.asarray(engine.init(jax.random.split(
      jax.random.PRNGKey(5), num_deals * per_deal)).cards)
  counts = collections.Counter(map(tuple, cards))
  assert len(counts) == num_deals
  assert all(len(set(deal)) == len(deal) for deal in counts)
  # Each count is binomial: mean 200, standard deviation about 14.
  assert per_deal - 75 < min(counts.values()) <= max(
      counts.values()) < per_deal + 75


def test_step_is_pure_and_runs_in_a_jitted_scan():
  engine = batched_poker.leduc_poker(clones=2, auto_reset=True)
  start = engine.init(jax.random.split(jax.random.PRNGKey(12), 16))
  before = np.asarray(start.observation).copy()
  calls = np.tile(np.array([1, 4], np.int32), (9, 8))  # Call, by clone.

  @jax.jit
  def scanned(state):
    return jax.lax.scan(lambda s, a: (engine.step(s, a), None), state,
                        calls)[0]

  state = scanned(start)
  looped = start
  for actions in calls:
    looped = engine.step(looped, actions)
  for got, want in zip(state, looped):
    np.testing.assert_array_equal(got, want)
  np.testing.assert_array_equal(start.observation, before)
  assert not (np.asarray(state.cards) == np.asarray(start.cards)).all()


@pytest.mark.parametrize("clones", [0, -3, 1.5, True, "2", None])
def test_bad_clones_is_an_error_naming_it(clones):
  with pytest.raises(ValueError, match=re.escape(f"clones={clones!r}")):
    batched_poker.leduc_poker(clones=clones)


def test_engines_describe_their_games():
  kuhn = batched_poker.kuhn_poker()
  assert (kuhn.num_players, kuhn.num_actions, kuhn.observation_shape) == (
      2, 2, (11,))
  clone = batched_poker.leduc_poker(clones=20)
  assert str(clone.game) == "xdo_clone_leduc(clones=20)"
  assert (clone.num_actions, clone.observation_shape) == (60, (30,))
  assert str(batched_poker.leduc_poker().game) == "leduc_poker()"
