"""What is particular to Stratego's learning environment: actions turned for
player 1, and the games it plays (`batched_conformance_test.py` plays it in
lockstep with the pyspiel game)."""

import numpy as np
import pytest

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel_ext.games.stratego import env as env_lib
from open_spiel_ext.games.stratego import rules
import pyspiel


def test_rotating_actions_twice_is_the_identity_and_mirrors_the_board():
  army = rules.rules_for("barrage")
  rotated = army.rotated_actions()
  np.testing.assert_array_equal(rotated[rotated], np.arange(len(rotated)))
  for action in range(army.move_base, army.num_distinct_actions, 97):
    move, turned = army.decode_move(action), army.decode_move(
        int(rotated[action]))
    assert turned.origin == 99 - move.origin
    assert turned.target == (None if move.target is None else
                             99 - move.target)


def test_the_env_refuses_other_games():
  with pytest.raises(ValueError, match="not a Stratego game"):
    env_lib.StrategoEnv(pyspiel.load_game("kuhn_poker"))
