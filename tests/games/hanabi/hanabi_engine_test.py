"""What is particular to the batched Hanabi engine: its decks and rules
(`batched_conformance_test.py` checks it against the contract of
`games/batched.py` and, move by move, against OpenSpiel's `hanabi`)."""

import jax
import numpy as np
import pytest

from open_spiel_ext.games import engines
from open_spiel_ext.games.hanabi import engine as engine_lib
import pyspiel


def test_init_shuffles_a_different_deck_per_game():
  rules = engine_lib.Rules.from_preset("small")
  engine = engine_lib.HanabiEngine(rules)
  state = engine.init(jax.random.split(jax.random.PRNGKey(0), 64))
  decks = np.sort(np.asarray(state.deck), axis=1)
  np.testing.assert_array_equal(decks, np.tile(rules.ordered_deck(), (64, 1)))
  assert len({tuple(d) for d in np.asarray(state.deck)}) == 64


@pytest.mark.parametrize("parameters, message", [
    ({"colors": 6}, "colors must be an integer from 1 to 5, got colors=6"),
    ({"players": 1}, "players must be an integer from 2 to 5"),
    ({"hand_size": 0}, "hand_size must be an integer at least 1"),
    ({"max_life_tokens": 0}, "max_life_tokens must be"),
    ({"colors": 1, "ranks": 1, "hand_size": 2}, "needs 4 cards"),
])
def test_bad_rules_are_refused_before_pyspiel_sees_them(parameters, message):
  with pytest.raises(ValueError, match=message):
    engine_lib.Rules(**parameters)


def test_rules_of_pyspiel_games_and_presets():
  game = pyspiel.load_game("hanabi", {"players": 2, "hand_size": 6})
  assert engine_lib.Rules.from_game(game) == engine_lib.Rules.from_preset(
      "six_cards")
  engine = engines.make(game)
  assert engine.observation_shape == tuple(game.observation_tensor_shape())
  assert engine.num_actions == game.num_distinct_actions()
  with pytest.raises(ValueError, match="observation_type='card_knowledge'"):
    engine_lib.Rules.from_game(pyspiel.load_game(
        "hanabi", {"observation_type": "minimal"}))
  with pytest.raises(ValueError, match="unknown Hanabi preset 'tiny'"):
    engine_lib.Rules.from_preset("tiny")
  seven = engine_lib.Rules.from_preset("seven_cards")
  assert seven.observation_size == seven.game().observation_tensor_shape()[0]
