"""Published reference values fit the games they are of, and the runners
draw them."""

import pytest

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel_ext.experiments import coop_runs
from open_spiel_ext.experiments import references
import pyspiel


def test_tiny_bridge_values_lie_in_its_payoff_range():
  game = pyspiel.load_game(references.TINY_BRIDGE)
  assert (game.min_utility() < references.TINY_BRIDGE_NO_COORDINATION <
          references.TINY_BRIDGE_TARGET <= game.max_utility())


@pytest.mark.parametrize("letter,value",
                         references.TINY_HANABI_OPTIMAL_VALUES.items())
def test_tiny_hanabi_optima_lie_in_their_payoff_range(letter, value):
  game = pyspiel.load_game(f"tiny_hanabi_{letter}")
  assert game.min_utility() <= value <= game.max_utility()


def test_capi_plots_of_tiny_bridge_draw_its_published_values():
  lines = coop_runs.known_values(references.TINY_BRIDGE)
  assert list(lines.values()) == [references.TINY_BRIDGE_NO_COORDINATION]
  assert coop_runs.known_values("tiny_hanabi_a") == {}
  assert coop_runs.value_floor(references.TINY_BRIDGE) == 18.0
  assert coop_runs.value_floor("tiny_hanabi_a") is None
