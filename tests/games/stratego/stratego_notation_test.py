"""Stratego's notation for people: moves parsed from what a person types, and
plies told in words."""

import pytest

from open_spiel_ext.games.stratego import notation
import stratego_test


def test_action_strings():
  state = stratego_test.fixed_state({"e4": "S"}, {})
  action = notation.parse_action(state, "e4-e6")
  assert state.action_to_string(0, action) == "Sc e4-e6"
  assert notation.parse_action(state, "Sc e4-e6") == action
  assert notation.parse_action(state, "e4xe6") == action
  with pytest.raises(ValueError, match="is a Scout"):
    notation.parse_action(state, "Ma e4-e6")
  with pytest.raises(ValueError, match="no piece of yours on e5"):
    notation.parse_action(state, "e5-e6")
  with pytest.raises(ValueError, match="not a square"):
    notation.parse_action(state, "e4-k6")
  with pytest.raises(ValueError, match="row or a column"):
    notation.parse_action(state, "e4-f5")


@pytest.mark.parametrize("attacker,defender,story", [
    ("G", "M", "your General attacked their Marshal on a7 and was removed"),
    ("N", "B", "your Miner took their Bomb on a7"),
    ("S", "B", "your Scout hit their Bomb on a7 and was removed"),
    ("G", "G", "your General and their General on a7 removed each other"),
    ("S", "F", "your Scout captured their Flag on a7"),
])
def test_the_last_ply_in_words(attacker, defender, story):
  state = stratego_test.attack_from_a4(attacker, defender)
  assert notation.describe_last_ply(state, 0) == story
  assert notation.describe_last_ply(state, 1) == story.replace(
      "your", "THEIR").replace("their", "your").replace("THEIR", "their")


def test_a_plain_move_in_words():
  state = stratego_test.fixed_state({"e4": "S"},
                                    {stratego_test.SPARE_SCOUT: "S"})
  stratego_test.play(state, "e4-e6")
  assert notation.describe_last_ply(state, 0) == (
      "you moved e4-e6 (a Scout: no other piece moves that far)")
  stratego_test.play(state, "j7-j6")
  assert notation.describe_last_ply(state, 0) == "the opponent moved j7-j6"
