"""Batched JAX engines of the Loss Game (`games/loss_game.py`).

`TurnBasedLossGame(game)` plays the game made turn-based
(`turn_based_simultaneous_game(game=loss_game(...))`: player 0 moves, then
player 1 without seeing that move, then the step is applied) and meets the
contract of `games/batched.py`; `engines.make` builds it for `loss_game` and
its turn-based form. Its observations are that pyspiel game's
information-state tensors: the player to move and the observer (one-hot
each), then the Loss Game's tensor (steps taken one-hot, x, L(x)).

Actions are the binned game's (ints, for DDQN and NFSP), or with
`continuous=True` vectors in [−1, 1]^dims ([B, dims] floats, clipped; for
PPO and NXDO's continuous members), whose `legal_action_mask` is all true
[B, dims] while a game lasts. Both apply `loss_game.Dynamics`, the rules the
pyspiel game applies, and `tests/games/batched_conformance_test.py` checks the
binned engine against it step by step (`tests/games/loss_game_test.py` the
continuous one).
"""

from typing import Any, NamedTuple, Union

import jax
import jax.numpy as jnp
import numpy as np

from open_spiel_ext.games import batched
from open_spiel_ext.games import engines
from open_spiel_ext.games import loss_game
import pyspiel


class TurnBasedState(NamedTuple):
  """The contract's fields, then the game's."""
  current_player: jax.Array
  observation: jax.Array
  legal_action_mask: jax.Array
  rewards: jax.Array
  terminated: jax.Array
  x: jax.Array  # [B, dims]
  value: jax.Array  # [B] L(x).
  steps: jax.Array  # [B] steps applied.
  pending: jax.Array  # [B] player 0's action of this step, once it moved.


def _markov_tensor(steps: jax.Array, x: jax.Array, value: jax.Array,
                   moves: int) -> jax.Array:
  """[B, moves + 1 + dims + 1]: the Loss Game's tensor (see loss_game.py)."""
  return jnp.concatenate([jax.nn.one_hot(steps, moves + 1), x, value[:, None]],
                         axis=1)


def _loss_game(game: Union[str, pyspiel.Game]) -> pyspiel.Game:
  """The loss_game itself, given it or its turn-based form."""
  game = pyspiel.load_game(game) if isinstance(game, str) else game
  name = game.get_type().short_name
  if name == "turn_based_simultaneous_game":
    params = dict(game.get_parameters()["game"])
    name = params.pop("name")
    game = pyspiel.load_game(name, params)
  if name != "loss_game":
    raise ValueError(f"TurnBasedLossGame plays loss_game or "
                     f"turn_based_simultaneous_game(game=loss_game(...)), "
                     f"got {game}")
  return game


class TurnBasedLossGame(batched.BatchedEnv):
  """The binned Loss Game, turn-based, as a JAX engine (module docstring)."""

  num_players = 2

  def __init__(self, game: Union[str, pyspiel.Game], auto_reset: bool = False,
               continuous: bool = False):
    """`game` sets the variant (with continuous actions its `bins` only
    names the pyspiel game kept as `self.game`)."""
    inner = _loss_game(game)
    params = inner.get_parameters()
    self.game = pyspiel.convert_to_turn_based(inner)
    self.name = "loss_game"
    self.dims, self.bins, self.moves = (params["dims"], params["bins"],
                                        params["moves"])
    self.dynamics = loss_game.Dynamics(self.dims, params["alpha"],
                                       params["max_move"])
    self.auto_reset = auto_reset
    self.continuous = continuous
    self.num_actions = self.dims if continuous else self.bins**self.dims
    self.observation_shape = (4 + loss_game.tensor_size(self.dims,
                                                         self.moves),)

  def init(self, keys: jax.Array) -> TurnBasedState:
    """Fresh games (the keys only set the batch: the game has no chance)."""
    batch = keys.shape[0]
    zeros = jnp.zeros(batch)
    pending = (jnp.zeros((batch, self.dims)) if self.continuous else
               jnp.zeros(batch, jnp.int32))
    return self._observe(
        jnp.zeros(batch, jnp.int32), jnp.zeros((batch, self.dims)), zeros,
        jnp.zeros(batch, jnp.int32), pending, jnp.zeros((batch, 2)))

  def _move(self, actions: jax.Array) -> jax.Array:
    """The continuous actions [B, dims] that actions stand for."""
    if self.continuous:
      return actions
    return loss_game.binned_action(actions, self.bins, self.dims, jnp)

  def step(self, state: TurnBasedState, actions: jax.Array) -> TurnBasedState:
    """See `games/batched.py`."""
    live = state.current_player != batched.GAME_OVER
    second = state.current_player == 1
    applied = live & second
    x, value = self.dynamics.step(state.x, self._move(state.pending),
                                  self._move(actions), jnp)
    x = jnp.where(applied[:, None], x, state.x)
    value = jnp.where(applied, value, state.value)
    steps = state.steps + applied
    rewards = jnp.where(applied[:, None],
                        jnp.stack([value, -value], axis=1), 0.0)
    player = jnp.where(second | ~live, 0, 1)
    player = jnp.where(steps >= self.moves, batched.GAME_OVER, player)
    first = live & ~second
    pending = jnp.where(first.reshape((-1,) + (1,) * (actions.ndim - 1)),
                        actions, state.pending)
    terminated = player == batched.GAME_OVER
    if self.auto_reset:
      fresh = self.init(jnp.zeros((actions.shape[0], 2), jnp.uint32))
      keep = lambda new, old: jnp.where(
          terminated.reshape((-1,) + (1,) * (new.ndim - 1)), new, old)
      return self._observe(keep(fresh.current_player, player),
                           keep(fresh.x, x), keep(fresh.value, value),
                           keep(fresh.steps, steps),
                           keep(fresh.pending, pending),
                           rewards)._replace(terminated=terminated)
    return self._observe(player, x, value, steps, pending, rewards)

  def checked_step(self, state: TurnBasedState,
                   actions: Any) -> TurnBasedState:
    """`BatchedEnv.checked_step`; continuous actions are checked for their
    shape only (every vector is legal)."""
    if self.continuous:
      actions = np.asarray(actions, np.float32)
      if actions.shape != (len(state.terminated), self.dims):
        raise ValueError(f"{self.name}: continuous actions must have shape "
                         f"({len(state.terminated)}, {self.dims}), got "
                         f"{actions.shape}")
      return self.step(state, jnp.asarray(actions))
    return super().checked_step(state, jnp.asarray(actions, jnp.int32))

  def _observe(self, player, x, value, steps, pending,
               rewards) -> TurnBasedState:
    batch = player.shape[0]
    over = player == batched.GAME_OVER
    to_move = jax.nn.one_hot(jnp.where(over, -1, player), 2)
    base = _markov_tensor(steps, x, value, self.moves)
    observation = jnp.stack([
        jnp.concatenate([to_move, jnp.tile(jax.nn.one_hot(seat, 2),
                                           (batch, 1)), base], axis=1)
        for seat in range(2)], axis=1)
    return TurnBasedState(
        player, observation,
        jnp.broadcast_to(~over[:, None], (batch, self.num_actions)),
        rewards, over, x, value, steps, pending)


def binned_opponent(opponent: Any, bins: int, dims: int) -> Any:
  """A policy of the binned game (an `Opponent` choosing bins) playing the
  continuous game: its bins become their grid points, so that one
  continuous best response measures it and continuous policies alike (the
  two engines' observations are the same)."""
  choose = opponent.act
  grid = jnp.ones((1, bins**dims), bool)

  def act(params, observation, mask, member, key):
    del mask  # The continuous engine's; every bin is legal while live.
    bins_chosen = choose(params, observation,
                         jnp.broadcast_to(grid, (observation.shape[0],
                                                 grid.shape[1])),
                         member, key)
    return loss_game.binned_action(bins_chosen, bins, dims, jnp)

  return opponent._replace(act=act)


for _short_name in ("loss_game", "turn_based_simultaneous_game"):
  engines.register(_short_name, TurnBasedLossGame)
