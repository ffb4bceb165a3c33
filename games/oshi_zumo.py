"""Turn-based Oshi-Zumo, the XDO thesis's variant, with named larger presets.

Each round both players secretly bid coins; the higher bid pushes the wrestler
one square towards the opponent's edge. The game is OpenSpiel's C++
`oshi_zumo` made sequential by `turn_based_simultaneous_game`: player 0 bids,
then player 1 bids without seeing it. This module adds what the transform lacks:
an information-state tensor (the observer, the player to move, and every bid the
observer has seen, one-hot per round and player).

Presets (parameter `preset`) name the variants of the XDO/NXDO experiments; a
preset fixes coins, size and horizon. Giving one of those a value other than
its default and the preset's is an error (pyspiel hands the game every
parameter with defaults filled in, so a default given explicitly cannot be told
from one left out, and the preset wins).
"""

from typing import Any, Optional

import numpy as np

from open_spiel_ext.games import registry
from open_spiel_ext.games import validation
from open_spiel_ext.games import wrapped
import pyspiel

PRESETS: dict[str, dict[str, int]] = {
    "tiny": {"coins": 4, "size": 1, "horizon": 6},
    "medium": {"coins": 25, "size": 3, "horizon": 50},
    "large": {"coins": 50, "size": 3, "horizon": 100},
    "thousand_coins": {"coins": 1000, "size": 3, "horizon": 100},
}

_SHORT_NAME = "xdo_oshi_zumo"
_DEFAULTS = {"coins": 4, "size": 3, "horizon": 6, "min_bid": 0, "preset": ""}
_GAME_TYPE = wrapped.derived_game_type(
    pyspiel.load_game(
        "turn_based_simultaneous_game(game=oshi_zumo())").get_type(),
    short_name=_SHORT_NAME,
    long_name="Turn-based Oshi-Zumo (XDO)",
    parameter_specification=_DEFAULTS,
    provides_information_state_tensor=True)


def _is_information_state_type(
    iig_obs_type: Optional[pyspiel.IIGObservationType]) -> bool:
  """Whether OpenSpiel asks for information states (what our tensor is)."""
  return (iig_obs_type is not None and iig_obs_type.perfect_recall and
          iig_obs_type.public_info and
          iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER)


def _resolve_preset(params: dict[str, Any]) -> dict[str, Any]:
  """Returns `params` with the preset's coins, size and horizon filled in."""
  preset = params["preset"]
  if not preset:
    return params
  validation.require_one_of(_SHORT_NAME, "preset", preset, PRESETS)
  for name, value in PRESETS[preset].items():
    if params[name] not in (_DEFAULTS[name], value):
      raise ValueError(
          f"{_SHORT_NAME}: preset={preset} sets {name}={value}, but "
          f"{name}={params[name]} was given too")
  return params | PRESETS[preset]


def _validate(params: dict[str, Any]) -> None:
  for name in ("coins", "size", "horizon"):
    validation.require_at_least(_SHORT_NAME, name, params[name], 1)
  validation.require_in_range(_SHORT_NAME, "min_bid", params["min_bid"], 0,
                              params["coins"])


class OshiZumoGame(wrapped.WrappedGame):
  """Turn-based Oshi-Zumo delegating to OpenSpiel's C++ game."""

  def __init__(self, params: Optional[dict[str, Any]] = None):
    params = _resolve_preset(validation.with_defaults(_GAME_TYPE, params))
    _validate(params)
    self.coins = params["coins"]
    self.horizon = params["horizon"]
    inner_params = ",".join(
        f"{name}={params[name]}" for name in ("coins", "size", "horizon",
                                              "min_bid"))
    inner_game = pyspiel.load_game(
        f"turn_based_simultaneous_game(game=oshi_zumo({inner_params}))")
    super().__init__(_GAME_TYPE, params, inner_game)

  def make_py_observer(
      self,
      iig_obs_type: Optional[pyspiel.IIGObservationType] = None,
      params: Optional[dict[str, Any]] = None):
    """The C++ observers, with our tensor added to the information state."""
    observer = super().make_py_observer(iig_obs_type, params)
    if observer is not None and _is_information_state_type(iig_obs_type):
      return InfoStateObserver(observer, self.horizon, self.coins)
    return observer


class InfoStateObserver:
  """Information states: the C++ strings, and tensors of the bids seen."""

  def __init__(self, string_observer: wrapped.InnerObserver, horizon: int,
               coins: int):
    self._string_observer = string_observer
    self.tensor = np.zeros(4 + horizon * 2 * (coins + 1), np.float32)
    self.dict = {
        "observer": self.tensor[:2],
        "to_move": self.tensor[2:4],
        "bids": self.tensor[4:].reshape(horizon, 2, coins + 1),
    }

  def set_from(self, state: wrapped.WrappedState, player: int) -> None:
    """Writes what `player` has seen: all bids of finished rounds, and its own."""
    self.tensor.fill(0)
    self.dict["observer"][player] = 1
    if state.current_player() >= 0:
      self.dict["to_move"][state.current_player()] = 1
    bids = state.history()
    revealed = len(bids) - len(bids) % 2
    for index, bid in enumerate(bids):
      bidder = index % 2
      if index < revealed or bidder == player:
        self.dict["bids"][index // 2, bidder, bid] = 1

  def string_from(self, state: wrapped.WrappedState, player: int) -> str:
    return self._string_observer.string_from(state, player)


registry.register(_GAME_TYPE, OshiZumoGame)
