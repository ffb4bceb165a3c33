"""Tests of SPARTA, exact-belief search, on Hanabi-Small."""

import time

import jax.numpy as jnp
import numpy as np
import pytest

from open_spiel_ext.algorithms.hanabi import beliefs
from open_spiel_ext.algorithms.hanabi import blueprints
from open_spiel_ext.algorithms.hanabi import rule_bot
from open_spiel_ext.algorithms.hanabi import selfplay
from open_spiel_ext.algorithms.hanabi import sparta
from open_spiel_ext.games.hanabi import engine as engine_lib

ENGINE = engine_lib.HanabiEngine(engine_lib.Rules.from_preset("small"))
RULES = blueprints.RuleBlueprint(ENGINE)
SMALL_BUDGET = sparta.Config(rollouts=400, batch=64)


def _searcher_positions(games: int, searcher: int = 1):
  """Positions of the bot's self-play with `searcher` to move, each with
  that player's belief, and the game's final score."""
  rng = np.random.default_rng(0)
  positions = []
  for _ in range(games):
    state = ENGINE.deal(jnp.asarray(rng.permutation(
        ENGINE.rules.ordered_deck()))[None])
    game = beliefs.row(state)
    belief = beliefs.initial(ENGINE.rules, game, searcher)
    while not bool(game.terminated):
      if int(game.current_player) == searcher:
        positions.append((state, game, belief))
      action = int(rule_bot.act(ENGINE, state)[0])
      state = ENGINE.step(state, jnp.asarray([action], jnp.int32))
      after = beliefs.row(state)
      if not bool(after.terminated):
        belief = beliefs.update(RULES, belief, game, (), action, after)
      game = after
  return positions


def test_rollouts_play_the_blueprint_to_the_end():
  rng = np.random.default_rng(1)
  decks = np.stack([rng.permutation(ENGINE.rules.ordered_deck())
                    for _ in range(8)])
  state = ENGINE.deal(jnp.asarray(decks))
  total = np.zeros(8)
  first = rule_bot.act(ENGINE, state)
  scored = sparta._rollout(RULES)((), state, (), first)  # pylint: disable=protected-access
  while not np.asarray(state.terminated).all():
    state = ENGINE.step(state, rule_bot.act(ENGINE, state))
    total += np.asarray(state.rewards[:, 0])
  np.testing.assert_array_equal(np.asarray(scored), total)


def test_search_picks_legal_moves_and_keeps_the_blueprint_unless_it_gains():
  rng = np.random.default_rng(2)
  for state, game, belief in _searcher_positions(2)[:8]:
    legal = np.flatnonzero(np.asarray(game.legal_action_mask))
    decision = sparta.search(RULES, game, (), belief, SMALL_BUDGET, rng)
    assert decision.action in legal
    assert decision.blueprint_action == int(rule_bot.act(ENGINE, state)[0])
    if decision.action != decision.blueprint_action:
      gain = (decision.means[decision.action] -
              decision.means[decision.blueprint_action])
      assert gain > SMALL_BUDGET.threshold
    stubborn = sparta.search(
        RULES, game, (), belief,
        sparta.Config(rollouts=200, batch=64, threshold=100.0), rng)
    assert stubborn.action == stubborn.blueprint_action


def test_sampled_games_hold_belief_hands_and_the_unseen_cards():
  rng = np.random.default_rng(3)
  _, game, belief = _searcher_positions(1)[3]
  sampled = sparta.sample_games(ENGINE, game, belief, 50, rng)
  possible = {tuple(hand) for hand in belief.hands.astype(np.int32)}
  dealt = int(game.dealt)
  unseen = beliefs.unseen(ENGINE.rules, game, belief.player)
  for hand, deck in zip(sampled.hands[:, belief.player], sampled.deck):
    assert tuple(hand) in possible
    cards = np.concatenate([hand[hand >= 0], deck[dealt:]])
    np.testing.assert_array_equal(
        np.bincount(cards, minlength=ENGINE.rules.num_cards), unseen)


@pytest.mark.parametrize("settings, message", [
    (dict(rollouts=0), "rollouts must be at least 1"),
    (dict(threshold=-1.0), "threshold must be >= 0"),
])
def test_bad_settings_are_refused(settings, message):
  with pytest.raises(ValueError, match=message):
    sparta.Config(**settings)


def test_a_batch_smaller_than_the_legal_moves_is_refused():
  _, game, belief = _searcher_positions(1)[0]
  with pytest.raises(ValueError, match="batch=2 < "):
    sparta.search(RULES, game, (), belief, sparta.Config(batch=2),
                  np.random.default_rng(0))


class _SlowFollower(sparta.Searcher):
  """Plays the blueprint's moves and takes FOLLOW seconds to follow each."""
  FOLLOW = 0.005

  def decide(self, game, memory, rng):
    action = sparta.blueprint_action(self.blueprint, game, memory,
                                     self.player)
    return sparta.Decision(action, action, {}, 0, 0.0)

  def observe(self, before, memory, action, after):
    time.sleep(self.FOLLOW)


def test_a_game_counts_the_searchers_time_on_beliefs():
  deck = sparta.game_deck(ENGINE.rules, 0, 0)
  followed = sparta.play_game(RULES, deck,
                              lambda game: {1: _SlowFollower(RULES, 1)})
  assert followed.score == sparta.play_game(RULES, deck).score
  assert followed.search_seconds == 0.0
  assert followed.belief_seconds >= _SlowFollower.FOLLOW * (
      2 * followed.searcher_moves - 2)
  games = [{"score": 5, "blueprint_score": 4, "search_seconds": 1.0,
            "belief_seconds": b, "seconds_per_move": 0.1,
            "peak_memory_mb": 1.0} for b in (2.0, 4.0)]
  line = selfplay.summary(games)
  assert line["seconds_per_game"] == 4.0
  assert line["belief_seconds_per_game"] == 3.0
