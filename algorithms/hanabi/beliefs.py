"""Exact beliefs over a Hanabi player's own hand, as SPARTA keeps them.

A player's belief is every hand it may hold: each card one its hints leave
plausible, no card more often than the copies it cannot see (the cards not
played, discarded or in other hands), and, for a deterministic partner
blueprint, only hands with which the partner would have made every move it
made. `Belief.hands` lists those hands ([N, H] card ids, -1 in empty slots);
a hand's probability is proportional to the number of ways to draw it from
the unseen copies, Π_k u_k! / (u_k - n_k)! (`weights`), since every
arrangement of the unseen cards is equally likely and hints and a
deterministic blueprint only rule hands in or out.

`log_probability` scores the true hand (how sharp the belief is). The
grounded belief (`update(..., grounded=True)`) keeps what the hints and the
visible copies allow and ignores why the partner moved. The belief follows
the game move by move (`update`): a partner's move keeps
the hands with which the blueprint chooses it (evaluated in batches on the
engine, with each hand in turn placed in the real state and the blueprint's
memory of the real game, which is public); the player's own
play or discard keeps the hands that held the revealed card there, removes
it and appends every card the new one may be; hints and draws leave the
hands that are still possible.
"""

import functools
from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp
import numpy as np

from open_spiel_ext.algorithms.hanabi import blueprints
from open_spiel_ext.games.hanabi import engine as engine_lib

# Hands evaluated by the blueprint at once: a batch is padded to the
# smallest of these sizes that holds it (a compilation each, at most).
CHUNKS = (1 << 8, 1 << 11, 1 << 14)


class Belief(NamedTuple):
  player: int
  hands: np.ndarray  # [N, H] int8 card ids, -1 in empty slots.


def row(state: engine_lib.HanabiState, game: int = 0
       ) -> engine_lib.HanabiState:
  """One game of a batch, as numpy arrays without the batch axis."""
  return jax.tree.map(lambda x: np.asarray(x[game]), state)


def unseen(rules: engine_lib.Rules, game: engine_lib.HanabiState,
           player: int) -> np.ndarray:
  """[C·R] the copies of each card `player` cannot see: in its hand or the
  deck (`game` is a `row`)."""
  played = (np.arange(rules.ranks)[None] <
            np.asarray(game.fireworks)[:, None]).ravel()
  others = np.delete(np.asarray(game.hands), player, axis=0).ravel()
  seen = np.bincount(others[others >= 0], minlength=rules.num_cards)
  copies = np.tile(rules.copies, rules.colors)
  return copies - np.asarray(game.discarded) - played - seen


def plausible(rules: engine_lib.Rules, game: engine_lib.HanabiState,
              player: int) -> np.ndarray:
  """[H, C·R] the cards each slot of `player`'s hand may be by its hints
  (all False in empty slots)."""
  color = np.asarray(game.color_plausible)[player]
  rank = np.asarray(game.rank_plausible)[player]
  present = np.asarray(game.hands)[player] >= 0
  both = color[:, :, None] & rank[:, None, :]
  return both.reshape(rules.hand_size, -1) & present[:, None]


class BeliefTooLarge(ValueError):
  """An exact belief would hold more hands than allowed."""


def initial(rules: engine_lib.Rules, game: engine_lib.HanabiState,
            player: int, max_hands: Optional[int] = None) -> Belief:
  """Every hand `player` may hold by its hints and the unseen copies
  (BeliefTooLarge if that may be more than `max_hands`)."""
  allowed = plausible(rules, game, player)
  present = int((np.asarray(game.hands)[player] >= 0).sum())
  bound = int(np.prod(allowed[:present].sum(axis=1), dtype=np.float64))
  if max_hands is not None and bound > max_hands:
    raise BeliefTooLarge(
        f"the exact belief over player {player}'s {present} cards may hold "
        f"up to {bound:,d} hands ({bound * rules.hand_size / 2**30:.1f} GiB "
        f"as int8 cards alone), over max_hands={max_hands:,d}")
  counts = unseen(rules, game, player)
  hands = np.zeros((1, 0), np.int8)
  for slot in range(present):
    cards = np.flatnonzero(allowed[slot]).astype(np.int8)
    hands = np.concatenate([np.repeat(hands, len(cards), axis=0),
                            np.tile(cards, len(hands))[:, None]], axis=1)
    hands = hands[(hands == hands[:, -1:]).sum(axis=1, dtype=np.int8) <=
                  counts[hands[:, -1]]]
  empty = np.full((len(hands), rules.hand_size - present), -1, np.int8)
  return Belief(player, np.concatenate([hands, empty], axis=1))


def weights(rules: engine_lib.Rules, game: engine_lib.HanabiState,
            belief: Belief) -> np.ndarray:
  """[N] each hand's probability (Π_k u_k! / (u_k - n_k)!, normalised)."""
  counts = unseen(rules, game, belief.player)
  hands = belief.hands
  ways = np.ones(len(hands))
  for slot in range(hands.shape[1]):
    cards = hands[:, slot]
    present = cards >= 0
    before = (hands[:, :slot] == cards[:, None]).sum(axis=1, dtype=np.int8)
    ways *= np.where(present, np.maximum(
        counts[np.maximum(cards, 0)] - before, 0), 1)
  total = ways.sum()
  if total <= 0:
    raise ValueError("no hand is left in the belief: it was updated with "
                     "moves its blueprint would not make")
  return ways / total


def consistent(rules: engine_lib.Rules, game: engine_lib.HanabiState,
               player: int, hands: np.ndarray,
               known: Optional[np.ndarray] = None) -> np.ndarray:
  """[N] whether each of `hands` ([N, H], -1 in empty slots) is one
  `player` may hold in `game` (a `row`) by its hints, the copies it cannot
  see and, if given, `known` ([H, C·R]: what else is publicly known of each
  slot, `Blueprint.known_identities`)."""
  allowed = plausible(rules, game, player)
  if known is not None:
    allowed = allowed & known
  present = hands >= 0
  fits = np.where(present, allowed[np.arange(hands.shape[1]),
                                   np.maximum(hands, 0)], True).all(axis=1)
  fits &= (present == (np.asarray(game.hands)[player] >= 0)).all(axis=1)
  counts = unseen(rules, game, player)
  for card in range(rules.num_cards):  # Card by card: N bytes at a time.
    fits &= (hands == card).sum(axis=1, dtype=np.int8) <= counts[card]
  return fits


def log_probability(rules: engine_lib.Rules, game: engine_lib.HanabiState,
                    belief: Belief) -> float:
  """The log-probability of the hand the belief's player truly holds in
  `game` (a `row`), -inf if the belief ruled it out."""
  truth = np.asarray(game.hands)[belief.player].astype(np.int8)
  matches = (belief.hands == truth).all(axis=1)
  if not matches.any():
    return -np.inf
  return float(np.log(weights(rules, game, belief)[matches].sum()))


def _possible(rules: engine_lib.Rules, game: engine_lib.HanabiState,
              belief: Belief) -> Belief:
  """The hands its hints and the unseen copies still allow."""
  return belief._replace(hands=belief.hands[consistent(
      rules, game, belief.player, belief.hands)])


@functools.lru_cache(maxsize=None)
def _choices(blueprint: blueprints.Blueprint):
  """The blueprint's `act_with_hands`, jitted."""
  return jax.jit(blueprint.act_with_hands, static_argnums=(3, 4))


def blueprint_moves(blueprint: blueprints.Blueprint,
                    game: engine_lib.HanabiState, memory: blueprints.Memory,
                    belief: Belief, mover: int) -> np.ndarray:
  """[N] the move `mover`'s blueprint makes in `game` (a `row`, with its
  memory, a `row` too) if the belief's player holds each of the belief's
  hands."""
  choose = _choices(blueprint)
  hands = belief.hands
  moves = []
  for start in range(0, len(hands), CHUNKS[-1]):
    chunk = hands[start:start + CHUNKS[-1]]
    size = next(size for size in CHUNKS if size >= len(chunk))
    padded = np.concatenate([chunk, np.repeat(chunk[-1:], size - len(chunk),
                                              axis=0)])
    moves.append(np.asarray(choose(blueprint.params, memory, game,
                                   belief.player, mover,
                                   jnp.asarray(padded)))[:len(chunk)])
  return np.concatenate(moves) if moves else np.zeros(0, np.int32)


def update(blueprint: blueprints.Blueprint, belief: Belief,
           before: engine_lib.HanabiState, memory: blueprints.Memory,
           action: int, after: engine_lib.HanabiState,
           grounded: bool = False) -> Belief:
  """The belief after the move `action` took game `before` (a `row`, with
  the blueprint's memory there) to `after` (a `row`; not finished). A
  `grounded` belief ignores why the partner moved: it keeps every hand the
  hints and the visible copies allow."""
  rules = blueprint.engine.rules
  mover = int(before.current_player)
  if mover != belief.player:
    if not grounded:
      moves = blueprint_moves(blueprint, before, memory, belief, mover)
      belief = belief._replace(hands=belief.hands[moves == action])
  elif action < 2 * rules.hand_size:  # The player's own discard or play.
    slot = action % rules.hand_size
    card = int(after.last.card)
    hands = belief.hands[belief.hands[:, slot] == card]
    hands = np.delete(hands, slot, axis=1)
    if int(after.dealt) > int(before.dealt):
      cards = np.arange(rules.num_cards, dtype=np.int8)
      hands = np.concatenate([np.repeat(hands, len(cards), axis=0),
                              np.tile(cards, len(hands))[:, None]], axis=1)
    else:
      hands = np.concatenate([hands, np.full((len(hands), 1), -1, np.int8)],
                             axis=1)
    belief = belief._replace(hands=hands)
  return _possible(rules, after, belief)
