"""Exact Hanabi beliefs against brute force over every deck of tiny games."""

import collections
import itertools

import numpy as np
import pytest

from open_spiel_ext.algorithms.hanabi import beliefs
from open_spiel_ext.algorithms.hanabi import blueprints
from open_spiel_ext.algorithms.hanabi import rule_bot
from open_spiel_ext.games.hanabi import engine as engine_lib

TINY = engine_lib.Rules(colors=2, ranks=2, hand_size=2,
                        max_information_tokens=3, max_life_tokens=2)
SEARCHER, PARTNER = 1, 0
ENGINE = engine_lib.HanabiEngine(TINY)  # One engine: its code compiles once.
RULES = blueprints.RuleBlueprint(ENGINE)


def _every_deck(rules):
  return np.array(sorted(set(itertools.permutations(rules.ordered_deck()))),
                  np.int32)


def _play(engine, deck, seed):
  """A game on `deck`: the partner plays the rule bot, the searcher random
  legal moves; the states (batch of one) and the moves."""
  rng = np.random.default_rng(seed)
  state = engine.deal(deck[None])
  states, moves = [state], []
  while not bool(state.terminated[0]):
    if int(state.current_player[0]) == PARTNER:
      move = int(rule_bot.act(engine, state)[0])
    else:
      move = int(rng.choice(np.flatnonzero(state.legal_action_mask[0])))
    moves.append(move)
    state = engine.step(state, np.array([move], np.int32))
    states.append(state)
  return states, moves


def _brute_force(engine, decks, states, moves, upto):
  """The searcher's hands after `upto` moves in the decks where everything
  it saw (its observations, the partner's moves by the rule bot) is as in
  the game played, and how many decks give each."""
  batch = engine.deal(decks)
  alive = np.ones(len(decks), bool)
  for t in range(upto + 1):
    seen = np.asarray(states[t].observation[0, SEARCHER])
    alive &= (np.asarray(batch.observation[:, SEARCHER]) == seen).all(axis=1)
    if t == upto:
      break
    move = np.full(len(decks), moves[t], np.int32)
    if int(states[t].current_player[0]) == PARTNER:
      alive &= np.asarray(rule_bot.act(engine, batch)) == moves[t]
    batch = engine.step(batch, move)
  hands = np.asarray(batch.hands[:, SEARCHER])[alive]
  return collections.Counter(map(tuple, hands))


# Games in which the partner's moves rule hands out beyond what its hints
# say (the blueprint filter is exercised).
@pytest.mark.parametrize("seed", [pytest.param(6, marks=pytest.mark.slow), 16, 24,
                                  pytest.param(36, marks=pytest.mark.slow)])
def test_belief_is_the_posterior_over_every_deck(seed):
  engine = ENGINE
  decks = _every_deck(TINY)
  deck = decks[np.random.default_rng(seed).integers(len(decks))]
  states, moves = _play(engine, deck, seed)
  belief = beliefs.initial(TINY, beliefs.row(states[0]), SEARCHER)
  checked, ruled_out = 0, 0
  for t, move in enumerate(moves[:-1]):
    if int(states[t].current_player[0]) == PARTNER:
      ruled_out += (beliefs.blueprint_moves(
          RULES, beliefs.row(states[t]), (), belief, PARTNER) != move).sum()
    belief = beliefs.update(RULES, belief, beliefs.row(states[t]), (), move,
                            beliefs.row(states[t + 1]))
    counts = _brute_force(engine, decks, states, moves, t + 1)
    total = sum(counts.values())
    found = dict(zip(map(tuple, belief.hands.astype(np.int32)),
                     beliefs.weights(TINY, beliefs.row(states[t + 1]),
                                     belief)))
    assert set(found) == set(counts), f"move {t}"
    for hand, count in counts.items():
      assert found[hand] == pytest.approx(count / total), f"move {t}"
    checked += 1
  assert checked >= 3 and ruled_out > 0


def test_a_belief_too_large_to_hold_is_refused_before_it_is_built():
  rules = engine_lib.Rules.from_preset("seven_cards")
  deck = rules.ordered_deck()
  game = beliefs.row(engine_lib.HanabiEngine(rules).deal(deck[None]))
  with pytest.raises(beliefs.BeliefTooLarge, match="up to 6,103,515,625 "
                     "hands"):
    beliefs.initial(rules, game, 1, max_hands=10**9)


def test_grounded_updates_keep_what_the_hints_allow():
  deck = _every_deck(TINY)[7]
  states, moves = _play(ENGINE, deck, 3)
  grounded = beliefs.initial(TINY, beliefs.row(states[0]), SEARCHER)
  for before, move, after in zip(states, moves, states[1:]):
    after_row = beliefs.row(after)
    if bool(after_row.terminated):
      break
    grounded = beliefs.update(RULES, grounded, beliefs.row(before), (), move,
                              after_row, grounded=True)
    fresh = beliefs.initial(TINY, after_row, SEARCHER)
    assert ({tuple(h) for h in grounded.hands} ==
            {tuple(h) for h in fresh.hands})
    assert np.isfinite(beliefs.log_probability(TINY, after_row, grounded))
