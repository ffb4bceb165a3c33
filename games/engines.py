"""The batched engines by game, pgx-style: `make(game, **options)`.

Each engine registers the games it plays next to itself
(`games/batched_poker.py`, `games/batched_loss_game.py`,
`games/stratego/env.py`, `games/hanabi/engine.py`), and importing
`open_spiel_ext` imports them all (`games/__init__.py`), as it registers the
games with pyspiel. A factory takes the pyspiel game and the options its
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


def register(short_name: str, factory: Factory) -> None:
  """Makes `make` build the games named `short_name` with `factory`.

  Raises:
    ValueError: an engine is registered for `short_name` already.
  """
  if short_name in _FACTORIES:
    raise ValueError(f"a batched engine is registered for {short_name} "
                     f"already: {_FACTORIES[short_name]}")
  _FACTORIES[short_name] = factory


def registered_engines() -> list[str]:
  """The short names of the games `make` builds an engine of, sorted."""
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
