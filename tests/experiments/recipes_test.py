"""The experiments' recipes build settings their methods accept."""

import dataclasses

import pytest

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel_ext.algorithms import pub_mdp
from open_spiel_ext.algorithms.capi import capi
from open_spiel_ext.algorithms.hanabi import q_network
from open_spiel_ext.algorithms.nxdo import driver
from open_spiel_ext.algorithms.rl import best_response
from open_spiel_ext.algorithms.rl import dqn
from open_spiel_ext.algorithms.rl import networks
from open_spiel_ext.algorithms.rl import opponents
from open_spiel_ext.algorithms.rl import versus
from open_spiel_ext.experiments import capi_recipes
from open_spiel_ext.experiments import hanabi_recipes
from open_spiel_ext.experiments import learner_configs
from open_spiel_ext.experiments import nxdo_recipes
from open_spiel_ext.experiments import references
from open_spiel_ext.experiments import stratego_recipes
from open_spiel_ext.games import batched_loss_game
from open_spiel_ext.games import batched_poker
from open_spiel_ext.games.hanabi import engine as hanabi_engine
import pyspiel


@pytest.mark.parametrize("game_string,exact", [("kuhn_poker", True),
                                               ("loss_game", False)])
def test_nxdo_recipes_build_runs_nxdo_accepts(game_string, exact):
  game = pyspiel.load_game(game_string)
  recipe = nxdo_recipes.recipe(game, num_envs=8)
  assert recipe.env.auto_reset
  assert (recipe.evaluator == best_response.EXACT) == exact
  oracle = recipe.oracle(num_envs=8, seed=3)
  solver = recipe.solver(num_envs=8, seed=3)
  assert (oracle.num_envs, oracle.seed, solver.num_envs) == (8, 3, 8)
  assert oracle.config == recipe.oracle_config
  assert callable(oracle.apply)  # A learner of its config plays the engine.
  run = driver.NXDO(game, recipe.env, oracle, solver,
                    evaluator=recipe.evaluator)
  assert run.log == [] and run.members == []
  assert run.exact == exact  # Whether it has a tabular policy to write.


def test_nxdo_recipes_refuse_a_game_no_engine_plays():
  with pytest.raises(ValueError, match="tiny_hanabi_a"):
    nxdo_recipes.recipe(pyspiel.load_game("tiny_hanabi_a"))


@pytest.mark.parametrize("oracle", learner_configs.ORACLES)
def test_each_oracle_config_makes_a_learner_of_its_engine(oracle):
  config = learner_configs.oracle_config(oracle)
  env = (batched_loss_game.TurnBasedLossGame(
      "loss_game(bins=2,moves=3)", auto_reset=True, continuous=True)
         if oracle == learner_configs.CONTINUOUS_PPO else
         batched_poker.kuhn_poker(auto_reset=True))
  learner = best_response.make_learner(
      config, versus.VersusEnv(env, opponents.uniform()), 4)
  assert isinstance(learner, best_response.LEARNERS[type(config)])


@pytest.mark.parametrize("algorithm", learner_configs.ALGORITHMS)
def test_best_response_configs_are_the_learners_configs(algorithm):
  config = learner_configs.best_response_config(algorithm, steps=1_000)
  assert type(config) in best_response.LEARNERS


def test_ddqn_best_responses_decay_their_learning_rate_over_the_run():
  config = learner_configs.best_response_config("ddqn", steps=1_234)
  assert isinstance(config, dqn.Config)
  assert config.learning_rate_decay_updates == 1_234


def test_unknown_learner_names_are_refused_naming_them():
  with pytest.raises(ValueError, match="algorithm='a2c'"):
    learner_configs.best_response_config("a2c", steps=10)
  with pytest.raises(ValueError, match="algorithm='exact'"):
    learner_configs.oracle_config("exact")


def test_tiny_bridge_config_is_the_papers_and_capi_takes_it():
  config = capi_recipes.tiny_bridge_config(seed=2, episodes=10)
  config.validate()
  assert (config.seed, config.episodes) == (2, 10)
  assert (config.policy, config.acquisition, config.exploration) == (
      "tabular", "most_likely", "one_per_episode")
  assert dataclasses.replace(config, seed=0, episodes=100_000) == (
      capi_recipes.tiny_bridge_config())
  mdp = pub_mdp.build(pyspiel.load_game(references.TINY_BRIDGE))
  learner = capi.Capi(mdp, config)
  assert learner.model.table.shape[0] == len(mdp.stages)


def test_the_tiny_hanabi_config_trains_capi_on_the_suite():
  config = capi_recipes.tiny_hanabi_config(episodes=2, eval_every=2)
  mdp = pub_mdp.build(pyspiel.load_game("tiny_hanabi_e"))
  (entry,) = capi.train(mdp, config)
  assert entry.episode == 2
  assert entry.search_value <= (
      references.TINY_HANABI_OPTIMAL_VALUES["e"] + 1e-5)


def test_every_hanabi_preset_has_a_blueprint_network():
  assert set(hanabi_recipes.PRESET_WIDTHS) == set(hanabi_engine.PRESETS)
  assert hanabi_recipes.blueprint_network("small") == q_network.NetworkConfig(
      (128,), 128, (128,))
  assert hanabi_recipes.blueprint_network("full", 16).lstm_size == 16
  with pytest.raises(ValueError, match="preset='tiny'"):
    hanabi_recipes.blueprint_network("tiny")


def test_belief_training_recipes_keep_the_replay_ratio():
  cpu = hanabi_recipes.belief_config(has_value=False)
  gpu = hanabi_recipes.belief_config(has_value=True, device="gpu")
  assert cpu.network.value_hidden == (256, 256) and not gpu.network.value_hidden
  assert gpu.network.lstm_size == 512 and gpu.batch_size > 8 * cpu.batch_size
  assert cpu.network.lstm_size == 128 and cpu.decoded_share == 0.25
  for config in (cpu, gpu):
    replayed = config.updates_per_collect * config.batch_size / config.num_envs
    assert replayed == 1 and config.learning_starts <= config.replay_capacity
  assert hanabi_recipes.belief_config(True, width=16).network.hidden == (16,)
  with pytest.raises(ValueError, match="device='tpu'"):
    hanabi_recipes.belief_config(True, device="tpu")


def test_stratego_recipes_build_a_p2sro_run_of_stratego_learners():
  game = pyspiel.load_game(stratego_recipes.GAME)
  for device in stratego_recipes.P2SRO_DEVICES:
    config = stratego_recipes.p2sro_config(device)
    assert config.warm_start and config.entry_batch <= config.games_per_entry
    # A GPU round plays as many games as a CPU round, in larger batches.
    assert config.chunk_steps * config.num_envs == 256 * 128
  assert stratego_recipes.p2sro_config(task_opponents=4).task_opponents == 4
  learner_config = stratego_recipes.ppo_config(hidden_sizes=(4, 4))
  policy = networks.build_policy(learner_config.network,
                                 learner_config.hidden_sizes,
                                 game.num_distinct_actions(),
                                 learner_config.shared_trunk)
  assert callable(policy.apply)
  with pytest.raises(ValueError, match="device='tpu'"):
    stratego_recipes.p2sro_config("tpu")
  with pytest.raises(ValueError, match="task_opponents=-1"):
    stratego_recipes.p2sro_config(task_opponents=-1)
