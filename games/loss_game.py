"""The Loss Game of the NXDO thesis, as a pyspiel game and as shared dynamics.

Two players steer a point `x` in R^dims for `moves` steps. Each step both
choose a move at once, the sum of the two moves is added to `x`, and player 0
receives `L(x)` and player 1 `−L(x)`. Both observe `x` and `L(x)`. Two
variants, chosen by `dims`:

- dims=2: an action is a direction and a magnitude; the move is the step
  `alpha · magnitude` at the angle `2π · direction`, and
  `L(x) = sin x1 + sin x2`.
- dims=16: an action moves every coordinate by at most `max_move`, and
  `L(x) = sin(Σ xj) + Σ sin(xj) / 16`.

A continuous action is a vector in [−1, 1]^dims (values outside are clipped):
for dims=2 its two entries, mapped onto [0, 1], are the direction and the
magnitude; for dims=16 entry j times `max_move` is the move of coordinate j.
`Dynamics` holds these rules once, for numpy and for `jax.numpy` alike, so the
pyspiel game here and the batched JAX environments of
`games/batched_loss_game.py` share them.

The pyspiel game `loss_game(dims, bins, moves, alpha, max_move)` is
simultaneous, with `bins**dims` actions: the grid of `bins` evenly spaced
values in [−1, 1] per coordinate (action `a` is the grid point whose
coordinate j has index digit j of `a` in base `bins`, coordinate 0 the most
significant). Load it as `turn_based_simultaneous_game(game=loss_game(...))`
for methods that need turns.

Information states are perfect recall (the string lists the player's own
actions and every point seen); the information-state tensor is the Markov
state that decides the rest of the game: the steps taken (one-hot), `x` and
`L(x)`. Observations are that state.
"""

import dataclasses
from typing import Any, Optional

import numpy as np

from open_spiel_ext.games import registry
from open_spiel_ext.games import validation
import pyspiel

_SHORT_NAME = "loss_game"
DIMS = (2, 16)  # The variants.
MAX_ACTIONS = 2**20  # Of the binned pyspiel game, bins**dims.
_DEFAULTS = {"dims": 2, "bins": 10, "moves": 10, "alpha": 2.7,
             "max_move": 0.1}

_GAME_TYPE = registry.two_player_zero_sum_type(
    _SHORT_NAME, "Loss Game (NXDO)",
    pyspiel.GameType.ChanceMode.DETERMINISTIC, _DEFAULTS,
    provides_factored_observation_string=False,
    dynamics=pyspiel.GameType.Dynamics.SIMULTANEOUS,
    reward_model=pyspiel.GameType.RewardModel.REWARDS)


@dataclasses.dataclass(frozen=True)
class Dynamics:
  """The rules of one variant; `xp` is numpy or jax.numpy."""
  dims: int
  alpha: float = _DEFAULTS["alpha"]
  max_move: float = _DEFAULTS["max_move"]

  def displacement(self, action: Any, xp: Any = np) -> Any:
    """The move [..., dims] that continuous actions [..., dims] make."""
    action = xp.clip(action, -1.0, 1.0)
    if self.dims == 2:
      angle = np.pi * (action[..., 0] + 1.0)
      step = self.alpha * (action[..., 1] + 1.0) / 2.0
      return xp.stack([step * xp.cos(angle), step * xp.sin(angle)], axis=-1)
    return self.max_move * action

  def loss(self, x: Any, xp: Any = np) -> Any:
    """L(x) of points [..., dims]."""
    if self.dims == 2:
      return xp.sin(x).sum(-1)
    return xp.sin(x.sum(-1)) + xp.sin(x).mean(-1)

  def step(self, x: Any, action0: Any, action1: Any,
           xp: Any = np) -> tuple[Any, Any]:
    """(the next points, player 0's rewards L of them)."""
    x = x + self.displacement(action0, xp) + self.displacement(action1, xp)
    return x, self.loss(x, xp)


def binned_action(action: Any, bins: int, dims: int, xp: Any = np) -> Any:
  """The continuous actions [..., dims] of binned actions [...]."""
  powers = bins ** np.arange(dims - 1, -1, -1)
  digits = (xp.asarray(action)[..., None] // powers) % bins
  return -1.0 + 2.0 * digits / (bins - 1)


def tensor_size(dims: int, moves: int) -> int:
  """Of the information-state tensor: steps one-hot, x, L(x)."""
  return moves + 1 + dims + 1


def _validate(params: dict[str, Any]) -> None:
  validation.require_one_of(_SHORT_NAME, "dims", params["dims"], DIMS)
  validation.require_at_least(_SHORT_NAME, "bins", params["bins"], 2)
  validation.require_at_least(_SHORT_NAME, "moves", params["moves"], 1)
  for name in ("alpha", "max_move"):
    if not params[name] > 0:
      raise ValueError(f"{_SHORT_NAME}: parameter {name} must be > 0, got "
                       f"{name}={params[name]}")
  actions = params["bins"] ** params["dims"]
  if actions > MAX_ACTIONS:
    raise ValueError(
        f"{_SHORT_NAME}: bins**dims = {params['bins']}**{params['dims']} = "
        f"{actions} actions is more than the {MAX_ACTIONS} a pyspiel game "
        f"here may have; use fewer bins, or the continuous environment of "
        f"games/batched_loss_game.py")


class LossGame(pyspiel.Game):
  """The binned, simultaneous Loss Game."""

  def __init__(self, params: Optional[dict[str, Any]] = None):
    params = validation.with_defaults(_GAME_TYPE, params)
    _validate(params)
    bound = 2.0 * params["moves"]  # |L| <= 2 in both variants.
    super().__init__(
        _GAME_TYPE,
        pyspiel.GameInfo(num_distinct_actions=params["bins"]**params["dims"],
                         max_chance_outcomes=0, num_players=2,
                         min_utility=-bound, max_utility=bound,
                         utility_sum=0.0, max_game_length=params["moves"]),
        params)
    self.dims, self.bins, self.moves = (params["dims"], params["bins"],
                                        params["moves"])
    self.dynamics = Dynamics(self.dims, params["alpha"], params["max_move"])

  def new_initial_state(self) -> "LossGameState":
    return LossGameState(self)

  def make_py_observer(self,
                       iig_obs_type: Optional[pyspiel.IIGObservationType] = None,
                       params: Optional[dict[str, Any]] = None
                      ) -> "LossGameObserver":
    if params:
      raise ValueError(f"{_SHORT_NAME}: observers take no parameters, got "
                       f"{params}")
    perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
    return LossGameObserver(self, perfect_recall)


class LossGameState(pyspiel.State):
  """A point, the steps taken and each player's actions so far."""

  def __init__(self, game: LossGame):
    super().__init__(game)
    # Copied: a Python game's attributes may be gone when C++ holds it alone.
    self._dims, self._bins, self._moves = game.dims, game.bins, game.moves
    self._dynamics = game.dynamics
    self.x = np.zeros(game.dims)
    self.value = 0.0  # L(x); 0 at the start, where x = 0.
    self.points = []  # x after each step.
    self.joint_actions = []  # (player 0's, player 1's) each step.
    self._rewards = np.zeros(2)
    self._returns = np.zeros(2)

  @property
  def steps(self) -> int:
    return len(self.points)

  def current_player(self) -> int:
    if self.is_terminal():
      return pyspiel.PlayerId.TERMINAL
    return pyspiel.PlayerId.SIMULTANEOUS

  def _legal_actions(self, player: int) -> list[int]:
    """A player's actions; at the simultaneous node (`legal_actions()`),
    the flat joint actions, as OpenSpiel's C++ games give them."""
    if self.is_terminal():
      return []
    actions = self._bins**self._dims
    if player != pyspiel.PlayerId.SIMULTANEOUS:
      return list(range(actions))
    if actions**2 > MAX_ACTIONS:
      raise pyspiel.SpielError(
          f"{_SHORT_NAME}: {actions**2} joint actions are too many to list; "
          "ask for each player's, legal_actions(player)")
    return list(range(actions**2))

  def _apply_action(self, action: int) -> None:
    """A flat joint action, as OpenSpiel numbers them (player 0's action
    varies fastest)."""
    actions = self._bins**self._dims
    self._check_live(action)
    if not 0 <= action < actions**2:
      raise pyspiel.SpielError(f"{_SHORT_NAME}: joint action {action} is not "
                               f"in [0, {actions**2})")
    self._apply_actions([action % actions, action // actions])

  def _check_live(self, action: Any) -> None:
    if self.is_terminal():
      raise pyspiel.SpielError(f"{_SHORT_NAME}: the game is over; action "
                               f"{action} cannot be applied")

  def _apply_actions(self, actions: list[int]) -> None:
    bins, dims = self._bins, self._dims
    self._check_live(actions)
    for action in actions:
      if not 0 <= action < bins**dims:
        raise pyspiel.SpielError(
            f"{_SHORT_NAME}: action {action} is not in [0, {bins**dims})")
    self.x, value = self._dynamics.step(
        self.x, binned_action(actions[0], bins, dims),
        binned_action(actions[1], bins, dims))
    self.value = float(value)
    self.points.append(self.x.copy())
    self.joint_actions.append(tuple(actions))
    self._rewards = np.array([self.value, -self.value])
    self._returns += self._rewards

  def _action_to_string(self, player: int, action: int) -> str:
    values = binned_action(action, self._bins, self._dims)
    return f"p{player}:" + ",".join(f"{v:+.3f}" for v in values)

  def is_terminal(self) -> bool:
    return self.steps >= self._moves

  def rewards(self) -> list[float]:
    return list(self._rewards)

  def returns(self) -> list[float]:
    return list(self._returns)

  def __str__(self) -> str:
    point = ",".join(f"{v:.4f}" for v in self.x)
    return f"step {self.steps}, x=({point}), L={self.value:.4f}"


class LossGameObserver:
  """The Markov state (step one-hot, x, L(x)) as tensor; strings are that
  state, and with perfect recall also the player's own actions and every
  point seen."""

  def __init__(self, game: LossGame, perfect_recall: bool):
    self._perfect_recall = perfect_recall
    self.tensor = np.zeros(tensor_size(game.dims, game.moves), np.float32)
    self.dict = {"step": self.tensor[:game.moves + 1],
                 "x": self.tensor[game.moves + 1:-1],
                 "loss": self.tensor[-1:]}

  def set_from(self, state: LossGameState, player: int) -> None:
    self.tensor.fill(0)
    self.dict["step"][state.steps] = 1
    self.dict["x"][:] = state.x
    self.dict["loss"][0] = state.value

  def string_from(self, state: LossGameState, player: int) -> str:
    if not self._perfect_recall:
      return str(state)
    seen = " ".join(f"{action}>(" + ",".join(f"{v:.6f}" for v in point) + ")"
                    for action, point in zip(
                        (joint[player] for joint in state.joint_actions),
                        state.points))
    return f"p{player} [{seen}]"


registry.register(_GAME_TYPE, LossGame)
