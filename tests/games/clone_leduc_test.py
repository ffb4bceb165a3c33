"""Clone Leduc against Leduc: same information, same exploitability, same value."""

import numpy as np
import pytest

import conformance
from open_spiel_ext.games import registry
import pyspiel

LEDUC_VALUE = -0.0856  # Player 0's value of Leduc poker (REFERENCE.md).
LEDUC_UNIFORM_EXPLOITABILITY = 2.373611111111111


def _cached_tree(game_string: str) -> pyspiel.Game:
  return pyspiel.load_game(f"cached_tree(game={game_string})")


@pytest.mark.parametrize("clones", [1, 2, 3])
def test_observations_are_leducs_along_random_play(clones):
  clone_game = pyspiel.load_game(f"xdo_clone_leduc(clones={clones})")
  leduc = pyspiel.load_game("leduc_poker")
  rng = np.random.RandomState(clones)
  for _ in range(50):
    state, leduc_state = clone_game.new_initial_state(), leduc.new_initial_state()
    while not state.is_terminal():
      if state.is_chance_node():
        assert state.chance_outcomes() == leduc_state.chance_outcomes()
        action = rng.choice([a for a, _ in state.chance_outcomes()])
        base_action = action
      else:
        assert state.legal_actions() == sorted(
            base + 3 * clone for clone in range(clones)
            for base in leduc_state.legal_actions())
        action = rng.choice(state.legal_actions())
        base_action = action % 3
      state.apply_action(action)
      leduc_state.apply_action(base_action)
      for player in (0, 1):
        assert (state.information_state_string(player) ==
                leduc_state.information_state_string(player))
        assert (state.information_state_tensor(player) ==
                leduc_state.information_state_tensor(player))
        assert (state.observation_string(player) ==
                leduc_state.observation_string(player))
        assert (state.observation_tensor(player) ==
                leduc_state.observation_tensor(player))
    assert state.returns() == leduc_state.returns()


def test_action_names_carry_the_clone_index():
  state = pyspiel.load_game("xdo_clone_leduc(clones=2)").new_initial_state()
  state.apply_action(0)
  state.apply_action(1)
  assert [state.action_to_string(a) for a in state.legal_actions()] == [
      "Call#0", "Raise#0", "Call#1", "Raise#1"]
  state.apply_action(5)  # Raise through clone 1.
  assert state.history() == [0, 1, 5]
  assert "Round 1 sequence: Raise" in str(state)
  assert str(state).endswith("Clone indices: 1")


@pytest.mark.parametrize("clones,counts", [
    (1, conformance.TreeCounts(  # Leduc's tree.
        histories=9457, decision=3780, terminal=5520, chance=157,
        information_states=936)),
    pytest.param(2, conformance.TreeCounts(
        histories=468517, decision=101430, terminal=365880, chance=1207,
        information_states=936), marks=pytest.mark.slow),
])
def test_clone_trees_have_leducs_information_states(clones, counts):
  assert conformance.check_whole_tree(pyspiel.load_game(
      f"xdo_clone_leduc(clones={clones})")) == counts


@pytest.mark.parametrize("clones", [
    1,
    # Half a minute: cached_tree walks 468,517 histories in Python.
    pytest.param(2, marks=pytest.mark.slow),
])
def test_uniform_exploitability_equals_leducs(clones):
  game = _cached_tree(f"xdo_clone_leduc(clones={clones})")
  leduc = _cached_tree("leduc_poker()")
  expected = pyspiel.exploitability(leduc, pyspiel.UniformRandomPolicy(leduc))
  assert expected == pytest.approx(LEDUC_UNIFORM_EXPLOITABILITY, abs=1e-12)
  assert pyspiel.exploitability(
      game, pyspiel.UniformRandomPolicy(game)) == pytest.approx(expected,
                                                                abs=1e-12)


def _cfr_plus_value(game: pyspiel.Game, iterations: int) -> tuple[float, float]:
  """Player 0's value of CFR+'s average policy, and its exploitability."""
  solver = pyspiel.CFRPlusSolver(game)
  for _ in range(iterations):
    solver.evaluate_and_update_policy()
  average = solver.average_policy()
  value = pyspiel.expected_returns(game.new_initial_state(), average, -1,
                                   True)[0]
  return value, pyspiel.exploitability(game, average)


@pytest.mark.slow
def test_one_clone_value_equals_leducs():
  value, exploitability = _cfr_plus_value(
      _cached_tree("xdo_clone_leduc(clones=1)"), 1000)
  leduc_value, _ = _cfr_plus_value(_cached_tree("leduc_poker()"), 1000)
  assert exploitability < 1e-3
  assert value == pytest.approx(leduc_value, abs=1e-3)
  assert value == pytest.approx(LEDUC_VALUE, abs=1e-3)


def test_clone_leduc_registers_itself_as_leducs_clones():
  clones = registry.clones_of(pyspiel.load_game("xdo_clone_leduc(clones=3)"))
  assert (str(clones.base), clones.copies) == ("leduc_poker()", 3)
  kuhn = pyspiel.load_game("kuhn_poker")
  assert registry.clones_of(kuhn) == (kuhn, 1)
  with pytest.raises(ValueError, match="xdo_clone_leduc are registered"):
    registry.register_clones("xdo_clone_leduc", registry.clones_of)
