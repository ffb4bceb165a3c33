"""Turn-based Oshi-Zumo: OpenSpiel's rules, presets, and the added tensor."""

import numpy as np
import pytest

from open_spiel_ext.games import oshi_zumo
import pyspiel


def test_rules_are_openspiels_turn_based_oshi_zumo():
  game = pyspiel.load_game("xdo_oshi_zumo(coins=5,horizon=7,min_bid=1,size=2)")
  reference = pyspiel.load_game(
      "turn_based_simultaneous_game(game=oshi_zumo("
      "coins=5,horizon=7,min_bid=1,size=2))")
  assert game.max_game_length() == reference.max_game_length()
  rng = np.random.RandomState(0)
  for _ in range(30):
    state, expected = game.new_initial_state(), reference.new_initial_state()
    while not expected.is_terminal():
      assert state.legal_actions() == expected.legal_actions()
      for player in (0, 1):
        assert (state.information_state_string(player) ==
                expected.information_state_string(player))
      action = rng.choice(expected.legal_actions())
      state.apply_action(action)
      expected.apply_action(action)
    assert state.is_terminal()
    assert state.returns() == expected.returns()


@pytest.mark.parametrize("preset", sorted(oshi_zumo.PRESETS))
def test_presets_set_the_sizes(preset):
  game = pyspiel.load_game(f"xdo_oshi_zumo(preset={preset})")
  parameters = game.get_parameters()
  for name, value in oshi_zumo.PRESETS[preset].items():
    assert parameters[name] == value
  assert game.num_distinct_actions() == parameters["coins"] + 1
  assert game.max_game_length() == 2 * parameters["horizon"]
  assert str(pyspiel.load_game(str(game))) == str(game)


def test_defaults_are_the_thesis_variant():
  parameters = pyspiel.load_game("xdo_oshi_zumo").get_parameters()
  assert parameters == {"coins": 4, "size": 3, "horizon": 6, "min_bid": 0,
                        "preset": ""}


def test_information_state_tensor_hides_the_pending_bid():
  game = pyspiel.load_game("xdo_oshi_zumo")
  state = game.new_initial_state()
  state.apply_action(2)
  state.apply_action(3)  # Round 0 revealed: bids 2 and 3.
  before = np.array(state.information_state_tensor(1))
  state.apply_action(1)  # Player 0 bids 1 in round 1, unseen by player 1.
  bids_shape = (game.get_parameters()["horizon"], 2, 5)
  seen_by_1 = np.array(state.information_state_tensor(1))[4:].reshape(
      bids_shape)
  seen_by_0 = np.array(state.information_state_tensor(0))[4:].reshape(
      bids_shape)
  np.testing.assert_array_equal(seen_by_1, before[4:].reshape(bids_shape))
  assert seen_by_1[0, 0, 2] == seen_by_1[0, 1, 3] == 1
  assert seen_by_0[1, 0, 1] == 1
  assert seen_by_1[1].sum() == 0
