"""The batched engines by game, pgx-style: `make(game, **options)`.

Each engine registers the games it plays next to itself
(`games/batched_poker.py`, `games/batched_loss_game.py`,
`games/stratego/env.py`, `games/hanabi/engine.py`). Importing
`open_spiel_ext` registers the games with pyspiel but imports no engine:
the registry imports them all (`_import_engines`, as pgx's `make` does) the
first time it is used. A factory takes the pyspiel game and the options its
engine has, with the engine's defaults: `auto_reset` (every engine), the
Loss Game's `continuous`, Stratego's `relative_actions` and
`material_shaping` (how learners see it; their choices live with the
learners).
"""

import inspect
from typing import Any, Callable, Union

import pyspiel

# (game, **options) -> the batched engine of `game` (`games/batched.py`).
Factory = Callable[..., Any]

_FACTORIES: dict[str, Factory] = {}
_engines_imported = False


def _import_engines() -> None:
  """Imports the plugin's engines, which register their games, once a
  process (at their own import, their `register` calls return here early)."""
  global _engines_imported  # pylint: disable=global-statement
  if _engines_imported:
    return
  _engines_imported = True
  try:
    # pylint: disable=g-import-not-at-top,unused-import,cyclic-import
    from open_spiel_ext.games import batched_loss_game
    from open_spiel_ext.games import batched_poker
    from open_spiel_ext.games.hanabi import engine as hanabi_engine
    from open_spiel_ext.games.stratego import env as stratego_env
  except BaseException:
    _engines_imported = False
    raise


def register(short_name: str, factory: Factory) -> None:
  """Makes `make` build the games named `short_name` with `factory`.

  Raises:
    ValueError: an engine is registered for `short_name` already.
  """
  _import_engines()
  if short_name in _FACTORIES:
    raise ValueError(f"a batched engine is registered for {short_name} "
                     f"already: {_FACTORIES[short_name]}")
  _FACTORIES[short_name] = factory


def registered_engines() -> list[str]:
  """The short names of the games `make` builds an engine of, sorted."""
  _import_engines()
  return sorted(_FACTORIES)


def make(game: Union[str, pyspiel.Game], **options: Any) -> Any:
  """The batched engine of `game` (a pyspiel game or a game string), made
  with `options` (the engine's defaults for the others).

  Raises:
    TypeError: `game` is neither a pyspiel game nor a string.
    ValueError: no engine is registered for `game`, its engine takes no
      option of that name, or it does not play the game's parameters.
  """
  if not isinstance(game, (str, pyspiel.Game)):
    raise TypeError("engines.make takes a pyspiel game or a game string, "
                    f"not {type(game).__name__} {game!r}")
  game = pyspiel.load_game(game) if isinstance(game, str) else game
  name = game.get_type().short_name
  _import_engines()
  if name not in _FACTORIES:
    raise ValueError(f"no batched JAX engine plays {game}; engines are "
                     f"registered for {', '.join(registered_engines())}")
  factory = _FACTORIES[name]
  takes = list(inspect.signature(factory).parameters)[1:]
  unknown = sorted(set(options) - set(takes))
  if unknown:
    raise ValueError(f"the engine of {name} takes no option "
                     f"{', '.join(unknown)}; its options are "
                     f"{', '.join(takes)}")
  return factory(game, **options)
