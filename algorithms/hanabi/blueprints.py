"""The policies every Hanabi player follows, as search needs them.

A `Blueprint` plays every seat of a batch of games on the engine. It keeps a
`memory` of the game so far that depends on public information only (the
learned blueprints' LSTM state over the public features; nothing for the
rule-based bot), so that a searcher can ask what a player would do in the
same game with another hand: only the private part is recomputed, and the
memory is shared by every sampled hand. Its calls are pure and jittable and
take its parameters (`blueprint.params`) explicitly, so that jitted code
compiled for one blueprint serves another of the same kind (`key`):

- `start(params, states)`: the memory of freshly dealt games;
- `remember(params, memory, states)`: the memory once a step led to
  `states`;
- `act(params, memory, states, movers)`: what each game's `movers` would
  play;
- `act_with_hands(params, memory, game, player, mover, hands)`: what
  `mover` would play in one game for each hand `player` might hold (by
  default `act` on copies of the game; a blueprint may do it faster);
- `value(params, memory, states)`: the points still to come, for blueprints
  that estimate them (`has_value`; learned belief search bootstraps from
  it).

`reads_observations` says whether `act` reads `states.observation` (then a
caller that changes hands by hand must call `engine.observe` first).

`RuleBlueprint` wraps `rule_bot`; `learned_blueprint.LearnedBlueprint` is
the learned one. `jitted` compiles a blueprint's calls, `play_out` plays
games to the end, `self_play_scores` whole games from decks and
`self_play_games` the same with every move recorded.
"""

import abc
import functools
import hashlib
from typing import Any, Callable, Hashable, NamedTuple, Optional

import jax
import jax.numpy as jnp
import numpy as np

from open_spiel_ext.algorithms.hanabi import rule_bot
from open_spiel_ext.games.hanabi import engine as engine_lib

Memory = Any  # A pytree with the batch axis first.


class Blueprint(abc.ABC):
  """A policy of every player with a public memory (module docstring)."""

  reads_observations: bool = True
  has_value: bool = False  # Whether `value` is defined.
  params: Any = ()

  def __init__(self, engine: engine_lib.HanabiEngine):
    self.engine = engine

  @property
  def key(self) -> Hashable:
    """Equal for blueprints that differ only in their parameters."""
    return (type(self), id(self.engine))

  def __eq__(self, other: Any) -> bool:
    return isinstance(other, Blueprint) and self.key == other.key

  def __hash__(self) -> int:
    return hash(self.key)

  @property
  def fingerprint(self) -> str:
    """Names this very policy (its kind and parameters, as float16 weights
    files keep them): what a belief model trained on its games belongs
    to."""
    digest = hashlib.sha256()
    for leaf in jax.tree.leaves(self.params):
      digest.update(np.asarray(leaf, np.float16).tobytes())
    return f"{type(self).__name__}:{digest.hexdigest()[:16]}"

  @abc.abstractmethod
  def start(self, params: Any, states: engine_lib.HanabiState) -> Memory:
    """The memory of games just dealt."""

  @abc.abstractmethod
  def remember(self, params: Any, memory: Memory,
               states: engine_lib.HanabiState) -> Memory:
    """The memory after a step led to `states`."""

  @abc.abstractmethod
  def act(self, params: Any, memory: Memory, states: engine_lib.HanabiState,
          movers: jax.Array) -> jax.Array:
    """[B] what player `movers[b]` would play in game b (were it to move)."""

  def act_with_hands(self, params: Any, memory: Memory,
                     game: engine_lib.HanabiState, player: int, mover: int,
                     hands: jax.Array) -> jax.Array:
    """[N] what `mover` would play in `game` (one game, no batch axis; its
    memory too) if `player` held each of `hands` ([N, H]): what exact
    beliefs ask of the partner's blueprint, for every hand they hold."""
    engine = self.engine

    def broadcast(x):
      return jnp.broadcast_to(x, (hands.shape[0],) + jnp.shape(x))

    states = jax.tree.map(broadcast, game)
    states = states._replace(hands=states.hands.at[:, player].set(
        hands.astype(jnp.int32)))
    if self.reads_observations:
      states = engine.observe(states)
    else:
      states = states._replace(
          legal_action_mask=engine.legal_actions_of(states))
    return self.act(params, jax.tree.map(broadcast, memory), states,
                    jnp.full(hands.shape[0], mover))

  def known_identities(self, memory: Memory,
                       player: int) -> Optional[np.ndarray]:
    """[H, C·R] the cards each slot of `player`'s hand may be by what the
    memory of one game (a `beliefs.row`) has publicly inferred, conventions
    included, or None where it infers nothing beyond the hints (the
    default). Searches that draw hands from a learned belief reject the
    hands it rules out."""
    del memory, player
    return None

  def value(self, params: Any, memory: Memory,
            states: engine_lib.HanabiState) -> jax.Array:
    """[B] the points the blueprint expects to score from `states` on (by
    the player to move's estimate), where `has_value`."""
    raise NotImplementedError(f"{type(self).__name__} has no value")

  def moves(self, params: Any, memory: Memory,
            states: engine_lib.HanabiState) -> jax.Array:
    """[B] each game's move for its player to move (0 in finished games)."""
    movers = jnp.maximum(states.current_player, 0)
    return jnp.where(states.terminated, 0,
                     self.act(params, memory, states, movers))


class RuleBlueprint(Blueprint):
  """The rule-based convention bot (`rule_bot.py`); it needs no memory."""

  reads_observations = False

  def start(self, params, states):
    return ()

  def remember(self, params, memory, states):
    return ()

  def act(self, params, memory, states, movers):
    return rule_bot.act_as(self.engine, states, movers)


class Jitted(NamedTuple):
  """A blueprint's calls, jitted (`jitted`)."""
  start: Callable[..., Memory]
  remember: Callable[..., Memory]
  act: Callable[..., jax.Array]
  moves: Callable[..., jax.Array]


@functools.lru_cache(maxsize=None)
def jitted(blueprint: Blueprint) -> Jitted:
  """The blueprint's calls compiled once for its kind (they take the
  parameters as their first argument, as the methods do)."""
  return Jitted(jax.jit(blueprint.start), jax.jit(blueprint.remember),
                jax.jit(blueprint.act), jax.jit(blueprint.moves))


def play_out(blueprint: Blueprint, params: Any, states: engine_lib.HanabiState,
             memory: Memory) -> jax.Array:
  """[B] the points everyone playing the blueprint scores from `states` (and
  their memory) to the end of each game (jittable)."""
  engine = blueprint.engine
  if engine.auto_reset:
    raise ValueError("play_out needs an engine without auto_reset (its "
                     "games would never end)")

  def going(carry):
    return ~carry[0].terminated.all()

  def move(carry):
    states, memory, scored = carry
    states = engine.step(states, blueprint.moves(params, memory, states))
    return (states, blueprint.remember(params, memory, states),
            scored + states.rewards[:, 0])

  scored = jnp.zeros(states.terminated.shape)
  return jax.lax.while_loop(going, move, (states, memory, scored))[2]


@functools.lru_cache(maxsize=None)
def _self_play(blueprint: Blueprint):
  """Jitted: whole games dealt from decks, their scores."""

  def run(params, decks):
    states = blueprint.engine.deal(decks)
    return play_out(blueprint, params, states,
                    blueprint.start(params, states))

  return jax.jit(run)


def self_play_scores(blueprint: Blueprint, decks: np.ndarray) -> np.ndarray:
  """[N] the blueprint's self-play score on each deck ([N, deck_size])."""
  return np.asarray(_self_play(blueprint)(blueprint.params,
                                          jnp.asarray(decks, jnp.int32)))


def self_play_games(blueprint: Blueprint, decks: np.ndarray
                   ) -> tuple[list[list[int]], np.ndarray]:
  """Each deck's moves in the blueprint's self-play (a jitted call a move
  for the whole batch), and its score."""
  calls = jitted(blueprint)
  engine = blueprint.engine
  states = engine.deal(jnp.asarray(decks, jnp.int32))
  memory = calls.start(blueprint.params, states)
  moves, scores = [[] for _ in decks], np.zeros(len(decks))
  while not np.asarray(states.terminated).all():
    actions = np.asarray(calls.moves(blueprint.params, memory, states))
    for game in np.flatnonzero(~np.asarray(states.terminated)):
      moves[game].append(int(actions[game]))
    states = engine.step(states, actions)
    memory = calls.remember(blueprint.params, memory, states)
    scores += np.asarray(states.rewards[:, 0])
  return moves, scores
