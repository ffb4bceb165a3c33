"""CAPI: acquisition, scoring with exact values, and a run on Tiny Hanabi E."""

import itertools
import pickle
import tracemalloc
import zlib

import jax
import numpy as np
import pytest

import open_spiel_ext  # pylint: disable=unused-import
from open_spiel_ext.algorithms import pub_mdp
from open_spiel_ext.algorithms.capi import capi
from open_spiel_ext.algorithms.capi import config as capi_config
from open_spiel_ext.algorithms.capi import model
from open_spiel_ext.algorithms.capi import prescriptions
# Trade Comm's PuB-MDP from its rules, as the runs build it.
from open_spiel_ext.experiments import pub_mdp_rules  # pylint: disable=unused-import
import pyspiel


def test_most_likely_prescriptions_equal_brute_force():
  rng = np.random.default_rng(0)
  rows = [np.log(rng.dirichlet(np.ones(3))) for _ in range(4)]
  choices, scores = prescriptions.most_likely(rows, 7)
  every = sorted(itertools.product(range(3), repeat=4),
                 key=lambda c: -sum(r[a] for r, a in zip(rows, c)))
  order = np.argsort(-scores)
  np.testing.assert_array_equal(choices[order], every[:7])
  np.testing.assert_allclose(
      scores, [sum(r[a] for r, a in zip(rows, c)) for c in choices])


def test_sampled_rows_follow_their_distributions_independently():
  mdp = pub_mdp.build(pyspiel.load_game("tiny_hanabi_a"))
  learner = capi.Capi(mdp, capi_config.Config(seed=3))
  rows = np.array([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6]])
  draws = prescriptions.sample_rows(learner.rng, rows, 200_000)
  assert draws.shape == (2, 200_000)
  for row, probabilities in zip(draws, rows):
    np.testing.assert_allclose(np.bincount(row, minlength=3) / row.size,
                               probabilities, atol=0.005)
  joint = np.bincount(3 * draws[0] + draws[1], minlength=9) / draws.shape[1]
  np.testing.assert_allclose(joint, np.outer(*rows).ravel(), atol=0.005)


def test_action_masks_set_each_private_state_on_its_action():
  gamma = np.array([[0, 2, 2], [1, 1, 0]])
  masks = prescriptions.action_masks(gamma, np.array([0, 3, 5]), 3)
  np.testing.assert_array_equal(masks, [[1, 0, (1 << 3) | (1 << 5)],
                                        [1 << 5, 1 | (1 << 3), 0]])


def random_value(key) -> float:
  """A fixed pseudo-random value per next belief (stage, bits0, bits1)."""
  return zlib.crc32(repr(tuple(int(v) for v in key)).encode()) / 2**32


def belief_key(belief):
  return (belief.stage, *[int(sum(1 << int(i) for i in np.flatnonzero(r)))
                          for r in belief.reach])


@pytest.mark.parametrize("game,acquisition", [
    ("tiny_bridge_2p(abstracted=True)", "most_likely"),
    ("tiny_bridge_2p(abstracted=True)", "sample"),
    ("trade_comm(num_items=3)", "sample"),
    ("tiny_hanabi_c", "most_likely")])
def test_batched_scores_equal_one_prescription_at_a_time(game, acquisition):
  """q of every acquired prescription, scored for all K at once (as CAPI
  plays), equals the PuB-MDP's step taken one prescription at a time."""
  mdp = pub_mdp.build(pyspiel.load_game(game))
  learner = capi.Capi(mdp, capi_config.Config(
      num_prescriptions=60, acquisition=acquisition, policy="tabular",
      seed=1))
  learner.model.values = lambda keys: np.array(
      [random_value(key) for key in keys])
  rng = np.random.default_rng(0)
  beliefs = [mdp.initial_belief()]
  for belief in itertools.islice(beliefs, 8):  # Sees the beliefs appended.
    rows = learner.model.row_probabilities([belief])[0]
    acquired = learner._acquire(belief, rows, explore=True)  # pylint: disable=protected-access
    scored = learner._score(belief, *acquired)  # pylint: disable=protected-access
    keys = {tuple(int(v) for v in key) for key in scored.keys}
    values = dict(zip(keys, learner.model.values(list(keys))))
    successors_seen, next_beliefs = set(), []
    for index in range(len(scored.rewards)):
      prescription = prescriptions.full_prescription(belief, scored.gammas,
                                                     index)
      reward, successors = mdp.step(belief, *prescription)
      expected_q = reward + sum(p * random_value(belief_key(child))
                                for p, child in successors)
      assert scored.rewards[index] == pytest.approx(reward, abs=1e-5)
      q = scored.rewards[index]
      outcomes = scored.outcomes
      if outcomes is not None:
        chosen = outcomes.prescription == index
        q += np.sum(outcomes.probability[chosen] * np.array(
            [values[tuple(int(v) for v in scored.keys[r])]
             for r in outcomes.key_row[chosen]]))
      assert q == pytest.approx(expected_q, abs=1e-5)
      successors_seen |= {belief_key(child) for _, child in successors}
      next_beliefs += [child for _, child in successors]
    assert keys == successors_seen
    if next_beliefs:
      beliefs.append(next_beliefs[rng.integers(len(next_beliefs))])
  assert len(beliefs) >= 2


@pytest.mark.parametrize("game,acquisition", [
    ("tiny_hanabi_a", "sample"), ("tiny_hanabi_a", "most_likely"),
    ("trade_comm(num_items=3)", "sample")])
def test_acquired_bytes_is_at_most_the_first_decisions_peak(game,
                                                            acquisition):
  """The memory check's estimate (`acquired_bytes`) is a lower bound of
  what acquiring and scoring the first decision's prescriptions allocates
  (numpy's allocations, as tracemalloc counts them)."""
  mdp = pub_mdp.build(pyspiel.load_game(game))
  learner = capi.Capi(mdp, capi_config.Config(
      num_prescriptions=20_000, acquisition=acquisition, policy="tabular",
      seed=1))
  belief = mdp.initial_belief()
  rows = learner.model.row_probabilities([belief])[0]
  tracemalloc.start()
  try:
    learner._score(belief, *learner._acquire(belief, rows, explore=False))  # pylint: disable=protected-access
    peak = tracemalloc.get_traced_memory()[1]
  finally:
    tracemalloc.stop()
  estimate = prescriptions.acquired_bytes(mdp, acquisition, 20_000)
  assert 0 < estimate <= peak


def test_each_depth_weighs_the_same_in_the_losses():
  weights = model.per_depth_weights(np.array([0, 1, 1, 2, 2, 2, 2]))
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
  learner.model.values = lambda keys: np.array(
      [lookup[tuple(int(v) for v in key)] for key in keys])


@pytest.mark.parametrize("letter", "acef")
@pytest.mark.parametrize("acquisition", capi_config.ACQUISITIONS)
def test_search_with_exact_values_plays_optimally(letter, acquisition):
  mdp = pub_mdp.build(pyspiel.load_game(f"tiny_hanabi_{letter}"))
  learner = capi.Capi(mdp, capi_config.Config(num_prescriptions=200,
                                              acquisition=acquisition))
  exact_value_oracle(learner, mdp)
  decisions = learner.play_episode(explore=False)
  optimum = pub_mdp.belief_graph(mdp).optimal_values()[0]
  assert decisions[0].q == pytest.approx(optimum)
  assert sum(d.probability * d.reward for d in decisions) == pytest.approx(
      optimum)


def test_capi_solves_tiny_hanabi_e():
  mdp = pub_mdp.build(pyspiel.load_game("tiny_hanabi_e"))
  config = capi_config.Config(episodes=600, num_prescriptions=100,
                              learning_rate=1e-3, updates_per_episode=5,
                              eval_every=100, seed=0)
  values = [p.search_value for p in capi.train(mdp, config)]
  assert max(values) == pytest.approx(10.0)


def test_tabular_policy_moves_toward_the_best_and_keeps_its_floor():
  mdp = pub_mdp.build(pyspiel.load_game("tiny_hanabi_e"))
  config = capi_config.Config(policy="tabular", num_prescriptions=50,
                              tabular_policy_rate=0.5, policy_floor=0.03,
                              epsilon=0.0)
  learner = capi.Capi(mdp, config)
  decisions = learner.play_episode()
  for _ in range(20):
    learner.train_on(decisions)
  root = learner.model.table[0, 0, :2, :3]
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
    capi_config.Config(**{field: value}).validate()


def checkpoint_contents(path):
  with open(path, "rb") as f:
    payload = pickle.load(f)
  for entry in payload["extra"]["log"]:  # Wall time differs between runs.
    entry.pop("seconds")
    entry.pop("seconds_by_part")
  payload["extra"].pop("timers")
  return payload


@pytest.mark.parametrize("game,settings", [
    ("trade_comm(num_items=3)", dict(num_prescriptions=50)),
    ("tiny_bridge_2p(abstracted=True)",
     dict(num_prescriptions=100, policy="tabular", acquisition="most_likely",
          exploration="one_per_episode", squash_values=True,
          updates_per_episode=2))])
def test_a_resumed_run_writes_the_uninterrupted_runs_next_checkpoint(
    tmp_path, game, settings):
  mdp = pub_mdp.build(pyspiel.load_game(game))
  config = capi_config.Config(episodes=4, eval_every=2, seed=4,
                              hidden_sizes=(16, 16), **settings)
  whole = str(tmp_path / "whole.pkl")
  uninterrupted = list(capi.train(mdp, config, whole))
  cut = str(tmp_path / "cut.pkl")
  run = capi.train(mdp, config, cut)
  assert next(run).episode == 2
  run.close()  # Stopped after its first checkpoint.
  resumed = list(capi.train(mdp, config, cut))
  assert [p.episode for p in resumed] == [2, 4]
  assert [p.search_value for p in resumed] == [
      p.search_value for p in uninterrupted]
  a, b = checkpoint_contents(whole), checkpoint_contents(cut)
  assert a["step"] == b["step"] == 4
  np.testing.assert_array_equal(a["extra"].pop("table"),
                                b["extra"].pop("table"))
  assert a["extra"] == b["extra"]
  for x, y in zip(jax.tree_util.tree_leaves(a["tree"]),
                  jax.tree_util.tree_leaves(b["tree"])):
    np.testing.assert_array_equal(x, y)


def test_a_checkpoint_of_other_settings_is_refused(tmp_path):
  mdp = pub_mdp.build(pyspiel.load_game("tiny_hanabi_e"))
  path = str(tmp_path / "run.pkl")
  settings = dict(episodes=2, eval_every=1, hidden_sizes=(8,))
  list(capi.train(
      mdp, capi_config.Config(num_prescriptions=10, **settings), path))
  with pytest.raises(ValueError, match="num_prescriptions=20 here"):
    list(capi.train(
        mdp, capi_config.Config(num_prescriptions=20, **settings), path))


def test_a_checkpoint_of_another_game_is_refused(tmp_path):
  """Game c's run does not resume game a's checkpoint (it did, labelling
  a's best value as c's)."""
  path = str(tmp_path / "run.pkl")
  config = capi_config.Config(episodes=2, eval_every=1, hidden_sizes=(8,),
                              num_prescriptions=10)
  list(capi.train(pub_mdp.build(pyspiel.load_game("tiny_hanabi_a")), config,
                  path))
  with pytest.raises(ValueError, match="game='tiny_hanabi_c\\(\\)' here, "
                     "'tiny_hanabi_a\\(\\)' in the checkpoint"):
    list(capi.train(pub_mdp.build(pyspiel.load_game("tiny_hanabi_c")),
                    config, path))


def test_one_exploratory_prescription_per_episode_at_most():
  """An episode plays a random acquired prescription at one decision of a
  depth drawn uniformly from the tree's 8 (none if the episode ends before
  it), and nowhere else differs from its best prescription. How often an
  episode explores, and whether the random prescription happens to be the
  best, depend on the random stream and the CPU's floating point (an AMD
  EPYC saw 6 differing episodes of 30 where a Xeon saw 10 or more), so the
  count of exploring episodes is held to its distribution given the depths
  each episode reached: within 5 standard deviations of its mean."""
  mdp = pub_mdp.build(pyspiel.load_game("tiny_bridge_2p(abstracted=True)"))
  learner = capi.Capi(mdp, capi_config.Config(
      num_prescriptions=200, policy="tabular", acquisition="most_likely",
      exploration="one_per_episode", seed=0))
  decide, exploring = learner._decide, []  # pylint: disable=protected-access
  rows, depths = learner.model.row_probabilities, []

  def recording_decide(decision, scored, next_values, played):
    exploring[-1] += played is not None
    return decide(decision, scored, next_values, played)

  def counting_rows(beliefs):
    depths[-1] += 1  # One call per depth the episode reaches.
    return rows(beliefs)

  learner._decide = recording_decide  # pylint: disable=protected-access
  learner.model.row_probabilities = counting_rows
  differing = []
  for _ in range(60):
    exploring.append(0)
    depths.append(0)
    decisions = learner.play_episode()
    differing.append(sum(
        any(np.any(c != t) for c, t in zip(d.chosen, d.target))
        for d in decisions))
  assert all(0 <= e <= 1 for e in exploring)
  assert all(d <= e for d, e in zip(differing, exploring))
  reach = np.array(depths) / learner.num_depths  # P(an episode explores).
  mean, deviation = reach.sum(), np.sqrt((reach * (1 - reach)).sum())
  assert abs(sum(exploring) - mean) <= 5 * deviation
