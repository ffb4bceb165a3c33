"""Base classes for plugin games whose rules live in an OpenSpiel C++ game.

A wrapped game keeps one C++ state inside each Python state and delegates the
rules to it. Subclasses translate action ids through an `ActionMap` and add
what the C++ game lacks. Observations come from the C++ game's own observers,
applied to the inner state, so information-state strings are exactly the C++
game's (subclasses must keep it so: tools such as the tree engine walk the
inner C++ game with the action map, at C++ speed, instead of the Python
states).
"""

from typing import Any, Optional

from open_spiel.python import observation
from open_spiel_ext.games import validation
import pyspiel

_GAME_TYPE_FIELDS = (
    "dynamics", "chance_mode", "information", "utility", "reward_model",
    "max_num_players", "min_num_players", "provides_information_state_string",
    "provides_information_state_tensor", "provides_observation_string",
    "provides_observation_tensor", "provides_factored_observation_string")


def derived_game_type(inner_type: pyspiel.GameType, short_name: str,
                      long_name: str, parameter_specification: dict[str, Any],
                      **overrides: Any) -> pyspiel.GameType:
  """Returns `inner_type` renamed, with new parameters and optional overrides."""
  fields = {name: getattr(inner_type, name) for name in _GAME_TYPE_FIELDS}
  fields.update(overrides)
  return pyspiel.GameType(
      short_name=short_name,
      long_name=long_name,
      parameter_specification=parameter_specification,
      **fields)


def derived_game_info(inner_game: pyspiel.Game,
                      num_distinct_actions: Optional[int] = None
                     ) -> pyspiel.GameInfo:
  """Returns the inner game's GameInfo, optionally with more distinct actions."""
  return pyspiel.GameInfo(
      num_distinct_actions=(num_distinct_actions or
                            inner_game.num_distinct_actions()),
      max_chance_outcomes=inner_game.max_chance_outcomes(),
      num_players=inner_game.num_players(),
      min_utility=inner_game.min_utility(),
      max_utility=inner_game.max_utility(),
      utility_sum=inner_game.utility_sum(),
      max_game_length=inner_game.max_game_length())


class ActionMap:
  """How a wrapped game's action ids relate to its inner game's: identity.

  Immutable, so states share it rather than copy it.
  """

  def outer_actions(self, player: int, inner_actions: list[int]) -> list[int]:
    """The wrapped game's legal actions, given the inner game's."""
    del player  # Same ids for every player.
    return inner_actions

  def inner_action(self, player: int, action: int) -> int:
    """The inner game's action for `player`'s action id in the wrapped game."""
    del player  # Same ids for every player.
    return action

  def __deepcopy__(self, memo) -> "ActionMap":
    return self


class InnerObserver:
  """A PyObserver that observes a wrapped state through its inner C++ state."""

  def __init__(self, inner_observation):
    self._inner_observation = inner_observation
    self.tensor = inner_observation.tensor
    self.dict = inner_observation.dict

  def set_from(self, state: "WrappedState", player: int) -> None:
    self._inner_observation.set_from(state.inner, player)

  def string_from(self, state: "WrappedState", player: int) -> Optional[str]:
    return self._inner_observation.string_from(state.inner, player)


class WrappedGame(pyspiel.Game):
  """A game that delegates its rules to an OpenSpiel C++ game."""

  def __init__(self, game_type: pyspiel.GameType, params: dict[str, Any],
               inner_game: pyspiel.Game,
               num_distinct_actions: Optional[int] = None,
               action_map: ActionMap = ActionMap()):
    super().__init__(game_type,
                     derived_game_info(inner_game, num_distinct_actions),
                     params)
    self.inner_game = inner_game
    self.action_map = action_map

  def new_initial_state(self) -> "WrappedState":
    return WrappedState(self, self.inner_game.new_initial_state())

  def make_py_observer(
      self,
      iig_obs_type: Optional[pyspiel.IIGObservationType] = None,
      params: Optional[dict[str, Any]] = None) -> Optional[InnerObserver]:
    """Returns the inner game's observer for `iig_obs_type`, or None."""
    inner_observation = observation.make_observation(self.inner_game,
                                                     iig_obs_type, params)
    return None if inner_observation is None else InnerObserver(
        inner_observation)


class WrappedState(pyspiel.State):
  """A state holding one inner C++ state that carries the rules."""

  def __init__(self, game: WrappedGame, inner_state: pyspiel.State):
    super().__init__(game)
    self.inner = inner_state
    self._action_map = game.action_map

  def current_player(self) -> int:
    return self.inner.current_player()

  def _legal_actions(self, player: int) -> list[int]:
    return self._action_map.outer_actions(player,
                                          self.inner.legal_actions(player))

  def chance_outcomes(self) -> list[tuple[int, float]]:
    return self.inner.chance_outcomes()

  def _apply_action(self, action: int) -> None:
    validation.require_legal_action(self, action)
    self.inner.apply_action(
        self._action_map.inner_action(self.current_player(), action))

  def _action_to_string(self, player: int, action: int) -> str:
    return self.inner.action_to_string(
        player, self._action_map.inner_action(player, action))

  def is_terminal(self) -> bool:
    return self.inner.is_terminal()

  def returns(self) -> list[float]:
    return self.inner.returns()

  def __str__(self) -> str:
    return str(self.inner)
