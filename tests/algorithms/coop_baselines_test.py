"""The tabular common-payoff baselines: exact evaluation, update rules, runs."""

import dataclasses

import numpy as np
import pytest

import open_spiel_ext  # pylint: disable=unused-import
from open_spiel_ext.algorithms import coop_baselines
from open_spiel_ext.algorithms import pub_mdp
from open_spiel_ext.experiments import coop_runs
from open_spiel_ext.experiments import references
import pyspiel


def learner(name, algorithm="iql", runs=4, seed=0):
  mdp = pub_mdp.build(pyspiel.load_game(name))
  config = coop_baselines.Config(algorithm=algorithm)
  return mdp, coop_baselines._TabularLearner(  # pylint: disable=protected-access
      coop_baselines.GameArrays.of(mdp), config, runs,
      np.random.default_rng(seed))


@pytest.mark.parametrize("name", ["tiny_hanabi_f", "trade_comm(num_items=2)",
                                  "tiny_bridge_2p(abstracted=True)"])
def test_greedy_evaluation_equals_the_pub_mdp_value(name):
  mdp, tabular = learner(name, runs=3)
  values = tabular.evaluate()
  for run in range(3):

    def policy(belief, run=run):
      gammas = []
      for player, n in enumerate(mdp.num_private):
        gammas.append(tabular._greedy(  # pylint: disable=protected-access
            player, np.full(n, run), np.full(n, belief.stage), np.arange(n),
            np.zeros(n, int)))
      return tuple(gammas)
    assert values[run] == pytest.approx(pub_mdp.evaluate_policy(mdp, policy),
                                        abs=1e-5)


@pytest.mark.parametrize("algorithm,down_rate", [("iql", 0.5), ("hql", 0.05)])
def test_hysteretic_updates_lower_values_more_slowly(algorithm, down_rate):
  config = coop_baselines.Config(algorithm=algorithm, hysteresis=0.1)
  mdp, tabular = learner("tiny_hanabi_e")
  tabular.config = config
  run, x0, x1 = np.arange(4), np.zeros(4, int), np.zeros(4, int)
  steps = tabular.play(run, x0, x1, epsilon=None)
  for player in range(2):
    tabular.tables[player][:] = 20.0  # Above every payoff: errors < 0.
  tabular.learn(steps, run, x0, x1, learning_rate=0.5)
  step = steps[1]  # Player 1 acts last; its target is the reward.
  updated = tabular.tables[1][run, step.stage, x1, 0, step.actions[1]]
  np.testing.assert_allclose(updated, 20 + down_rate * (step.reward - 20))
  del mdp


def test_vdn_fits_the_sum_of_both_values_to_the_return():
  _, tabular = learner("tiny_hanabi_a", algorithm="vdn")
  run, x0, x1 = np.arange(4), np.array([0, 1, 0, 1]), np.array([0, 0, 1, 1])
  steps = tabular.play(run, x0, x1, epsilon=None)
  indices = [(p, (run, s.stage, (x0, x1)[p], 0, s.actions[p]))
             for p, s in enumerate(steps)]
  before = sum(tabular.tables[p][i] for p, i in indices)
  tabular.learn(steps, run, x0, x1, learning_rate=0.25)
  after = sum(tabular.tables[p][i] for p, i in indices)
  reward = sum(s.reward for s in steps)
  # Both values move by a quarter of the error: half of it is closed.
  np.testing.assert_allclose(after - reward, 0.5 * (before - reward),
                             atol=1e-9)


def test_pub_mdp_q_learning_solves_tiny_hanabi_e():
  mdp = pub_mdp.build(pyspiel.load_game("tiny_hanabi_e"))
  config = coop_baselines.Config(algorithm="pub_mdp_q",
                                 episodes=8000, eval_every=8000)
  final = list(coop_baselines.train(mdp, config, runs=8, seed=0))[-1]
  np.testing.assert_allclose(final.values, references.TINY_HANABI_OPTIMAL_VALUES["e"])


@pytest.mark.parametrize("algorithm", coop_baselines.ALGORITHMS)
def test_runs_are_seeded_and_values_are_feasible(algorithm):
  mdp = pub_mdp.build(pyspiel.load_game("tiny_hanabi_c"))
  config = coop_baselines.Config(algorithm=algorithm, episodes=300,
                                 eval_every=100)
  first = list(coop_baselines.train(mdp, config, runs=4, seed=5))
  second = list(coop_baselines.train(mdp, config, runs=4, seed=5))
  assert [e.episode for e in first] == [100, 200, 300]
  for a, b in zip(first, second):
    np.testing.assert_array_equal(a.values, b.values)
  assert np.all(first[-1].values <= references.TINY_HANABI_OPTIMAL_VALUES["c"] +
                1e-6)


@pytest.mark.parametrize("field,value", [("algorithm", "dqn"),
                                         ("episodes", 0),
                                         ("epsilon_start", 1.5),
                                         ("hysteresis", -0.1),
                                         ("learning_rate_end", -1.0)])
def test_bad_configurations_are_named(field, value):
  config = coop_baselines.Config(**{field: value})
  with pytest.raises(ValueError, match=field.split("_end")[0]):
    config.validate()


def test_a_baseline_task_that_ended_is_not_run_again(tmp_path, monkeypatch):
  game, path = "tiny_hanabi_a", str(tmp_path / "task.pkl")
  config = coop_baselines.Config(algorithm="iql", episodes=200,
                                 eval_every=100)
  first = coop_runs.run_baselines(game, config, 2, 0, 10.0, path)

  def train_again(*args):
    raise AssertionError(f"trained again: {args}")
  monkeypatch.setattr(coop_runs, "_train_baselines", train_again)
  assert coop_runs.run_baselines(game, config, 2, 0, 10.0, path) == first
  with pytest.raises(ValueError, match="episodes=300 here, 200 in"):
    coop_runs.run_baselines(game, dataclasses.replace(config, episodes=300),
                            2, 0, 10.0, path)
