"""Checks of game parameters and actions, with errors that name the bad value."""

from typing import Any, Collection, Optional

from open_spiel_ext.utils import memory
import pyspiel


def with_defaults(game_type: pyspiel.GameType,
                  params: Optional[dict[str, Any]]) -> dict[str, Any]:
  """Returns `params` completed with the game type's default parameters."""
  return {**game_type.parameter_specification, **(params or {})}


def require_at_least(game: str, name: str, value: int, minimum: int) -> None:
  """Raises ValueError unless `value >= minimum`."""
  if value < minimum:
    raise ValueError(
        f"{game}: parameter {name} must be >= {minimum}, got {name}={value}")


def require_in_range(game: str, name: str, value: int, low: int,
                     high: int) -> None:
  """Raises ValueError unless `low <= value <= high`."""
  if not low <= value <= high:
    raise ValueError(f"{game}: parameter {name} must be in [{low}, {high}], "
                     f"got {name}={value}")


def require_one_of(game: str, name: str, value: Any,
                   choices: Collection[Any]) -> None:
  """Raises ValueError unless `value` is one of `choices`."""
  if value not in choices:
    raise ValueError(f"{game}: parameter {name} must be one of "
                     f"{sorted(choices)}, got {name}={value!r}")


def require_memory(game: str, what: str, needed_bytes: int,
                   params: dict[str, Any], names: Collection[str]) -> None:
  """Raises ValueError, naming the parameters `names` (with their values in
  `params`), if `what` would take more memory than this machine has free:
  refused at load, rather than found by the machine running out of it."""
  free = memory.available_bytes()
  if needed_bytes > free:
    given = ", ".join(f"{name}={params[name]}" for name in names)
    raise ValueError(
        f"{game}: {what} would take {needed_bytes / 2**30:,.1f} GiB with "
        f"{given}, more than the {free / 2**30:.1f} GiB free here; lower "
        f"{' or '.join(names)}")


def require_legal_action(state: pyspiel.State, action: int) -> None:
  """Raises SpielError, before anything changes, if `action` is illegal."""
  legal_actions = state.legal_actions()
  if action not in legal_actions:
    raise pyspiel.SpielError(
        f"{state.get_game().get_type().short_name}: action {action} is not "
        f"legal here; legal actions are {legal_actions}")
