"""Registers the plugin's games with pyspiel and remembers their short names."""

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
