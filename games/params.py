"""Validation of game parameters with errors that name the parameter and value."""

from typing import Any, Collection


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
