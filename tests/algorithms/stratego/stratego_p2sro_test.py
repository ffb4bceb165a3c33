"""P2SRO on Barrage Stratego with the convolutional PPO learners: a resumed
run ends as one never stopped, and the population file plays its mixture."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel_ext.algorithms import p2sro
from open_spiel_ext.algorithms.rl import networks
from open_spiel_ext.algorithms.rl import ppo
from open_spiel_ext.algorithms.stratego import agents
from open_spiel_ext.algorithms.stratego import arena
from open_spiel_ext.algorithms.stratego import bots
from open_spiel_ext.experiments import stratego_recipes
from open_spiel_ext.games.stratego import env as env_lib
from open_spiel_ext.utils import executors
import pyspiel

GAME = pyspiel.load_game("barrage_stratego(ply_limit=30)")
LEARNER_CONFIG = ppo.Config(network="stratego_conv", hidden_sizes=(4, 4),
                            rollout_length=4, epochs=1, minibatches=2)
CONFIG = p2sro.Config(learners=2, chunk_steps=4, min_steps=4,
                      plateau_gain=10.0, num_envs=4, games_per_entry=4,
                      fictitious_play_iterations=100)
ROUNDS = 3


@pytest.fixture(name="pool", scope="module")
def pool_fixture():
  with executors.make_executor("process", 1) as executor:
    yield executor


def _run(directory, pool, rounds):
  pipeline = p2sro.Pipeline(GAME, LEARNER_CONFIG, CONFIG, str(directory),
                            lambda: pool, evaluator=None,
                            engine_options=stratego_recipes.ENGINE_OPTIONS)
  list(pipeline.run(max_rounds=rounds))
  return pipeline


@pytest.mark.slow  # About a minute of compiling (driver and worker).
def test_a_resumed_stratego_run_ends_as_one_never_stopped(pool, tmp_path):
  reference = _run(tmp_path / "reference", pool, ROUNDS)
  _run(tmp_path / "stopped", pool, ROUNDS - 1)
  resumed = _run(tmp_path / "stopped", pool, ROUNDS)
  assert len(reference.population) == ROUNDS  # One a round from round 2.
  assert [e.mean_returns for e in resumed.log] == [
      e.mean_returns for e in reference.log]
  jax.tree.map(np.testing.assert_array_equal, resumed.population.members,
               reference.population.members)
  np.testing.assert_array_equal(resumed.population.payoffs,
                                reference.population.payoffs)
  np.testing.assert_allclose(reference.population.payoffs,
                             -reference.population.payoffs.T)


@pytest.mark.parametrize("shared_trunk", [False, True])
def test_a_population_file_plays_its_meta_nash_mixture(tmp_path,
                                                       shared_trunk):
  policy = networks.build_policy("stratego_conv", (4, 4),
                                 GAME.num_distinct_actions(), shared_trunk)
  observation = jnp.zeros((1,) + tuple(GAME.observation_tensor_shape()))
  members = [policy.init(jax.random.PRNGKey(seed), observation)
             for seed in range(3)]
  path = str(tmp_path / "population.npz")
  kept = agents.save_population(path, members, np.array([0.6, 0.3995, 5e-4]),
                                "stratego_conv", (4, 4),
                                GAME.num_distinct_actions(), {"run": "test"},
                                shared_trunk)
  assert kept == 2  # The member under MIN_WEIGHT is left out.
  mixture, meta = agents.load_population(path)
  np.testing.assert_allclose(mixture.weights, [0.6 / 0.9995, 0.3995 / 0.9995])
  assert meta["run"] == "test" and meta["population_indices"] == [0, 1]
  env = env_lib.StrategoEnv(GAME, relative_actions=True)
  results = arena.play(env, agents.opponent(path), bots.bot("random"), 4,
                       jax.random.PRNGKey(0))
  assert set(np.unique(results)) <= {-1.0, 0.0, 1.0}


def test_unknown_opponents_and_files_are_refused(tmp_path):
  with pytest.raises(ValueError, match="unknown Stratego opponent 'nobody'"):
    agents.opponent("nobody")
  other = tmp_path / "other.npz"
  np.savez(other, x=np.zeros(2))
  with pytest.raises(ValueError, match="not a stratego population file"):
    agents.opponent(str(other))


def test_the_shipped_population_loads_and_beats_the_random_bot():
  mixture, meta = agents.load_population(agents.shipped_path())
  game = pyspiel.load_game("barrage_stratego")
  assert meta["network"] == "stratego_conv"
  assert meta["num_actions"] == game.num_distinct_actions()
  np.testing.assert_allclose(sum(meta["weights"]), 1.0)
  env = env_lib.StrategoEnv(game, relative_actions=True)
  results = arena.play(env, mixture, bots.bot("random"), 32,
                       jax.random.PRNGKey(0))
  # It wins about 9 games in 10 (docs/stratego.md); 24 of 32 is a loose floor.
  assert arena.win_rate(results).rate >= 0.75
