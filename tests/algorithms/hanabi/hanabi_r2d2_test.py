"""Tests of R2D2, the learned Hanabi blueprints' trainer: its unroll
against the actors, its n-step double-Q targets, and a run that learns,
resumes and writes weights."""

import os
import signal
import types

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from open_spiel_ext.algorithms.hanabi import blueprints
from open_spiel_ext.algorithms.hanabi import learned_blueprint
from open_spiel_ext.algorithms.hanabi import q_network
from open_spiel_ext.algorithms.hanabi import r2d2
from open_spiel_ext.games.hanabi import engine as engine_lib
from open_spiel_ext.utils import checkpoints

TINY = engine_lib.Rules(colors=2, ranks=2, hand_size=2,
                        max_information_tokens=3, max_life_tokens=2)
SMALL = engine_lib.Rules.from_preset("small")
NETWORK = q_network.NetworkConfig((32,), 32, (32,))
CONFIG = r2d2.Config(network=NETWORK, num_envs=8, unroll=6, n_step=2,
                     replay_capacity=64, batch_size=4, updates_per_unroll=2,
                     learning_starts=8, target_update_every=3)


def test_training_unroll_equals_the_actors_step_by_step_memory():
  trainer = r2d2.trainer(SMALL, CONFIG)
  train, actors = trainer.init(jax.random.PRNGKey(1))
  params = train.params
  # Two unrolls: games end and restart inside them (resets in the unroll).
  actors, segment, _ = trainer.collect(params, actors, jax.random.PRNGKey(2))
  actors, following, _ = trainer.collect(params, actors,
                                         jax.random.PRNGKey(3))
  for _ in range(6):
    actors, _, _ = trainer.collect(params, actors, jax.random.PRNGKey(4))
  assert bool(np.asarray(segment.first)[1:].any() or
              np.asarray(following.first).any())
  q = trainer._q_values(params, segment)  # pylint: disable=protected-access
  # The same Q values, recomputed move by move as the actors act.
  lstm, fresh = segment.lstm, q_network.initial_memory(
      NETWORK, CONFIG.num_envs, SMALL.players)
  net = trainer.net

  @jax.jit
  def step(lstm, first, observation, mover):
    lstm = jax.tree.map(lambda f, m: jnp.where(first[:, None, None], f, m),
                        fresh, lstm)
    shown = types.SimpleNamespace(observation=observation.astype(jnp.float32))
    lstm = q_network.remember_all(net, params, lstm, shown)
    return lstm, q_network.q_of(net, params, lstm, shown, mover,
                                jnp.ones((len(mover), SMALL.num_actions), bool))

  for t in range(CONFIG.unroll):
    lstm, expected = step(lstm, segment.first[t], segment.observation[t],
                          segment.mover[t])
    np.testing.assert_allclose(q[t], expected, rtol=1e-4, atol=1e-4)


def test_n_step_double_q_targets_by_hand():
  trainer = r2d2.Trainer(SMALL, r2d2.Config(network=NETWORK, n_step=2,
                                            discount=0.5, num_envs=1))
  steps, actions = 5, SMALL.num_actions
  online = jnp.zeros((steps, 1, actions)).at[:, 0, 3].set(1.0)
  target = jnp.arange(steps * actions, dtype=jnp.float32).reshape(
      steps, 1, actions)
  legal = jnp.ones((steps, 1, actions), bool)
  reward = jnp.array([1.0, 2.0, 4.0, 8.0, 16.0])[:, None]
  terminated = jnp.array([False, True, False, False, False])[:, None]
  segment = r2d2.Segment(None, None, None, None, legal, reward, terminated,
                         None)
  targets = np.asarray(trainer._targets(online, target, segment))[:, 0]  # pylint: disable=protected-access
  value = lambda t: float(target[t, 0, 3])  # a* = 3, the online argmax.
  np.testing.assert_allclose(targets, [
      1 + 0.5 * 2,  # The game ends after the second move: no bootstrap.
      2,  # It ends on this move.
      4 + 0.5 * 8 + 0.25 * value(4)])


def test_training_learns_resumes_and_writes_weights(tmp_path):
  log = r2d2.train(TINY, CONFIG, str(tmp_path), max_moves=480,
                   eval_every=240, eval_games=50, seed=3)
  assert [e.moves for e in log] == [240, 480]
  assert log[-1].updates > 0 and np.isfinite(log[-1].loss)
  # The same command continues the run from its checkpoint.
  more = r2d2.train(TINY, CONFIG, str(tmp_path), max_moves=720,
                    eval_every=240, eval_games=50, seed=3)
  assert [e.moves for e in more] == [240, 480, 720]
  assert more[:2] == log
  blueprint = learned_blueprint.load_blueprint(
      r2d2.trainer(TINY, CONFIG).evaluation_engine,
      str(tmp_path / more[-1].snapshot))
  scores = blueprints.self_play_scores(
      blueprint, r2d2.evaluation_decks(TINY, 50, 3))
  assert scores.mean() == pytest.approx(more[-1].eval_score, abs=0.3)
  with pytest.raises(ValueError, match="another run"):
    r2d2.train(TINY, CONFIG, str(tmp_path), max_moves=960, seed=4)

def test_ctrl_c_checkpoints_the_unroll_it_came_in(tmp_path):
  """Ctrl-C (sent as the first evaluation is logged, at 240 moves) ends
  training after that unroll with a checkpoint of it, where nothing was
  saved since the last 5-minute checkpoint; the same command goes on."""
  with pytest.raises(KeyboardInterrupt):
    r2d2.train(TINY, CONFIG, str(tmp_path), max_moves=720, eval_every=240,
               eval_games=50, seed=3, checkpoint_seconds=1e9,
               on_entry=lambda entry: os.kill(os.getpid(), signal.SIGINT))
  saved = checkpoints.restore(str(tmp_path / "checkpoint.pkl"),
                              checkpoints.saved_config(
                                  str(tmp_path / "checkpoint.pkl")))
  assert saved.step == 240
  log = r2d2.train(TINY, CONFIG, str(tmp_path), max_moves=480,
                   eval_every=240, eval_games=50, seed=3)
  assert [e.moves for e in log] == [240, 480]
