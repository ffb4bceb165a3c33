"""Tests of the Hanabi blueprints: the rule-based bot."""

import jax
import jax.numpy as jnp
import numpy as np

from open_spiel_ext.algorithms.hanabi import rule_bot
from open_spiel_ext.games.hanabi import engine as engine_lib


def _self_play(engine, games: int, seed: int = 0):
  """The bot's self-play: its states before every move, and the scores."""
  state = engine.init(jax.random.split(jax.random.PRNGKey(seed), games))
  states, score = [], np.zeros(games)
  while not np.asarray(state.terminated).all():
    actions = rule_bot.act(engine, state)
    legal = np.asarray(state.legal_action_mask)[np.arange(games), actions]
    assert (legal | np.asarray(state.terminated)).all()
    states.append(state)
    state = engine.step(state, actions)
    score += np.asarray(state.rewards[:, 0])
  return states, score


def test_rule_bot_plays_legal_moves_and_scores():
  engine = engine_lib.HanabiEngine(engine_lib.Rules.from_preset("full"))
  _, score = _self_play(engine, 200)
  # 20.0 ± 0.1 over 1,000 games; a bot that broke a rule would bomb out.
  assert score.mean() > 17
  assert (score == 0).mean() < 0.05


def test_rule_bot_decides_without_seeing_its_own_cards():
  engine = engine_lib.HanabiEngine(engine_lib.Rules.from_preset("full"))
  states, _ = _self_play(engine, 16, seed=1)
  rng = np.random.default_rng(0)
  for state in states[::5]:
    mover = np.maximum(np.asarray(state.current_player), 0)
    hands = np.asarray(state.hands).copy()
    rows = np.arange(len(hands))
    own = hands[rows, mover]
    swapped = np.where(own >= 0, rng.integers(0, 25, own.shape), own)
    hands[rows, mover] = swapped
    other = state._replace(hands=jnp.asarray(hands))
    np.testing.assert_array_equal(rule_bot.act_as(engine, state, mover),
                                  rule_bot.act_as(engine, other, mover))
    # And it is deterministic.
    np.testing.assert_array_equal(rule_bot.act_as(engine, state, mover),
                                  rule_bot.act_as(engine, state, mover))
