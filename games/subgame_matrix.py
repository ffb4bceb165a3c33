"""Games that pick one of several matrix games, then have both players play it.

The pick is made by chance (uniformly) or by player 0, and both players observe
it. Then the two players move simultaneously; the game is sequentialised
through an information set: player 0 moves, then player 1 moves without
observing player 0's action. Player 0 receives `payoffs[subgame, a0, a1]` and
player 1 its negation.

This is the shared engine of the k-GMP families and the RPS-choice game of the
XDO thesis. Observations (for every observation type) hold the observer, the
subgame once picked (public), and the observer's own action (private).
Player 1 never observes player 0's action, not even at the end.
"""

from typing import Any, Optional, Sequence

import numpy as np

from open_spiel_ext.games import registry
from open_spiel_ext.games import validation
import pyspiel


def game_type(short_name: str, long_name: str,
              parameter_specification: dict[str, Any],
              chance_picks: bool) -> pyspiel.GameType:
  """Returns the GameType of a subgame-matrix game."""
  chance_mode = (pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
                 if chance_picks else pyspiel.GameType.ChanceMode.DETERMINISTIC)
  return registry.two_player_zero_sum_type(
      short_name, long_name, chance_mode, parameter_specification,
      provides_factored_observation_string=True)


# What one listed chance outcome or legal action costs in Python (a tuple of
# an int and a float in a list, and pybind's copies), to size a game whose
# pick lists them all.
_LISTED_PICK_BYTES = 200


def check_size(short_name: str, params: dict[str, Any], subgames: int,
               actions: int, names: Sequence[str]) -> None:
  """Refuses (ValueError naming the parameters `names`) a game of
  `subgames` matrix games of `actions` actions that would not fit in the
  memory free here: its payoff tables and the list of its picks."""
  validation.require_memory(
      short_name, "the payoff tables and the list of subgames",
      subgames * (actions * actions * np.dtype(np.float64).itemsize +
                  _LISTED_PICK_BYTES), params, names)


class SubgameMatrixGame(pyspiel.Game):
  """A pick among matrix games, then a simultaneous move in the picked one."""

  def __init__(self, game_type_: pyspiel.GameType, params: dict[str, Any],
               payoffs: np.ndarray, action_names: Sequence[str]):
    """Creates the game.

    Args:
      game_type_: from `game_type`; its chance mode says who picks.
      params: the game's parameters, defaults included.
      payoffs: [subgames, actions, actions] payoffs to player 0.
      action_names: the name of each action of the matrix games.
    """
    self.payoffs = np.asarray(payoffs, dtype=np.float64)
    self.num_subgames, self.num_actions, _ = self.payoffs.shape
    self.action_names = tuple(action_names)
    self.chance_picks = (game_type_.chance_mode !=
                         pyspiel.GameType.ChanceMode.DETERMINISTIC)
    picker_actions = 0 if self.chance_picks else self.num_subgames
    super().__init__(
        game_type_,
        pyspiel.GameInfo(
            num_distinct_actions=max(self.num_actions, picker_actions),
            max_chance_outcomes=(self.num_subgames
                                 if self.chance_picks else 0),
            num_players=2,
            min_utility=float(min(self.payoffs.min(), -self.payoffs.max())),
            max_utility=float(max(self.payoffs.max(), -self.payoffs.min())),
            utility_sum=0.0,
            max_game_length=2 if self.chance_picks else 3),
        params)

  def new_initial_state(self) -> "SubgameMatrixState":
    return SubgameMatrixState(self)

  def make_py_observer(
      self,
      iig_obs_type: Optional[pyspiel.IIGObservationType] = None,
      params: Optional[dict[str, Any]] = None) -> "SubgameMatrixObserver":
    return SubgameMatrixObserver(
        iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False),
        params, self.num_subgames, self.num_actions)


class SubgameMatrixState(pyspiel.State):
  """A state: the subgame picked (or None) and the matrix actions so far."""

  def __init__(self, game: SubgameMatrixGame):
    super().__init__(game)
    self._payoffs = game.payoffs
    self._chance_picks = game.chance_picks
    self._action_names = game.action_names
    self.subgame: Optional[int] = None
    self.actions: list[int] = []

  def current_player(self) -> int:
    if self.subgame is None:
      return pyspiel.PlayerId.CHANCE if self._chance_picks else 0
    if len(self.actions) == 2:
      return pyspiel.PlayerId.TERMINAL
    return len(self.actions)

  def _legal_actions(self, player: int) -> list[int]:
    del player  # Whoever moves, the pick or the matrix sets the actions.
    if self.subgame is None:
      return list(range(self._payoffs.shape[0]))
    return list(range(self._payoffs.shape[1]))

  def chance_outcomes(self) -> list[tuple[int, float]]:
    num_subgames = self._payoffs.shape[0]
    return [(subgame, 1.0 / num_subgames) for subgame in range(num_subgames)]

  def _apply_action(self, action: int) -> None:
    validation.require_legal_action(self, action)
    if self.subgame is None:
      self.subgame = action
    else:
      self.actions.append(action)

  def _action_to_string(self, player: int, action: int) -> str:
    if player == pyspiel.PlayerId.CHANCE or self.subgame is None:
      return f"Subgame {action}"
    return f"p{player}:{self._action_names[action]}"

  def is_terminal(self) -> bool:
    return len(self.actions) == 2

  def returns(self) -> list[float]:
    if not self.is_terminal():
      return [0.0, 0.0]
    payoff = float(self._payoffs[self.subgame, self.actions[0],
                                 self.actions[1]])
    return [payoff, -payoff]

  def __str__(self) -> str:
    subgame = "?" if self.subgame is None else str(self.subgame)
    actions = " ".join(self._action_names[a] for a in self.actions)
    return f"subgame:{subgame} actions:[{actions}]"


class SubgameMatrixObserver:
  """Observer of a subgame-matrix state, following the PyObserver interface."""

  def __init__(self, iig_obs_type: pyspiel.IIGObservationType,
               params: Optional[dict[str, Any]], num_subgames: int,
               num_actions: int):
    if params:
      raise ValueError(f"Observation parameters not supported; got {params}")
    if iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
      raise ValueError("Observations of all players' private information are "
                       "not supported")
    pieces = []
    if iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER:
      pieces.append(("player", 2))
    if iig_obs_type.public_info:
      pieces.append(("subgame", num_subgames))
    if iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER:
      pieces.append(("action", num_actions))
    self.tensor = np.zeros(sum(size for _, size in pieces), np.float32)
    self.dict = {}
    offset = 0
    for name, size in pieces:
      self.dict[name] = self.tensor[offset:offset + size]
      offset += size

  def set_from(self, state: SubgameMatrixState, player: int) -> None:
    """Writes `state` as seen by `player` into the tensor."""
    self.tensor.fill(0)
    if "player" in self.dict:
      self.dict["player"][player] = 1
    if "subgame" in self.dict and state.subgame is not None:
      self.dict["subgame"][state.subgame] = 1
    if "action" in self.dict and len(state.actions) > player:
      self.dict["action"][state.actions[player]] = 1

  def string_from(self, state: SubgameMatrixState, player: int) -> str:
    """Returns `state` as seen by `player`, as a string."""
    pieces = [f"p{player}"] if "player" in self.dict else []
    if "subgame" in self.dict and state.subgame is not None:
      pieces.append(f"subgame:{state.subgame}")
    if "action" in self.dict and len(state.actions) > player:
      pieces.append(f"action:{state.actions[player]}")
    return " ".join(pieces)
