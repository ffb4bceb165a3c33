"""The six games of the Tiny Hanabi Suite, on OpenSpiel's C++ `tiny_hanabi`.

Two players each get a private card, player 0 acts, then player 1 acts having
seen player 0's action; both receive the same payoff. The suite's games differ
in their number of cards and actions and in their payoffs, given in OpenSpiel's
order: card of player 0, card of player 1, action of player 0, action of
player 1 (the last varying fastest). Game E is OpenSpiel's default payoff.
"""

from typing import Any, Optional

from open_spiel_ext.games import registry
from open_spiel_ext.games import wrapped
import pyspiel

# Suite letter -> (cards, actions, payoff string or None for OpenSpiel's).
SUITE: dict[str, tuple[int, int, Optional[str]]] = {
    "a": (2, 2, "0;1;0;0;0;1;3;2;3;3;3;2;2;0;3;3"),
    "b": (2, 2, "1;0;1;0;0;1;0;1;0;1;0;0;1;0;1;0"),
    "c": (2, 2, "3;0;0;3;2;0;3;3;2;2;3;0;0;1;0;2"),
    "d": (2, 2, "3;0;1;3;3;0;3;0;3;2;0;2;0;1;0;0"),
    "e": (2, 3, None),
    "f": (3, 2, "0;3;3;2;0;0;0;1;3;1;2;1;0;2;0;1;1;2;1;2;0;1;0;3;1;3;1;2;0;3;2;"
               "2;3;1;3;0"),
}


def inner_game_string(letter: str) -> str:
  """Returns the OpenSpiel `tiny_hanabi` game string of a suite game."""
  cards, actions, payoff = SUITE[letter]
  payoff_param = f",payoff={payoff}" if payoff else ""
  return f"tiny_hanabi(num_chance={cards},num_actions={actions}{payoff_param})"


GAME_TYPES: dict[str, pyspiel.GameType] = {
    letter: wrapped.derived_game_type(
        pyspiel.load_game(inner_game_string(letter)).get_type(),
        short_name=f"tiny_hanabi_{letter}",
        long_name=f"Tiny Hanabi Suite game {letter.upper()}",
        parameter_specification={}) for letter in SUITE
}


class TinyHanabiSuiteGame(wrapped.WrappedGame):
  """One game of the suite; subclasses set `letter`."""

  letter: str

  def __init__(self, params: Optional[dict[str, Any]] = None):
    super().__init__(GAME_TYPES[self.letter], params or {},
                     pyspiel.load_game(inner_game_string(self.letter)))


class TinyHanabiAGame(TinyHanabiSuiteGame):
  letter = "a"


class TinyHanabiBGame(TinyHanabiSuiteGame):
  letter = "b"


class TinyHanabiCGame(TinyHanabiSuiteGame):
  letter = "c"


class TinyHanabiDGame(TinyHanabiSuiteGame):
  letter = "d"


class TinyHanabiEGame(TinyHanabiSuiteGame):
  letter = "e"


class TinyHanabiFGame(TinyHanabiSuiteGame):
  letter = "f"


for _game_class in (TinyHanabiAGame, TinyHanabiBGame, TinyHanabiCGame,
                    TinyHanabiDGame, TinyHanabiEGame, TinyHanabiFGame):
  registry.register(GAME_TYPES[_game_class.letter], _game_class)
