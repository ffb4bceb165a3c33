"""A two-player batched environment seen by one learner against an opponent.

`VersusEnv` turns a JAX engine of the batched-environment contract
(`games/batched.py`, made with `auto_reset=True`) and an `Opponent`
(`opponents.py`) into a batch of single-agent tasks: the learner sits in one
seat of each game (alternating over the batch by default, so one network
learns both seats; the information-state tensor says which seat), and every
step is one learner decision, after which the opponent plays until it is the
learner's turn again or the game ends. A step returns the learner's reward
(what it received from its decision until its next one) and whether the game
ended; a game that ends starts afresh at once (a mixture opponent draws a new
member for it), so the observation after a terminal step is the next game's.
Everything is jittable and runs inside `lax.scan`. `HostVersusEnv` offers
the same over `PyspielVectorEnv`, for any pyspiel game, stepped on the host.
"""

import copy
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from open_spiel_ext.algorithms.rl import opponents as opponents_lib
from open_spiel_ext.games import batched

ALTERNATE = "alternate"


class VersusState(NamedTuple):
  """A batch of games from the learner's side."""
  env: Any  # The engine's state.
  seat: jax.Array  # [B] the learner's seat in each game.
  member: jax.Array  # [B] the opponent's mixture member in each game.
  key: jax.Array  # Drives the opponent's moves and member draws.


def _where(condition: jax.Array, new: Any, old: Any) -> Any:
  """`new` in the games where `condition` holds, else `old` (leading axis)."""
  return jax.tree.map(
      lambda n, o: jnp.where(condition.reshape((-1,) + (1,) * (n.ndim - 1)),
                             n, o), new, old)


class _Versus:
  """What both versus environments hold: the engine, the opponent, the
  learner's seats and the task's sizes."""

  def __init__(self, env: Any, opponent: opponents_lib.Opponent,
               seats: Any = ALTERNATE):
    if not getattr(env, "auto_reset", False):
      raise ValueError(f"VersusEnv needs an engine made with auto_reset=True, "
                       f"got {getattr(env, 'name', env)}")
    if env.num_players != 2:
      raise ValueError(f"VersusEnv plays two-player games, got "
                       f"{env.num_players} players")
    if seats not in (ALTERNATE, 0, 1):
      raise ValueError(f"seats must be 'alternate', 0 or 1, got {seats!r}")
    self.env = env
    self.opponent = opponent
    self.seats = seats
    self.num_actions = env.num_actions
    self.observation_shape = env.observation_shape


class VersusEnv(_Versus):
  """One learner against a fixed opponent (see the module docstring)."""

  jittable = True

  def __init__(self, env: Any, opponent: opponents_lib.Opponent,
               seats: Any = ALTERNATE):
    super().__init__(env, opponent, seats)
    self._init = jax.jit(self.start)
    self._step = jax.jit(self.play)

  def init(self, key: jax.Array, batch: int) -> VersusState:
    """`batch` fresh games, each at the learner's first decision."""
    seat = (jnp.arange(batch) % 2 if self.seats == ALTERNATE else
            jnp.full(batch, self.seats))
    return self._init(key, seat.astype(jnp.int32), self.opponent.params,
                      self.opponent.weights)

  def against(self, opponent: opponents_lib.Opponent) -> "VersusEnv":
    """This environment against another opponent of the same kind (and
    parameter shapes), sharing its compiled `init` and `step`."""
    if opponent.act is not self.opponent.act:
      raise ValueError("against() takes an opponent of the same kind as "
                       "the environment's")
    other = copy.copy(self)
    other.opponent = opponent
    return other

  def step(self, state: VersusState,
           actions: jax.Array) -> tuple[VersusState, jax.Array, jax.Array]:
    """The learner's actions, then the opponent's moves: (state, reward [B],
    done [B])."""
    return self._step(state, actions, self.opponent.params,
                      self.opponent.weights)

  def observation(self, state: VersusState) -> jax.Array:
    """[B, *shape] the learner's information-state tensors."""
    rows = jnp.arange(state.seat.shape[0])
    return state.env.observation[rows, state.seat]

  def legal_mask(self, state: VersusState) -> jax.Array:
    """[B, actions] the learner's legal actions."""
    return state.env.legal_action_mask

  def _opponent(self, params: Any, weights: jax.Array
               ) -> opponents_lib.Opponent:
    return self.opponent._replace(params=params, weights=weights)

  def start(self, key: jax.Array, seat: jax.Array, params: Any,
            weights: jax.Array) -> VersusState:
    """`init` with the learner in `seat` [B] of each game, against an
    opponent of this kind with these parameters and mixture weights; pure
    and not jitted, for use inside jitted loops."""
    env_key, member_key, key = jax.random.split(key, 3)
    batch = seat.shape[0]
    opponent = self._opponent(params, weights)
    state = VersusState(self.env.init(jax.random.split(env_key, batch)),
                        seat, opponent.draw_members(member_key, batch), key)
    state, _, _ = self._opponent_moves(state, opponent)
    return state

  def play(self, state: VersusState, actions: jax.Array, params: Any,
           weights: jax.Array) -> tuple[VersusState, jax.Array, jax.Array]:
    """`step` against an opponent of this kind with these parameters and
    mixture weights; pure and not jitted, for use inside jitted loops."""
    opponent = self._opponent(params, weights)
    env_state = self.env.step(state.env, actions)
    rows = jnp.arange(actions.shape[0])
    reward = env_state.rewards[rows, state.seat]
    done = env_state.terminated
    state = self._new_members(state._replace(env=env_state), done, opponent)
    state, later_reward, later_done = self._opponent_moves(state, opponent)
    return state, reward + later_reward, done | later_done

  def _new_members(self, state: VersusState, done: jax.Array,
                   opponent: opponents_lib.Opponent) -> VersusState:
    key, member_key = jax.random.split(state.key)
    fresh = opponent.draw_members(member_key, done.shape[0])
    return state._replace(member=jnp.where(done, fresh, state.member),
                          key=key)

  def _opponent_moves(self, state: VersusState,
                      opponent: opponents_lib.Opponent
                     ) -> tuple[VersusState, jax.Array, jax.Array]:
    """The opponent plays until every game waits for the learner; returns
    the learner's rewards meanwhile and which games ended."""
    batch = state.seat.shape[0]

    def waiting(carry):
      state, _, _ = carry
      return jnp.any(self._opponent_to_move(state))

    def move(carry):
      state, reward, done = carry
      moving = self._opponent_to_move(state)
      key, act_key = jax.random.split(state.key)
      rows = jnp.arange(batch)
      observation = state.env.observation[rows, 1 - state.seat]
      actions = opponent.act(opponent.params, observation,
                             state.env.legal_action_mask, state.member,
                             act_key)
      env_state = _where(moving, self.env.step(state.env, actions),
                         state.env)
      ended = moving & env_state.terminated
      state = self._new_members(state._replace(env=env_state, key=key),
                                ended, opponent)
      reward = reward + jnp.where(moving, env_state.rewards[rows, state.seat],
                                  0.0)
      return state, reward, done | ended

    zeros = jnp.zeros(batch)
    return jax.lax.while_loop(waiting, move,
                              (state, zeros, jnp.zeros(batch, bool)))

  @staticmethod
  def _opponent_to_move(state: VersusState) -> jax.Array:
    player = state.env.current_player
    return (player != state.seat) & (player != batched.GAME_OVER)


class HostVersusEnv(_Versus):
  """`VersusEnv` over a `PyspielVectorEnv` (any pyspiel game, stepped on the
  host; not jittable): the same interface, for `learner.make_train_steps`'
  Python loop. The opponent acts through its jitted `act` on the batch."""

  jittable = False

  def __init__(self, env: batched.PyspielVectorEnv,
               opponent: opponents_lib.Opponent, seats: Any = ALTERNATE):
    super().__init__(env, opponent, seats)
    self._act = jax.jit(opponent.act)

  def init(self, key: jax.Array, batch: int) -> VersusState:
    env_key, member_key, key = jax.random.split(key, 3)
    seat = np.arange(batch) % 2 if self.seats == ALTERNATE else np.full(
        batch, self.seats)
    state = VersusState(self.env.init(jax.random.split(env_key, batch)),
                        seat, np.asarray(self.opponent.draw_members(
                            member_key, batch)), key)
    state, _, _ = self._opponent_moves(state, self.opponent.params,
                                       self.opponent.weights)
    return state

  def observation(self, state: VersusState) -> np.ndarray:
    return state.env.observation[np.arange(len(state.seat)), state.seat]

  def legal_mask(self, state: VersusState) -> np.ndarray:
    return state.env.legal_action_mask.copy()

  def play(self, state: VersusState, actions: Any, params: Any,
           weights: jax.Array) -> tuple[VersusState, np.ndarray, np.ndarray]:
    env = self.env.step(state.env, np.asarray(actions))
    rows = np.arange(len(state.seat))
    reward = env.rewards[rows, state.seat].copy()
    done = env.terminated.copy()
    state = self._new_members(state._replace(env=env), done, weights)
    state, later_reward, later_done = self._opponent_moves(state, params,
                                                           weights)
    return state, reward + later_reward, done | later_done

  def _new_members(self, state: VersusState, done: np.ndarray,
                   weights: jax.Array) -> VersusState:
    key, member_key = jax.random.split(state.key)
    fresh = np.asarray(jax.random.choice(member_key, len(weights),
                                         (len(done),), p=weights))
    return state._replace(member=np.where(done, fresh, state.member), key=key)

  def _opponent_moves(self, state: VersusState, params: Any,
                      weights: jax.Array
                     ) -> tuple[VersusState, np.ndarray, np.ndarray]:
    rows = np.arange(len(state.seat))
    reward = np.zeros(len(rows), np.float32)
    done = np.zeros(len(rows), bool)
    while True:
      player = state.env.current_player
      moving = (player != state.seat) & (player != batched.GAME_OVER)
      if not moving.any():
        return state, reward, done
      key, act_key = jax.random.split(state.key)
      actions = np.asarray(self._act(
          params, state.env.observation[rows, 1 - state.seat],
          state.env.legal_action_mask, state.member, act_key))
      env = self.env.step(state.env, actions, games=moving)
      ended = moving & env.terminated
      state = self._new_members(state._replace(env=env, key=key), ended,
                                weights)
      reward += np.where(moving, env.rewards[rows, state.seat], 0.0)
      done |= ended
