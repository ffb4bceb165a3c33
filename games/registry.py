"""Registers the plugin's games with pyspiel and remembers their short names,
and the facts about a game that let algorithms evaluate it on a smaller one
(`register_clones`); loads game strings with errors that say what is wrong
(`load_game`)."""

import contextlib
import difflib
import os
import sys
import tempfile
from typing import Any, Callable, Iterator, NamedTuple

import pyspiel

_SHORT_NAMES: list[str] = []


def register(game_type: pyspiel.GameType, game_class: type) -> None:
  """Registers a game class with pyspiel and records it as one of the plugin's.

  Args:
    game_type: the game's type; its short name is what `load_game` takes.
    game_class: a `pyspiel.Game` subclass, called with the game's parameters.
      It must be a class: pyspiel's C++ registry keeps the factory until after
      the interpreter has finalized, and a lambda or `functools.partial` freed
      then aborts the process at exit.
  """
  if not (isinstance(game_class, type) and
          issubclass(game_class, pyspiel.Game)):
    raise TypeError(f"game_class must be a pyspiel.Game subclass, got "
                    f"{game_class!r} for {game_type.short_name}")
  pyspiel.register_game(game_type, game_class)
  _SHORT_NAMES.append(game_type.short_name)


def registered_games() -> list[str]:
  """Returns the short names of every game this plugin registers, sorted."""
  return sorted(_SHORT_NAMES)


def two_player_zero_sum_type(
    short_name: str, long_name: str,
    chance_mode: pyspiel.GameType.ChanceMode,
    parameter_specification: dict[str, Any],
    provides_factored_observation_string: bool,
    dynamics: pyspiel.GameType.Dynamics = (
        pyspiel.GameType.Dynamics.SEQUENTIAL),
    reward_model: pyspiel.GameType.RewardModel = (
        pyspiel.GameType.RewardModel.TERMINAL)) -> pyspiel.GameType:
  """The GameType of a 2-player, zero-sum imperfect-information game
  (sequential with terminal rewards unless said), providing
  information-state and observation strings and tensors."""
  return pyspiel.GameType(
      short_name=short_name,
      long_name=long_name,
      dynamics=dynamics,
      chance_mode=chance_mode,
      information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
      utility=pyspiel.GameType.Utility.ZERO_SUM,
      reward_model=reward_model,
      max_num_players=2,
      min_num_players=2,
      provides_information_state_string=True,
      provides_information_state_tensor=True,
      provides_observation_string=True,
      provides_observation_tensor=True,
      provides_factored_observation_string=(
          provides_factored_observation_string),
      parameter_specification=parameter_specification)


class Clones(NamedTuple):
  """A game as `base` with each player action copied `copies` times: action
  a is `base`'s action a % A through copy a // A (A, `base`'s action count),
  chance is `base`'s, and copies are indistinguishable (information states
  and their tensors are `base`'s). A policy then plays like the `base`
  policy giving each action its copies' summed probability, with the same
  values and exploitability, so exact evaluations walk `base`'s tree."""
  base: pyspiel.Game
  copies: int


_CLONES: dict[str, Callable[[pyspiel.Game], Clones]] = {}


def register_clones(short_name: str,
                    clones_of: Callable[[pyspiel.Game], Clones]) -> None:
  """Records that the games named `short_name` copy the actions of a smaller
  game: `clones_of(game)` says which, and how many times.

  Raises:
    ValueError: `short_name`'s clones are registered already.
  """
  if short_name in _CLONES:
    raise ValueError(f"the clones of {short_name} are registered already")
  _CLONES[short_name] = clones_of


def clones_of(game: pyspiel.Game) -> Clones:
  """The game `game` copies the actions of, and how many times: the
  registered facts, or `game` itself once."""
  clones = _CLONES.get(game.get_type().short_name)
  return Clones(game, 1) if clones is None else clones(game)


@contextlib.contextmanager
def _native_stderr_held_back() -> Iterator[None]:
  """Holds back what native code writes to stderr; replays it unless the
  block raises (pyspiel prints each error, with every game's name for an
  unknown one, before raising it)."""
  sys.stderr.flush()
  saved = os.dup(2)
  with tempfile.TemporaryFile() as held:
    os.dup2(held.fileno(), 2)
    try:
      yield
    finally:
      os.dup2(saved, 2)
      os.close(saved)
    held.seek(0)
    sys.stderr.buffer.write(held.read())
    sys.stderr.flush()


def _game_names(parameters: dict[str, Any]) -> list[str]:
  """The game named by parsed game-string parameters, and any nested one."""
  names = [parameters["name"]]
  for value in parameters.values():
    if isinstance(value, dict) and "name" in value:
      names += _game_names(value)
  return names


def unknown_game_message(name: str) -> str:
  """Says that `name` is no game and which are: the plugin's, in full."""
  close = difflib.get_close_matches(name, pyspiel.registered_names(), n=3)
  suggestion = f"did you mean {', '.join(close)}? " if close else ""
  return (f"unknown game {name!r}; {suggestion}the plugin's games are "
          f"{', '.join(registered_games())} "
          "(open_spiel_ext.registered_games()); OpenSpiel's are listed by "
          "pyspiel.registered_names()")


def load_game(game_string: str) -> pyspiel.Game:
  """`pyspiel.load_game(game_string)`, without the C++ side's printout of an
  error.

  Raises:
    TypeError: `game_string` is not a string.
    ValueError: the string is empty, or names a game (or a nested one) that
      is not registered; the message suggests the closest names.
    ValueError or pyspiel.SpielError: the string does not parse, or the game
      refuses its parameters (the plugin's games raise ValueError, OpenSpiel's
      C++ games SpielError).
  """
  if not isinstance(game_string, str):
    raise TypeError("load_game takes a game string such as "
                    f"'kuhn_poker', got {game_string!r}")
  if not game_string.strip():
    raise ValueError(f"the game string {game_string!r} is empty; name a game "
                     f"such as 'kuhn_poker' ({registered_games()[0]!r} is "
                     "one of the plugin's)")
  with _native_stderr_held_back():
    for name in _game_names(pyspiel.game_parameters_from_string(game_string)):
      if name not in pyspiel.registered_names():
        raise ValueError(unknown_game_message(name))
    return pyspiel.load_game(game_string)
