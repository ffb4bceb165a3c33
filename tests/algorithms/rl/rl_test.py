"""Learned best responses and NFSP, measured against the tree engine's exact
values on Kuhn poker; opponents, buffers, reproducibility and resumption."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel.python import policy as policy_lib
from open_spiel_ext.algorithms.rl import best_response
from open_spiel_ext.algorithms.rl import buffers
from open_spiel_ext.algorithms.rl import dqn
from open_spiel_ext.algorithms.rl import evaluation
from open_spiel_ext.algorithms.rl import learner
from open_spiel_ext.algorithms.rl import network_policies
from open_spiel_ext.algorithms.rl import nfsp
from open_spiel_ext.algorithms.rl import opponents
from open_spiel_ext.algorithms.rl import ppo
from open_spiel_ext.algorithms.rl import sac
from open_spiel_ext.algorithms.rl import versus
from open_spiel_ext.algorithms.tree import cfr
from open_spiel_ext.algorithms.tree import game_tree
from open_spiel_ext.algorithms.tree import policies as tree_policies
from open_spiel_ext.algorithms.tree import sweeps
from open_spiel_ext.games import batched
from open_spiel_ext.games import batched_loss_game
from open_spiel_ext.games import batched_poker
from open_spiel_ext.utils import checkpoints
import pyspiel

KUHN = pyspiel.load_game("kuhn_poker")


@pytest.fixture(scope="module")
def kuhn_tree():
  return game_tree.build_tree(KUHN)


@pytest.fixture(scope="module")
def cfr_average(kuhn_tree):
  solver = cfr.CFRSolver(sweeps.TreeSweeps(kuhn_tree), "cfr+")
  solver.run(50)
  return solver.average_policy()


def _kuhn_env():
  return batched_poker.kuhn_poker(auto_reset=True)


# Each learner's Kuhn settings: short runs that a working learner passes
# with room to spare.
KUHN_RUNS = {
    "ddqn": (dqn.Config(learning_starts=500, epsilon_decay_steps=1_000,
                        learning_rate_end=1e-5,
                        learning_rate_decay_updates=3_000), 3_000),
    "ppo": (ppo.Config(), 3_000),
    "ppo_shared_trunk": (ppo.Config(shared_trunk=True), 3_000),
    "sac": (sac.Config(), 3_000),
}


# SAC and the CFR+ opponent take a quarter of a minute each: run with -m slow.
@pytest.mark.parametrize("algorithm", [
    pytest.param(name, marks=pytest.mark.slow) if name == "sac" else name
    for name in sorted(KUHN_RUNS)])
@pytest.mark.parametrize("opponent_name", [
    "uniform", pytest.param("cfr+50", marks=pytest.mark.slow)])
def test_learned_best_response_is_exactly_near_the_best(
    algorithm, opponent_name, kuhn_tree, cfr_average):
  opponent = (opponents.uniform() if opponent_name == "uniform" else
              opponents.tabular(kuhn_tree, cfr_average))
  evaluator = evaluation.ExactEvaluator(KUHN, opponent)
  config, steps = KUHN_RUNS[algorithm]
  policy, log = best_response.train_best_response(
      _kuhn_env(), opponent, config, steps=steps, eval_every=steps)
  exact = evaluator(policy)
  assert exact.gap < 0.02, (algorithm, opponent_name, exact)
  assert log[-1].episodes > steps


def _always_pass(params, observation):
  del params  # Kuhn's pass is action 0.
  return jnp.stack([jnp.zeros(len(observation)),
                    jnp.full(len(observation), -1e4)], -1)


def test_exact_values_against_a_mixture_are_the_mixed_values(
    kuhn_tree, cfr_average):
  uniform = tree_policies.uniform(kuhn_tree.legal)
  members, weights = np.stack([uniform, cfr_average]), [0.25, 0.75]
  mixture = opponents.tabular(kuhn_tree, members, weights)
  got = evaluation.ExactEvaluator(KUHN, mixture)(
      learner.LearnedPolicy(_always_pass, ()))
  tree_sweeps = sweeps.TreeSweeps(kuhn_tree)
  learned = tree_policies.pure(np.zeros(len(uniform), int), 2)
  player = kuhn_tree.infoset_player[:, None]
  for seat in (0, 1):
    sign = 1 if seat == 0 else -1
    expected = sum(
        w * sign * tree_sweeps.expected_value(
            np.where(player == seat, learned, member))
        for member, w in zip(members, weights))
    assert got.values[seat] == pytest.approx(expected, abs=1e-6)


def _mixture(kind, kuhn_tree, cfr_average):
  """A two-member mixture opponent of `kind` and its members' policy arrays."""
  weights = [0.3, 0.7]
  if kind == "tabular":
    members = np.stack([tree_policies.uniform(kuhn_tree.legal), cfr_average])
    return opponents.tabular(kuhn_tree, members, weights), members
  network = dqn.q_network((8,), 2)
  params = [network.init(jax.random.PRNGKey(seed), jnp.zeros((1, 11)))
            for seed in (0, 1)]
  stacked = jax.tree.map(lambda *x: jnp.stack(x), *params)
  opponent = opponents.network(network.apply, stacked, weights)
  if kind == "anchored":  # CFR+ and uniform anchors, then the networks.
    opponent = opponents.anchored(
        [opponents.tabular(kuhn_tree, cfr_average), opponents.uniform()],
        opponent, [0.4, 0.1, 0.2, 0.3])
  return opponent, opponent.members_table(kuhn_tree, 1)


@pytest.mark.parametrize("kind", ["tabular", "network", "anchored"])
def test_versus_env_returns_match_the_exact_value_against_a_mixture(
    kind, kuhn_tree, cfr_average):
  opponent, members = _mixture(kind, kuhn_tree, cfr_average)
  env = versus.VersusEnv(_kuhn_env(), opponent)
  batch, state = 4096, env.init(jax.random.PRNGKey(1), 4096)
  returns = []
  for _ in range(40):  # The learner always bets (action 1).
    state, reward, done = env.step(state, jnp.ones(batch, jnp.int32))
    returns.append(np.asarray(reward)[np.asarray(done)])
  returns = np.concatenate(returns)
  tree_sweeps = sweeps.TreeSweeps(kuhn_tree)
  always_bet = tree_policies.pure(np.ones(len(members[0]), int), 2)
  mixed = tree_sweeps.mixture_policy(members,
                                     np.asarray(opponent.weights, float))
  player = kuhn_tree.infoset_player[:, None]
  exact = np.mean([
      (1 if seat == 0 else -1) * tree_sweeps.expected_value(
          np.where(player == seat, always_bet, mixed)) for seat in (0, 1)])
  standard_error = returns.std() / np.sqrt(len(returns))
  assert abs(returns.mean() - exact) < 4 * standard_error


def test_runs_are_reproducible_and_resume_to_the_same_parameters(tmp_path):
  config = dqn.Config(learning_starts=100, batch_size=64,
                      buffer_capacity=5_000)
  run = lambda **kw: best_response.train_best_response(
      _kuhn_env(), opponents.uniform(), config, steps=300, eval_every=100,
      num_envs=16, seed=3, **kw)
  first, _ = run()
  second, _ = run()
  path = str(tmp_path / "checkpoint.pkl")

  def interrupt(entry):
    if entry.step == 100:
      raise KeyboardInterrupt

  with pytest.raises(KeyboardInterrupt):
    run(checkpoint_path=path, on_entry=interrupt)
  resumed, log = run(checkpoint_path=path)
  assert [entry.step for entry in log] == [100, 200, 300]
  for a, b, c in zip(jax.tree.leaves(first.params),
                     jax.tree.leaves(second.params),
                     jax.tree.leaves(resumed.params)):
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, c)


def test_a_finished_run_extended_ends_as_the_longer_run(tmp_path):
  """More steps than a finished run's extend it (they were refused: a longer
  run meant starting over); fewer than it has trained are refused."""
  config = dqn.Config(learning_starts=100, batch_size=64,
                      buffer_capacity=5_000)
  run = lambda steps, **kw: best_response.train_best_response(
      _kuhn_env(), opponents.uniform(), config, steps=steps, eval_every=100,
      num_envs=16, seed=3, **kw)
  longer, _ = run(300)
  path = str(tmp_path / "checkpoint.pkl")
  run(200, checkpoint_path=path)
  extended, log = run(300, checkpoint_path=path)
  assert [entry.step for entry in log] == [100, 200, 300]
  for a, b in zip(jax.tree.leaves(longer.params),
                  jax.tree.leaves(extended.params)):
    np.testing.assert_array_equal(a, b)
  with pytest.raises(checkpoints.CheckpointError,
                     match="has trained 300 steps, more than the 200"):
    run(200, checkpoint_path=path)


def test_a_checkpoint_is_not_resumed_against_another_opponent(
    tmp_path, kuhn_tree, cfr_average):
  path = str(tmp_path / "checkpoint.pkl")
  run = lambda opponent: best_response.train_best_response(
      _kuhn_env(), opponent, dqn.Config(learning_starts=10), steps=20,
      num_envs=8, checkpoint_path=path)
  run(opponents.uniform())
  with pytest.raises(ValueError, match="opponent="):
    run(opponents.tabular(kuhn_tree, cfr_average))


def test_a_checkpoint_is_not_resumed_on_another_game(tmp_path):
  """Where a changed game read as a mismatch of weight shapes, or resumed
  when the shapes agreed, it is refused by name."""
  path = str(tmp_path / "checkpoint.pkl")
  nfsp.train_nfsp(_kuhn_env(), nfsp.Config(), steps=20, num_envs=8,
                  checkpoint_path=path)
  with pytest.raises(checkpoints.CheckpointError,
                     match="game='leduc_poker\\(\\)' here, "
                     "'kuhn_poker\\(\\)' in the checkpoint"):
    nfsp.train_nfsp(batched_poker.leduc_poker(auto_reset=True),
                    nfsp.Config(), steps=20, num_envs=8,
                    checkpoint_path=path)


def test_nfsp_on_kuhn_approaches_equilibrium():
  _, log = nfsp.train_nfsp(_kuhn_env(), nfsp.Config(), steps=10_000,
                           eval_every=5_000)
  uniform_exploitability = 0.4583  # Kuhn's uniform policy.
  assert log[0].exploitability < uniform_exploitability
  assert log[-1].exploitability < 0.15
  assert log[-1].episodes > 200_000


def test_nfsp_transitions_are_each_players_own():
  """Every stored best-response transition goes from a decision of one
  player to that player's next decision or the end of the game."""
  learner = nfsp.NFSP(nfsp.Config(), _kuhn_env(), batch=8)
  state, _ = learner.run(learner.init(jax.random.PRNGKey(0)), 50)
  stored = jax.tree.map(lambda x: np.asarray(x)[:int(
      state.best_response.buffer.size)], state.best_response.buffer.data)
  player_bits = stored.observation[:, :2]  # Kuhn's tensor starts with it.
  done = stored.done.astype(bool)
  np.testing.assert_array_equal(player_bits[~done],
                                stored.next_observation[~done, :2])
  assert np.all(stored.next_observation[done] == 0)
  assert set(np.unique(stored.reward[done])) <= {-2, -1, 1, 2}
  assert np.all(stored.reward[~done] == 0)


@pytest.mark.slow
def test_reservoir_keeps_a_uniform_sample():
  buffer = buffers.init(jnp.int32(0), capacity=100)
  key = jax.random.PRNGKey(0)
  counts = np.zeros(1000)
  for trial in range(200):
    reservoir = buffer
    for start in range(0, 1000, 50):
      key, add_key = jax.random.split(key)
      reservoir = buffers.reservoir_add(
          reservoir, jnp.arange(start, start + 50), jnp.ones(50, bool),
          add_key)
    counts[np.asarray(reservoir.data)] += 1
    assert int(reservoir.size) == 100 and int(reservoir.seen) == 1000
    del trial
  # Each item is kept with probability 0.1: 20 of 200 trials on average.
  assert counts[:500].mean() == pytest.approx(20, rel=0.15)
  assert counts[500:].mean() == pytest.approx(20, rel=0.15)


def test_ring_buffer_keeps_the_newest_valid_items():
  buffer = buffers.init(jnp.int32(0), capacity=4)
  buffer = buffers.add(buffer, jnp.arange(6), jnp.array([1, 0, 1, 1, 1, 1],
                                                        bool))
  assert sorted(np.asarray(buffer.data).tolist()) == [2, 3, 4, 5]
  assert int(buffer.size) == 4 and int(buffer.seen) == 5


@pytest.mark.parametrize("make_config, message", [
    (lambda: dqn.Config(learning_rate=-0.1), "learning_rate=-0.1"),
    (lambda: dqn.Config(epsilon_end=1.5), "epsilon_end=1.5"),
    (lambda: nfsp.Config(anticipatory=1.2), "anticipatory=1.2"),
    (lambda: nfsp.Config(anticipatory=-0.1), "anticipatory=-0.1"),
    (lambda: nfsp.Config(average_learning_rate=0), "average_learning_rate=0"),
    (lambda: dqn.Config(hidden_sizes=(64, 0)), "hidden_sizes=(64, 0)"),
])
def test_bad_configs_are_refused_naming_the_value(make_config, message):
  with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(
      ")", r"\)")):
    make_config()


def test_an_opponent_policy_for_another_game_is_refused(kuhn_tree):
  leduc_policy = policy_lib.UniformRandomPolicy(
      pyspiel.load_game("leduc_poker"))
  with pytest.raises(ValueError, match="leduc_poker"):
    opponents.from_openspiel(leduc_policy, kuhn_tree)


def test_mixture_weights_are_checked(kuhn_tree):
  uniform = tree_policies.uniform(kuhn_tree.legal)
  with pytest.raises(ValueError, match=r"weights=\[0.5, 0.6\]"):
    opponents.tabular(kuhn_tree, np.stack([uniform, uniform]), [0.5, 0.6])
  with pytest.raises(ValueError, match=r"mixtures of \[2\] members"):
    opponents.anchored([opponents.tabular(
        kuhn_tree, np.stack([uniform, uniform]), [0.5, 0.5])],
                       opponents.uniform(), [0.5, 0.5])


def test_best_response_refuses_an_engine_without_auto_reset():
  with pytest.raises(ValueError, match="auto_reset"):
    best_response.train_best_response(
        batched_poker.kuhn_poker(), opponents.uniform(), dqn.Config(),
        steps=10)


def test_any_pyspiel_game_trains_through_pyspiel_vector_env():
  env = batched.PyspielVectorEnv("kuhn_poker", auto_reset=True)
  opponent = opponents.uniform()
  policy, log = best_response.train_best_response(
      env, opponent, dqn.Config(learning_starts=200, epsilon_decay_steps=300),
      steps=900, num_envs=32, eval_every=900)
  assert evaluation.ExactEvaluator(KUHN, opponent)(policy).gap < 0.05
  assert log[-1].episodes > 900 * 32 / 3
  with pytest.raises(ValueError, match="checkpoints need a JAX engine"):
    best_response.train_best_response(env, opponent, dqn.Config(), steps=10,
                                      checkpoint_path="unused.pkl")


def test_a_learned_policy_becomes_an_opponent_that_plays_it(kuhn_tree):
  learned = dqn.DQN(dqn.Config(), (11,), 2, batch=4)
  policy = learned.played(learned.init(jax.random.PRNGKey(5)))
  table = policy.as_opponent().members_table(kuhn_tree, 1)
  np.testing.assert_allclose(
      table[0], network_policies.tabulate(kuhn_tree, policy.logits_fn()),
      atol=1e-6)
  assert np.all(np.isin(np.round(table[0], 6), (0.0, 1.0)))  # Greedy.


def test_approximate_exploitability_approaches_the_exact_one_from_below():
  # A tree-sized Loss Game, where the exact value is known.
  env = batched_loss_game.TurnBasedLossGame("loss_game(bins=3,moves=2)",
                                            auto_reset=True)
  exact = evaluation.OpponentExploitability(env.game)(opponents.uniform())
  approximate = best_response.approximate_exploitability(
      env, opponents.uniform(), dqn.Config(
          hidden_sizes=(64,), learning_starts=200, epsilon_decay_steps=500,
          batch_size=64), check_steps=250, max_steps=2_000, min_gain=-np.inf,
      num_envs=32)
  assert exact - 0.1 < approximate < exact + 0.03  # 0.29 against 0.343.


def test_plateau_rule_stops_on_a_small_gain():
  entry = lambda mean_return: best_response.LogEntry(0, 0, mean_return, 0.0,
                                                     None, {})
  stop = best_response.plateaued(0.01, min_entries=3)
  assert not stop([entry(0.0), entry(0.001)])  # Too early.
  assert not stop([entry(0.0), entry(0.2), entry(0.5)])
  assert stop([entry(0.0), entry(0.5), entry(0.505)])
