"""SmartBot's conventions as a Hanabi blueprint, in JAX (2 players).

SmartBot (Arthur O'Dwyer's scripted bot, the default blueprint of SPARTA's
reference code; 22.99 on 2-player Hanabi, bomb-outs scoring 0) rebuilt from
its public rules on the batched engine, so that SPARTA and LBS roll it out
by the thousand. Its memory is what every player publicly knows about every
card: a grid of the identities (color, rank) each card may still have. Hints
cross identities off literally, and by convention:

- a hint that leaves no card surely playable says that the newest touched
  card whose playability was in doubt is playable;
- a rank hint that touches the receiver's "chop" (the card it would discard
  next, known to everyone) where that card may be the last copy of a card
  still needed is a warning: the chop is that last copy, and nothing is to
  be played from it; at the maximum of tokens, a rank hint touching the
  receiver's oldest card only wins back a token (a "reclaim");
- a player who plays or discards, able to warn, without warning says that
  the next player's chop is no last copy;
- discarding a card everyone knows to be playable (a discard finesse) says
  that the partner's newest card is that very card;
- at the start of every turn, a card whose every copy is accounted for
  (played, discarded, or known in some hand) is crossed off every other
  card, until nothing changes.

The player to move, in this order (probabilities are shares of a card's
possible identities, each counted once):
1. with the deck empty, plays its best sure card, else the card most likely
   playable;
2. warns the next player whose real chop is a last copy (with a helpful
   hint instead, if one exists);
3. discards a card known playable that is the partner's newest (a discard
   finesse);
4. plays its best sure card (by what it sees too: cards only it knows
   playable first, then the lowest);
5. gives the hint that leaves the most identities crossed off among those
   that make a card surely playable or point at a really playable one;
6. near the deck's end (3 cards left with 3 lives, 1 with fewer) plays the
   card most likely playable;
7. at the maximum of tokens, hints its partner's oldest card's rank;
8. else discards a card worthless (by what everyone knows, or only it
   sees), its chop, or its lowest card known to be valuable.

`SmartBlueprint` is the `Blueprint` (its memory: `Knowledge`), with any of
the `CONVENTIONS` left out (by givers and readers alike) to measure what
each is worth; `SmartBot` plays pyspiel's `hanabi` through OpenSpiel's bot
API with the same code.
Ties, scores and orders follow SmartBot's, with HLE's colors in SmartBot's
color order (the i-th color of each).
"""

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from open_spiel_ext.algorithms.hanabi import blueprints
from open_spiel_ext.games.hanabi import engine as engine_lib
import pyspiel

# What `SmartBlueprint(without=...)` may leave out.
CONVENTIONS = ("play_hint", "warning", "no_warning", "discard_finesse",
               "public_counting", "eyesight", "mystery_play")
# Deck sizes at or below which a card that may be playable is played, by
# lives left (3 or more: 3).
_MYSTERY_DECK = (-99, 1, 1, 3)
_NONE = -1


class Knowledge(NamedTuple):
  """What every player publicly knows, and the board it was updated on."""
  grid: jax.Array  # [P, H, N] bool: identities each card may still have.
  present: jax.Array  # [P, H] bool: slots holding a card.
  fireworks: jax.Array  # [C] int32
  discarded: jax.Array  # [N] int32
  information: jax.Array  # int32
  dealt: jax.Array  # int32


class _Status(NamedTuple):
  """Whether a card has a property: by all its identities (yes), by none
  (no), or by some (maybe, with the share `p`)."""
  yes: jax.Array
  no: jax.Array
  maybe: jax.Array
  p: jax.Array


class _Cells(NamedTuple):
  """[N] which identities are playable, worthless and valuable now."""
  playable: jax.Array
  worthless: jax.Array
  valuable: jax.Array


class _Rules(NamedTuple):
  """What the functions below take from the rules (static)."""
  players: int
  hand_size: int
  colors: int
  ranks: int
  copies: tuple[int, ...]  # [N] copies of each identity.
  deck_size: int
  max_information: int
  without: frozenset[str] = frozenset()  # Conventions left out.


def _rules_of(rules: engine_lib.Rules,
              without: frozenset[str] = frozenset()) -> _Rules:
  return _Rules(rules.players, rules.hand_size, rules.colors, rules.ranks,
                tuple(np.tile(rules.copies, rules.colors).tolist()),
                rules.deck_size, rules.max_information_tokens, without)


def _uses(rules: _Rules, convention: str) -> jax.Array:
  return jnp.bool_(convention not in rules.without)


def _color_of(rules: _Rules) -> jax.Array:
  return jnp.arange(rules.colors * rules.ranks) // rules.ranks


def _rank_of(rules: _Rules) -> jax.Array:
  return jnp.arange(rules.colors * rules.ranks) % rules.ranks


def _out_of_hands(rules: _Rules, fireworks: jax.Array,
                  discarded: jax.Array) -> jax.Array:
  """[N] copies of each identity that left the hands (played, discarded)."""
  return discarded + (_rank_of(rules) < fireworks[_color_of(rules)])


def _cells(rules: _Rules, fireworks: jax.Array,
           discarded: jax.Array) -> _Cells:
  ranks = _rank_of(rules)
  next_rank = fireworks[_color_of(rules)]
  gone = _out_of_hands(rules, fireworks, discarded)
  copies = jnp.asarray(rules.copies)
  lost = ((gone >= copies) & (ranks >= next_rank)).reshape(rules.colors,
                                                             rules.ranks)
  blocked = ((jnp.cumsum(lost, axis=1) - lost) > 0).ravel()
  worthless = (ranks < next_rank) | blocked
  return _Cells(ranks == next_rank, worthless,
                (gone == copies - 1) & ~worthless)


def _status(grid: jax.Array, cells: jax.Array) -> _Status:
  """Of cards ([..., N] grids); an empty grid (knowledge a partner's
  unconventional moves contradicted) is maybe, at one half."""
  total = grid.sum(-1)
  hits = (grid & cells).sum(-1)
  yes = (total > 0) & (hits == total)
  no = (total > 0) & (hits == 0)
  return _Status(yes, no, ~yes & ~no,
                 jnp.where(total > 0, hits / jnp.maximum(total, 1), 0.5))


def _possibilities(grid: jax.Array) -> jax.Array:
  """Identities left; an emptied card counts 10, as SPARTA's copy of
  SmartBot counts it."""
  total = grid.sum(-1)
  return jnp.where(total > 0, total, 10)


def _known(grid: jax.Array) -> jax.Array:
  return grid.sum(-1) == 1


def _known_rank(rules: _Rules, grid: jax.Array) -> jax.Array:
  """[...] each card's rank if all its identities share one, else -1."""
  ranks = grid.reshape(grid.shape[:-1] + (rules.colors, rules.ranks)).any(-2)
  return jnp.where(ranks.sum(-1) == 1, jnp.argmax(ranks, -1), _NONE)


def _first(mask: jax.Array, scores: jax.Array) -> jax.Array:
  """The first index of the highest score where `mask` (-1 if none)."""
  best = jnp.argmax(jnp.where(mask, scores, -jnp.inf))
  return jnp.where(mask.any(), best, _NONE)


def _last(mask: jax.Array, scores: jax.Array) -> jax.Array:
  """The last index of the highest score where `mask` (-1 if none)."""
  flipped = _first(mask[::-1], scores[::-1])
  return jnp.where(flipped >= 0, mask.shape[0] - 1 - flipped, _NONE)


def _newest(present: jax.Array) -> jax.Array:
  return _last(present, jnp.zeros(present.shape))


def _count_out(rules: _Rules, grid: jax.Array, present: jax.Array,
               gone: jax.Array, counted: jax.Array) -> jax.Array:
  """Crosses off the cards not known yet every identity whose copies are
  all out of the hands (`gone`) or `counted`."""
  full = gone + counted >= jnp.asarray(rules.copies)
  keep = _known(grid) | ~present
  return jnp.where(keep[..., None], grid, grid & ~full)


def _public_counting(rules: _Rules, grid: jax.Array, present: jax.Array,
                     gone: jax.Array) -> jax.Array:
  """The start of every turn: copies located in known cards crossed off
  every other card, until nothing changes (at most P·H rounds)."""
  if "public_counting" in rules.without:
    return grid

  def round_(_, grid):
    known = present & _known(grid)
    located = (grid & known[..., None]).sum(axis=(0, 1))
    return _count_out(rules, grid, present, gone, located)

  return jax.lax.fori_loop(0, rules.players * rules.hand_size, round_, grid)


def _chop(grid: jax.Array, present: jax.Array, cells: _Cells) -> jax.Array:
  """The slot a player would discard next by public knowledge ([H, N]),
  or -1: none if it has a card known playable or known worthless, else its
  card most likely worthless that is not known valuable (the oldest of
  equals)."""
  playable = _status(grid, cells.playable)
  worthless = _status(grid, cells.worthless)
  valuable = _status(grid, cells.valuable)
  settled = (present & (playable.yes | worthless.yes)).any()
  chop = _first(present & ~valuable.yes, worthless.p)
  return jnp.where(settled, _NONE, chop)


def _could_be_valuable_with_rank(rules: _Rules, card: jax.Array,
                                 rank: jax.Array, cells: _Cells
                                 ) -> jax.Array:
  """Whether a rank hint may mean "this card is a last copy": the rank is
  possible, the card may be valuable, and may still be once it has it."""
  with_rank = card & (_rank_of(rules) == rank)
  return (with_rank.any() & _status(card, cells.valuable).maybe &
          ~_status(with_rank, cells.valuable).no)


# Reading the moves.


def _no_warning(rules: _Rules, grid: jax.Array, present: jax.Array,
                actor: jax.Array, cells: _Cells, could_warn: jax.Array
                ) -> jax.Array:
  """A player that could warn the next one did not: that player's chop is
  no last copy."""
  warned = (actor + 1) % rules.players
  chop = _chop(grid[warned], present[warned], cells)
  applies = could_warn & (chop >= 0)
  slot = jnp.maximum(chop, 0)
  card = grid[warned, slot]
  return grid.at[warned, slot].set(
      jnp.where(applies, card & ~cells.valuable, card))


def _read_hint(rules: _Rules, grid: jax.Array, present: jax.Array,
               memory: Knowledge, last: engine_lib.LastMove,
               cells: _Cells) -> jax.Array:
  """The receiver's cards after a hint, literally and by convention."""
  target = jnp.maximum(last.target, 0)
  is_rank = last.kind == engine_lib.REVEAL_RANK
  hinted = jnp.where(is_rank, _rank_of(rules), _color_of(rules)) == last.value
  cards, touched = grid[target], last.revealed & present[target]
  chop = _chop(cards, present[target], cells)
  reclaim = (is_rank & (memory.information >= rules.max_information) &
             (last.actor == (target + 1) % rules.players) & touched[0])
  # (With 2 players every hint goes to the player a warning would.)
  chop_slot = jnp.maximum(chop, 0)
  warning = (_uses(rules, "warning") &
             is_rank & ~reclaim & (chop >= 0) & touched[chop_slot] &
             _could_be_valuable_with_rank(rules, cards[chop_slot], last.value,
                                          cells))
  cards = cards.at[chop_slot].set(jnp.where(
      warning, cards[chop_slot] & cells.valuable, cards[chop_slot]))
  before = _status(cards, cells.playable)
  cards = jnp.where(touched[:, None], cards & hinted, cards & ~hinted)
  after = _status(cards, cells.playable)
  identified = (present[target] & before.maybe & after.yes).any()
  inferred = _newest(touched & before.maybe & after.maybe)
  plays = (_uses(rules, "play_hint") &
           ~warning & ~reclaim & ~identified & (inferred >= 0))
  slot = jnp.maximum(inferred, 0)
  cards = cards.at[slot].set(jnp.where(plays, cards[slot] & cells.playable,
                                       cards[slot]))
  return grid.at[target].set(cards)


def _read_card_move(rules: _Rules, grid: jax.Array, present: jax.Array,
                    memory: Knowledge, last: engine_lib.LastMove,
                    cells: _Cells) -> tuple[jax.Array, jax.Array]:
  """The cards after a play or discard (the card leaves its slot; a new one,
  known as nothing, comes last), and which slots hold one."""
  deck_left = rules.deck_size - memory.dealt
  actor, slot = last.actor, jnp.maximum(last.slot, 0)
  grid = _no_warning(rules, grid, present, actor, cells,
                     _uses(rules, "no_warning") &
                     (deck_left > 0) & (memory.information > 0))
  # A discard finesse: the partner's newest card is the discarded one.
  partner = (actor + 1) % rules.players
  newest = jnp.maximum(_newest(present[partner]), 0)
  mine = grid[actor, slot]
  finesse = (_uses(rules, "discard_finesse") &
             (last.kind == engine_lib.DISCARD) & _known(mine) &
             _status(mine, cells.playable).yes)
  card = jnp.arange(rules.colors * rules.ranks) == last.card
  grid = grid.at[partner, newest].set(
      jnp.where(finesse, card, grid[partner, newest]))
  h = rules.hand_size
  index = jnp.arange(h)
  source = jnp.minimum(index + (index >= slot), h - 1)
  is_last = index == h - 1
  drawn = deck_left > 0
  hand = jnp.where(is_last[:, None], True, grid[actor][source])
  held = jnp.where(is_last, drawn, present[actor][source])
  return grid.at[actor].set(hand), present.at[actor].set(held)


def _remember_one(rules: _Rules, memory: Knowledge,
                  state: engine_lib.HanabiState) -> Knowledge:
  """The knowledge once the last move is read, at the next turn's start."""
  last = state.last
  cells = _cells(rules, memory.fireworks, memory.discarded)
  grid, present = memory.grid, memory.present
  is_hint = last.kind >= engine_lib.REVEAL_COLOR
  hinted = _read_hint(rules, grid, present, memory, last, cells)
  moved, held = _read_card_move(rules, grid, present, memory, last, cells)
  read = jnp.where(is_hint, hinted, moved)
  read_present = jnp.where(is_hint, present, held)
  fresh = (last.kind >= 0) & ~state.terminated
  grid = jnp.where(fresh, read, grid)
  present = jnp.where(fresh, read_present, present)
  grid = _public_counting(rules, grid, present, _out_of_hands(
      rules, state.fireworks, state.discarded))
  return Knowledge(grid, present, state.fireworks, state.discarded,
                   state.information, state.dealt)


def _start_one(rules: _Rules, state: engine_lib.HanabiState) -> Knowledge:
  n = rules.colors * rules.ranks
  return Knowledge(
      jnp.ones((rules.players, rules.hand_size, n), bool), state.hands >= 0,
      state.fireworks, state.discarded, state.information, state.dealt)


# Choosing a move.


def _hint_action(rules: _Rules, mover: jax.Array, partner: jax.Array,
                 is_rank: jax.Array, value: jax.Array) -> jax.Array:
  """HLE's action id of a hint to `partner`."""
  h, p, c, r = rules.hand_size, rules.players, rules.colors, rules.ranks
  offset = (partner - mover) % p
  return jnp.where(is_rank, 2 * h + (p - 1) * c + (offset - 1) * r + value,
                   2 * h + (offset - 1) * c + value)


def _best_hint(rules: _Rules, memory: Knowledge, state: engine_lib.HanabiState,
               mover: jax.Array, partner: jax.Array,
               cells: _Cells) -> tuple[jax.Array, jax.Array]:
  """The hint `mover` would give `partner` and its fitness (identities it
  crosses off, literally; -1: no acceptable hint)."""
  c, r = rules.colors, rules.ranks
  cards, present = state.hands[partner], memory.present[partner]
  grid = memory.grid[partner]
  # Hints enumerated as SmartBot does: colors, then ranks.
  values = jnp.concatenate([jnp.arange(c), jnp.arange(r)])
  is_rank = jnp.arange(c + r) >= c
  card_values = jnp.where(is_rank[:, None], cards[None] % r,
                          cards[None] // r)
  touched = present[None] & (card_values == values[:, None])  # [K, H]
  identity = jnp.where(is_rank[:, None], _rank_of(rules)[None],
                       _color_of(rules)[None]) == values[:, None]  # [K, N]
  after = jnp.where(touched[..., None], grid[None] & identity[:, None],
                    grid[None] & ~identity[:, None])
  before_status = _status(grid, cells.playable)
  after_status = _status(after, cells.playable)
  doubtful = present & before_status.maybe
  reveals = (doubtful[None] & after_status.yes).any(-1)
  pointed = jax.vmap(_newest)(touched & doubtful[None] & after_status.maybe)
  really_playable = present & cells.playable[jnp.maximum(cards, 0)]
  points_right = (_uses(rules, "play_hint") & (pointed >= 0) &
                  really_playable[jnp.maximum(pointed, 0)])
  # A rank hint on the next player's chop would read as a warning.
  chop = _chop(grid, present, cells)
  chop_rank = cards[jnp.maximum(chop, 0)] % r
  avoid = (_uses(rules, "warning") &
           (partner == (mover + 1) % rules.players) & (chop >= 0) &
           _could_be_valuable_with_rank(rules, grid[jnp.maximum(chop, 0)],
                                        chop_rank, cells))
  misread = is_rank & avoid & (values == chop_rank)
  acceptable = touched.any(-1) & ~misread & (reveals | points_right)
  fitness = jnp.where(present[None], _possibilities(grid)[None] -
                      _possibilities(after), 0).sum(-1)
  best = _first(acceptable, fitness)
  index = jnp.maximum(best, 0)
  return (_hint_action(rules, mover, partner, is_rank[index], values[index]),
          jnp.where(best >= 0, fitness[index], -1))


def _act_one(rules: _Rules, memory: Knowledge, state: engine_lib.HanabiState,
             mover: jax.Array) -> jax.Array:
  """What `mover` plays, from public knowledge and the cards it sees."""
  h, p = rules.hand_size, rules.players
  cells = _cells(rules, state.fireworks, state.discarded)
  gone = _out_of_hands(rules, state.fireworks, state.discarded)
  present = memory.present[mover]
  mine = memory.grid[mover]
  others = state.hands[(mover + jnp.arange(1, p)) % p]
  n = rules.colors * rules.ranks
  seen = (jax.nn.one_hot(others, n, dtype=jnp.int32) *
          (others >= 0)[..., None]).sum(axis=(0, 1))
  known_mine = present & _known(mine)
  seen = seen + (mine & known_mine[:, None]).sum(0)
  eyesight = (mine if "eyesight" in rules.without else
              _count_out(rules, mine, present, gone, seen))
  tokens = state.information
  deck_left = rules.deck_size - state.dealt
  can_discard = tokens < rules.max_information

  public_playable = _status(mine, cells.playable)
  seen_playable = _status(eyesight, cells.playable)
  sure = present & ~public_playable.no & seen_playable.yes
  sure_score = (jnp.where(_known_rank(rules, eyesight) >= 0,
                          5 - _known_rank(rules, eyesight), 7) +
                100 * ~public_playable.yes)
  sure_play = _first(sure, sure_score)
  mystery_deck = jnp.asarray(_MYSTERY_DECK)[jnp.clip(state.lives, 0, 3)]
  mystery = _last(present & seen_playable.maybe, seen_playable.p)
  mystery_ok = (_uses(rules, "mystery_play") & (mystery >= 0) &
                (deck_left <= mystery_deck))

  partner = (mover + 1) % p  # The only one: 2 players.
  hint, fitness = _best_hint(rules, memory, state, mover, partner, cells)
  chop = _chop(memory.grid[partner], memory.present[partner], cells)
  chop_card = state.hands[partner, jnp.maximum(chop, 0)]
  warn = (_uses(rules, "warning") & (tokens > 0) & (chop >= 0) &
          cells.valuable[jnp.maximum(chop_card, 0)])
  warning = jnp.where(fitness > 0, hint, _hint_action(
      rules, mover, partner, True, chop_card % rules.ranks))

  newest = state.hands[partner, jnp.maximum(
      _newest(memory.present[partner]), 0)]
  public_valuable = _status(mine, cells.valuable)
  finesse = _first(known_mine & public_valuable.no & public_playable.yes &
                   (jnp.argmax(mine, -1) == newest) &
                   _uses(rules, "discard_finesse"), jnp.zeros(h))

  public_worthless = _status(mine, cells.worthless)
  seen_worthless = _status(eyesight, cells.worthless)
  worthless = _first(
      present & (public_worthless.yes |
                 (public_worthless.maybe & seen_worthless.yes)),
      2.0 - public_worthless.p)
  own_chop = _chop(mine, present, cells)
  highest = _first(present, _known_rank(rules, mine).astype(jnp.float32))
  reclaim = _hint_action(rules, mover, partner, True,
                         state.hands[partner, 0] % rules.ranks)

  deck_empty = deck_left == 0
  return jnp.select(
      [deck_empty & (sure_play >= 0), deck_empty & mystery_ok, warn,
       can_discard & (finesse >= 0), sure_play >= 0,
       (tokens > 0) & (fitness > 0), mystery_ok, ~can_discard,
       worthless >= 0, own_chop >= 0],
      [h + sure_play, h + mystery, warning, finesse, h + sure_play, hint,
       h + mystery, reclaim, worthless, own_chop], highest)


class SmartBlueprint(blueprints.Blueprint):
  """SmartBot's conventions (module docstring), but those `without` names
  (of `CONVENTIONS`); 2 players."""

  reads_observations = False

  def __init__(self, engine: engine_lib.HanabiEngine,
               without: frozenset[str] = frozenset()):
    if engine.rules.players != 2:
      raise ValueError("the SmartBot blueprint plays 2-player Hanabi (its "
                       "discard finesse reads differently by who looks "
                       f"with more players), got players="
                       f"{engine.rules.players}")
    unknown = sorted(set(without) - set(CONVENTIONS))
    if unknown:
      raise ValueError(f"unknown SmartBot conventions {unknown}; they are "
                       f"{', '.join(CONVENTIONS)}")
    super().__init__(engine)
    self.without = frozenset(without)
    self._rules = _rules_of(engine.rules, self.without)

  @property
  def key(self):
    return super().key + (self.without,)

  @property
  def fingerprint(self) -> str:
    left_out = "".join(f"-{name}" for name in sorted(self.without))
    return super().fingerprint + (f":without{left_out}" if left_out else "")

  def start(self, params, states):
    return jax.vmap(functools.partial(_start_one, self._rules))(states)

  def remember(self, params, memory, states):
    return jax.vmap(functools.partial(_remember_one, self._rules))(memory,
                                                                    states)

  def act(self, params, memory, states, movers):
    return jax.vmap(functools.partial(_act_one, self._rules))(
        memory, states, jnp.asarray(movers, jnp.int32))

  def known_identities(self, memory, player):
    """The public grid of `player`'s cards: what hints and the conventions
    in use crossed off, read from its partner's moves."""
    return np.asarray(memory.grid)[player]


def max_moves(rules: engine_lib.Rules) -> int:
  """More moves than any game has: one per card that leaves a hand, one per
  hint token ever spent (those at the start, and those discards and
  finished fireworks win back)."""
  return 2 * rules.deck_size + rules.max_information_tokens + rules.colors


@functools.lru_cache(maxsize=None)
def _blueprint_of(rules: engine_lib.Rules) -> SmartBlueprint:
  """One blueprint (and engine) per rules: the bots of every game share its
  compiled replay."""
  return SmartBlueprint(engine_lib.HanabiEngine(rules))


@functools.lru_cache(maxsize=None)
def _replayer(blueprint: SmartBlueprint):
  """Jitted: the blueprint's move in the game dealt from `deck` after the
  first `count` of `moves`."""
  engine = blueprint.engine

  def decide(deck, moves, count):
    state = engine.deal(deck[None])

    def move(i, carry):
      state, memory = carry
      state = engine.step(state, moves[i][None])
      return state, blueprint.remember((), memory, state)

    state, memory = jax.lax.fori_loop(
        0, count, move, (state, blueprint.start((), state)))
    return blueprint.moves((), memory, state)[0]

  return jax.jit(decide)


class SmartBot(pyspiel.Bot):
  """SmartBot playing pyspiel's `hanabi` (2 players; OpenSpiel's bot API):
  each move replays the game's history on the engine and asks the
  blueprint, so that both play the same moves."""

  def __init__(self, game: pyspiel.Game, player_id: int):
    pyspiel.Bot.__init__(self)
    self._rules = engine_lib.Rules.from_game(game)
    self._blueprint = _blueprint_of(self._rules)
    self._player_id = player_id

  def player_id(self) -> int:
    return self._player_id

  def provides_policy(self) -> bool:
    return False

  def restart_at(self, state: pyspiel.State) -> None:
    pass

  def step(self, state: pyspiel.State) -> int:
    if state.current_player() != self._player_id:
      raise ValueError(f"SmartBot of player {self._player_id} asked to move "
                       f"for player {state.current_player()} in {state}")
    dealt, moves = [], []
    for item in state.full_history():
      (dealt if item.player == pyspiel.PlayerId.CHANCE else moves).append(
          item.action)
    # The cards not dealt yet, in any order: the bot only counts them.
    rest = list(self._rules.ordered_deck())
    for card in dealt:
      rest.remove(card)
    padded = np.zeros(max_moves(self._rules), np.int32)
    padded[:len(moves)] = moves
    return int(_replayer(self._blueprint)(
        jnp.asarray(dealt + rest, jnp.int32), jnp.asarray(padded),
        len(moves)))
