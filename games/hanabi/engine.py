"""A batched Hanabi engine in JAX, move for move OpenSpiel's `hanabi`.

OpenSpiel's `hanabi` (the C++ Hanabi Learning Environment) stays the rules
reference: `tests/games/batched_conformance_test.py` deals its decks to
pyspiel games and checks, move by move over random games, that both agree on
legal actions, observation tensors, rewards and ends. This engine exists for
speed (belief-sampled rollouts, self-play training) and for what search
needs and pyspiel does not give: a game dealt from any deck order.

Rules as HLE plays them (`docs/hanabi/rules_notes.md`): cards are numbered
`color * ranks + rank`; the deck is dealt in order, the first `hand_size`
cards to player 0, the next to player 1, and so on; a played or discarded
card leaves its slot (the later ones shift left) and the next card of the
deck fills the last slot, unless the game just ended. Action ids, legality
and scores are HLE's: discards (illegal at the maximum of information
tokens), plays, then color and rank hints to each other player by offset
(illegal without a token or when they touch no card). A game ends on the
last life lost (score 0), on the maximum score, or once every player has
moved once after the deck ran out. Each step pays every player the change of
score.

Observations are HLE's canonical (`card_knowledge`) encoding, relative to
the observer. Its first `private_size` features are the other players' cards
(what the observer sees and they do not); the rest is public to every
player, which is the split the public-private networks of learned belief
search take.

The engine meets the batched contract of `games/batched.py`, with OpenSpiel's
observation tensor as each player's `observation`; every game of a batch
plays the same parameters. `engines.make` builds it for a pyspiel `hanabi`
game. `init` shuffles a deck per key; `deal` starts
games from given decks.
"""

import dataclasses
from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp
import numpy as np

from open_spiel_ext.games import batched
from open_spiel_ext.games import engines
import pyspiel

# HLE's parameters as pyspiel's `hanabi` takes them, with their defaults
# (`hand_size` defaults to 5 below four players, 4 from four).
PARAMETERS = ("players", "colors", "ranks", "hand_size",
              "max_information_tokens", "max_life_tokens")
PRESETS = {
    "full": {"players": 2},
    "small": {"players": 2, "colors": 2, "ranks": 5, "hand_size": 2,
              "max_information_tokens": 3, "max_life_tokens": 1},
    "six_cards": {"players": 2, "hand_size": 6},
    "seven_cards": {"players": 2, "hand_size": 7,
                    "max_information_tokens": 4},
}
PLAY, DISCARD, REVEAL_COLOR, REVEAL_RANK = range(4)  # HLE's move types.
_NONE = -1


@dataclasses.dataclass(frozen=True)
class Rules:
  """One Hanabi variant (HLE's parameters), checked before pyspiel sees
  them: HLE aborts the process on a value it does not take."""
  players: int = 2
  colors: int = 5
  ranks: int = 5
  hand_size: Optional[int] = None  # None: HLE's default for `players`.
  max_information_tokens: int = 8
  max_life_tokens: int = 3

  def __post_init__(self):
    if self.hand_size is None:
      object.__setattr__(self, "hand_size", 5 if self.players < 4 else 4)
    for name, low, high in (("players", 2, 5), ("colors", 1, 5),
                            ("ranks", 1, 5), ("hand_size", 1, None),
                            ("max_information_tokens", 1, None),
                            ("max_life_tokens", 1, None)):
      value = getattr(self, name)
      if (not isinstance(value, (int, np.integer)) or value < low or
          (high is not None and value > high)):
        bound = f"from {low} to {high}" if high else f"at least {low}"
        raise ValueError(f"Hanabi {name} must be an integer {bound}, got "
                         f"{name}={value!r}")
    if self.players * self.hand_size > self.deck_size:
      raise ValueError(
          f"Hanabi hand_size={self.hand_size} with players={self.players} "
          f"needs {self.players * self.hand_size} cards; the deck of "
          f"colors={self.colors}, ranks={self.ranks} has {self.deck_size}")

  @classmethod
  def from_preset(cls, preset: str) -> "Rules":
    if preset not in PRESETS:
      raise ValueError(f"unknown Hanabi preset {preset!r}; the presets are "
                       f"{', '.join(PRESETS)}")
    return cls(**PRESETS[preset])

  @classmethod
  def from_game(cls, game: pyspiel.Game) -> "Rules":
    """The rules of a pyspiel `hanabi` game (card-knowledge observations)."""
    name = game.get_type().short_name
    if name != "hanabi":
      raise ValueError(f"not a hanabi game: {game}")
    parameters = game.get_parameters()
    observation = parameters.get("observation_type", "card_knowledge")
    if observation != "card_knowledge":
      raise ValueError(f"the engine encodes observation_type="
                       f"'card_knowledge', got {observation!r}")
    if parameters.get("random_start_player", False):
      raise ValueError("the engine starts with player 0; got "
                       "random_start_player=True")
    return cls(**{k: v for k, v in parameters.items() if k in PARAMETERS})

  def game(self) -> pyspiel.Game:
    """The pyspiel game of these rules (the rules reference)."""
    return pyspiel.load_game("hanabi", self.parameters())

  def parameters(self) -> dict[str, int]:
    return {name: int(getattr(self, name)) for name in PARAMETERS}

  @property
  def copies(self) -> tuple[int, ...]:
    """Copies of each rank in a color: 3 of the lowest, 1 of the highest,
    2 of the others."""
    return tuple(3 if r == 0 else 1 if r == self.ranks - 1 else 2
                 for r in range(self.ranks))

  @property
  def deck_size(self) -> int:
    return self.colors * sum(self.copies)

  @property
  def num_cards(self) -> int:
    """Distinct cards (color, rank)."""
    return self.colors * self.ranks

  @property
  def num_actions(self) -> int:
    return (2 * self.hand_size +
            (self.players - 1) * (self.colors + self.ranks))

  @property
  def max_score(self) -> int:
    return self.num_cards

  @property
  def private_size(self) -> int:
    """The observation's features that show the other players' cards."""
    return (self.players - 1) * self.hand_size * self.num_cards

  @property
  def observation_size(self) -> int:
    p, h, b = self.players, self.hand_size, self.num_cards
    c, r = self.colors, self.ranks
    return (self.private_size + p + (self.deck_size - p * h) + b +
            self.max_information_tokens + self.max_life_tokens +
            self.deck_size + (2 * p + 4 + c + r + 2 * h + b + 2) +
            p * h * (b + c + r))

  def ordered_deck(self) -> np.ndarray:
    """[deck_size] every card once per copy, in card order."""
    return np.repeat(np.arange(self.num_cards),
                     np.tile(self.copies, self.colors)).astype(np.int32)


class LastMove(NamedTuple):
  """The last player move, as the observation shows it (-1: none)."""
  actor: jax.Array
  kind: jax.Array  # PLAY, DISCARD, REVEAL_COLOR or REVEAL_RANK.
  target: jax.Array  # A hint's receiver.
  value: jax.Array  # A hint's color or rank.
  revealed: jax.Array  # [H] bool: the hinted cards.
  slot: jax.Array  # The played or discarded slot.
  card: jax.Array  # The played or discarded card.
  scored: jax.Array  # bool: a play that added to a firework.
  gained_token: jax.Array  # bool: a play that completed one and won a token.


class HanabiState(NamedTuple):
  """A batch of Hanabi games; every field has a leading batch axis."""
  deck: jax.Array  # [D] int32 the cards in the order they are dealt.
  dealt: jax.Array  # int32 cards dealt so far.
  hands: jax.Array  # [P, H] int32 cards, -1 in empty slots (at the end).
  color_hint: jax.Array  # [P, H] int32 the hinted color, -1 if none.
  rank_hint: jax.Array  # [P, H] int32
  color_plausible: jax.Array  # [P, H, C] bool
  rank_plausible: jax.Array  # [P, H, R] bool
  fireworks: jax.Array  # [C] int32 cards played per color.
  information: jax.Array  # int32 tokens.
  lives: jax.Array  # int32
  discarded: jax.Array  # [C·R] int32 copies of each card discarded.
  turns_left: jax.Array  # int32 moves left once the deck is empty.
  last: LastMove
  current_player: jax.Array  # int32, -1 once the game is over.
  observation: jax.Array  # [P, observation_size] float32
  legal_action_mask: jax.Array  # [A] bool
  rewards: jax.Array  # [P] float32
  terminated: jax.Array  # bool
  key: jax.Array  # [2] uint32: shuffles the next deck (auto_reset).


class HanabiEngine(batched.BatchedEnv):
  """Jitted batch functions of one Hanabi variant (see the module
  docstring)."""

  def __init__(self, rules: Rules = Rules(), auto_reset: bool = False):
    self.rules = rules
    self.auto_reset = auto_reset
    self.game = rules.game()
    self.name = str(self.game)
    self.num_players = rules.players
    self.num_actions = rules.num_actions
    self.observation_shape = (rules.observation_size,)
    self.private_size = rules.private_size
    self._ordered_deck = jnp.asarray(rules.ordered_deck())
    # The discard section: one bit per copy, card by card.
    self._discard_card = jnp.asarray(rules.ordered_deck())
    self._discard_copy = jnp.asarray(np.concatenate(
        [np.arange(n) for n in np.tile(rules.copies, rules.colors)]))
    self.init = jax.jit(self._init)
    self.deal = jax.jit(self._deal)
    self.step = jax.jit(self._step)
    # Recompute what states show (after fields were set by hand, as search
    # does with hypothetical hands): every player's observation and the
    # legal actions, or the legal actions alone.
    self.observe = jax.jit(jax.vmap(self._observe))
    self.legal_actions_of = jax.jit(jax.vmap(self._legal))

  # Starting games.

  def _init(self, keys: jax.Array) -> HanabiState:
    """Fresh games, one per key, each from a uniformly shuffled deck."""
    deck_keys, keys = _split_keys(keys)
    decks = jax.vmap(lambda k: jax.random.permutation(
        k, self._ordered_deck))(deck_keys)
    return self._deal(decks, keys)

  def _deal(self, decks: jax.Array, keys: Optional[jax.Array] = None
           ) -> HanabiState:
    """Fresh games dealt from `decks` ([B, deck_size] cards, each deck a
    permutation of `rules.ordered_deck()`); `keys` shuffle the decks of the
    games that follow with auto-reset."""
    if keys is None:
      keys = jax.random.split(jax.random.PRNGKey(0), decks.shape[0])
    return jax.vmap(self._deal_one)(jnp.asarray(decks, jnp.int32),
                                    jax.random.key_data(keys)
                                    if jnp.issubdtype(keys.dtype,
                                                      jax.dtypes.prng_key)
                                    else keys)

  def _deal_one(self, deck: jax.Array, key: jax.Array) -> HanabiState:
    return self._observe(self._fresh(deck, key))

  def _fresh(self, deck: jax.Array, key: jax.Array) -> HanabiState:
    """A game dealt from `deck`, before its observations are made."""
    rules = self.rules
    p, h, c, r = rules.players, rules.hand_size, rules.colors, rules.ranks
    none = jnp.int32(_NONE)
    return HanabiState(
        deck=deck, dealt=jnp.int32(p * h),
        hands=deck[:p * h].reshape(p, h),
        color_hint=jnp.full((p, h), _NONE, jnp.int32),
        rank_hint=jnp.full((p, h), _NONE, jnp.int32),
        color_plausible=jnp.ones((p, h, c), bool),
        rank_plausible=jnp.ones((p, h, r), bool),
        fireworks=jnp.zeros(c, jnp.int32),
        information=jnp.int32(rules.max_information_tokens),
        lives=jnp.int32(rules.max_life_tokens),
        discarded=jnp.zeros(rules.num_cards, jnp.int32),
        turns_left=jnp.int32(p),
        last=LastMove(none, none, none, none, jnp.zeros(h, bool), none, none,
                      jnp.bool_(False), jnp.bool_(False)),
        current_player=jnp.int32(0),
        observation=jnp.zeros((p, rules.observation_size), jnp.float32),
        legal_action_mask=jnp.zeros(rules.num_actions, bool),
        rewards=jnp.zeros(p, jnp.float32), terminated=jnp.bool_(False),
        key=key)

  # Moves.

  def _step(self, state: HanabiState, actions: jax.Array) -> HanabiState:
    """The player to move in each game takes its action (see the module
    docstring; a finished game stays as it is unless auto-reset)."""
    actions = jnp.asarray(actions, jnp.int32)
    if not self.auto_reset:
      return jax.vmap(self._step_one)(state, actions)
    moved = jax.vmap(self._move)(state, actions)
    deck_keys, keys = _split_keys(moved.key)
    decks = self._next_decks(deck_keys, moved.terminated)
    return jax.vmap(self._reset_one)(moved, decks, keys)

  def _next_decks(self, deck_keys: jax.Array,
                  ended: jax.Array) -> jax.Array:
    """[B, deck_size] the shuffled decks of the games that ended (rows of
    the others are unused). A shuffle costs as much as the rest of a step,
    so only the ended games' are drawn: up to an eighth of the batch, or
    every game's when more ended at once."""
    batch = ended.shape[0]
    most = max(1, batch // 8)

    def shuffle(keys):
      return jax.vmap(lambda k: jax.random.permutation(
          k, self._ordered_deck))(keys)

    def some(_):
      rows = jnp.nonzero(ended, size=most, fill_value=batch)[0]
      drawn = shuffle(deck_keys[jnp.minimum(rows, batch - 1)])
      empty = jnp.zeros((batch, self.rules.deck_size), jnp.int32)
      return empty.at[rows].set(drawn, mode="drop")

    return jax.lax.cond(ended.sum() > most, lambda _: shuffle(deck_keys),
                        some, None)

  def _reset_one(self, moved: HanabiState, deck: jax.Array,
                 key: jax.Array) -> HanabiState:
    """A game after its move: shown as is, or (auto-reset) a fresh game
    dealt from `deck` where it ended; observations made once, of the state
    shown."""
    fresh = self._fresh(deck, key)._replace(rewards=moved.rewards)
    shown = jax.tree.map(lambda a, b: jnp.where(moved.terminated, a, b),
                         fresh, moved)
    return self._observe(shown._replace(terminated=jnp.bool_(False))
                        )._replace(terminated=moved.terminated)

  def _step_one(self, state: HanabiState, action: jax.Array) -> HanabiState:
    """One game's step without auto-reset (a finished game stays)."""
    moved = self._move(state, action)
    return self._observe(jax.tree.map(
        lambda a, b: jnp.where(state.terminated, a, b),
        state._replace(rewards=jnp.zeros_like(state.rewards)), moved))

  def _move(self, state: HanabiState, action: jax.Array) -> HanabiState:
    """The move's effects on the rules' fields (observations not made)."""
    rules = self.rules
    h, c, r = rules.hand_size, rules.colors, rules.ranks
    player = state.current_player
    is_discard, is_play = action < h, (action >= h) & (action < 2 * h)
    hint = action - 2 * h
    is_color_hint = (hint >= 0) & (hint < (rules.players - 1) * c)
    rank_hint = hint - (rules.players - 1) * c
    is_rank_hint = rank_hint >= 0
    offset = 1 + jnp.where(is_color_hint, hint // c, rank_hint // r)
    value = jnp.where(is_color_hint, hint % c, rank_hint % r)
    target = (player + offset) % rules.players
    slot = jnp.where(is_discard, action, action - h)
    turns_left = state.turns_left - (state.dealt >= rules.deck_size)

    # Playing or discarding.
    card = state.hands[player, slot]
    color, rank = card // r, card % r
    playable = is_play & (state.fireworks[color] == rank)
    fireworks = state.fireworks.at[color].add(playable.astype(jnp.int32))
    gained = (playable & (fireworks[color] == r) &
              (state.information < rules.max_information_tokens))
    lost = is_play & ~playable
    discarded = state.discarded.at[card].add(
        (is_discard | lost).astype(jnp.int32))
    information = (state.information + is_discard + gained -
                   (is_color_hint | is_rank_hint))
    lives = state.lives - lost

    # Hinting: every card of the target's hand learns the hint.
    hinted = self._hinted(state, target, value, is_color_hint, is_rank_hint)
    score_before = _score(state.fireworks, state.lives)
    score = _score(fireworks, lives)
    over = (lives < 1) | (score >= rules.max_score) | (turns_left <= 0)
    state = state._replace(
        fireworks=fireworks, information=information, lives=lives,
        discarded=discarded, turns_left=turns_left,
        color_hint=hinted[0], rank_hint=hinted[1],
        color_plausible=hinted[2], rank_plausible=hinted[3],
        last=LastMove(player, jnp.select(
            [is_play, is_discard, is_color_hint], [PLAY, DISCARD,
                                                   REVEAL_COLOR],
            REVEAL_RANK), jnp.where(is_play | is_discard, _NONE, target),
                      jnp.where(is_play | is_discard, _NONE, value),
                      hinted[4], jnp.where(is_play | is_discard, slot, _NONE),
                      jnp.where(is_play | is_discard, card, _NONE),
                      playable, gained))
    state = jax.lax.cond(is_play | is_discard,
                         lambda s: self._replace_card(s, player, slot, over),
                         lambda s: s, state)
    gain = (score - score_before).astype(jnp.float32)
    return state._replace(
        current_player=jnp.where(over, batched.GAME_OVER,
                                 (player + 1) % rules.players),
        rewards=jnp.full(rules.players, gain), terminated=over)

  def _hinted(self, state: HanabiState, target, value, is_color_hint,
              is_rank_hint):
    """The hand knowledge after a hint (unchanged for other moves), and
    which of the target's cards it touched."""
    r = self.rules.ranks
    cards = state.hands[target]
    present = cards >= 0
    touched = present & jnp.where(is_color_hint, cards // r == value,
                                  cards % r == value)

    def learn(hints, plausible, applies):
      one_hot = jnp.arange(plausible.shape[-1]) == value
      mine = jnp.where(touched[:, None], one_hot[None],
                       plausible[target] & ~one_hot[None])
      return (hints.at[target].set(jnp.where(touched & applies, value,
                                             hints[target])),
              plausible.at[target].set(jnp.where(applies, mine,
                                                 plausible[target])))

    color_hint, color_plausible = learn(state.color_hint,
                                        state.color_plausible, is_color_hint)
    rank_hint, rank_plausible = learn(state.rank_hint, state.rank_plausible,
                                      is_rank_hint)
    return (color_hint, rank_hint, color_plausible, rank_plausible,
            touched & (is_color_hint | is_rank_hint))

  def _replace_card(self, state: HanabiState, player, slot,
                    over) -> HanabiState:
    """Removes `slot` from the player's hand (later cards shift left) and,
    unless the game is over or the deck empty, deals the next card into the
    last slot, knowing nothing."""
    h = self.rules.hand_size
    index = jnp.arange(h)
    source = jnp.minimum(index + (index >= slot), h - 1)
    deal = (~over) & (state.dealt < self.rules.deck_size)
    last = index == h - 1

    def shifted(values, empty, fresh):
      row = values[player][source]
      fill = jnp.where(deal, fresh, empty)
      row = jnp.where(last.reshape((h,) + (1,) * (row.ndim - 1)), fill, row)
      return values.at[player].set(row)

    new_card = state.deck[jnp.minimum(state.dealt, self.rules.deck_size - 1)]
    return state._replace(
        hands=shifted(state.hands, _NONE, new_card),
        color_hint=shifted(state.color_hint, _NONE, _NONE),
        rank_hint=shifted(state.rank_hint, _NONE, _NONE),
        color_plausible=shifted(state.color_plausible, True, True),
        rank_plausible=shifted(state.rank_plausible, True, True),
        dealt=state.dealt + deal)

  # What the players see.

  def _observe(self, state: HanabiState) -> HanabiState:
    observation = jax.vmap(lambda o: self._encode(state, o))(
        jnp.arange(self.rules.players))
    return state._replace(observation=observation,
                          legal_action_mask=self._legal(state))

  def _legal(self, state: HanabiState) -> jax.Array:
    rules = self.rules
    p, r = rules.players, rules.ranks
    player = state.current_player
    own = state.hands[jnp.maximum(player, 0)] >= 0
    can_discard = own & (state.information < rules.max_information_tokens)
    others = state.hands[(jnp.maximum(player, 0) + jnp.arange(1, p)) % p]
    present = others >= 0
    colors = jnp.any(present[..., None] & (
        others[..., None] // r == jnp.arange(rules.colors)), axis=1)
    ranks = jnp.any(present[..., None] & (
        others[..., None] % r == jnp.arange(r)), axis=1)
    hints = jnp.concatenate([colors.ravel(), ranks.ravel()])
    hints = hints & (state.information > 0)
    return jnp.concatenate([can_discard, own, hints]) & ~state.terminated

  def _encode(self, state: HanabiState, observer: jax.Array) -> jax.Array:
    """HLE's canonical observation of `observer` (see the module
    docstring)."""
    rules = self.rules
    p, h, b = rules.players, rules.hand_size, rules.num_cards
    order = (observer + jnp.arange(p)) % p  # Players by offset.
    hands = state.hands[order]
    present = hands >= 0
    cards = _one_hot(hands[1:], b) & present[1:, :, None]
    deck_left = rules.deck_size - state.dealt
    last = state.last
    acted = last.actor >= 0
    is_play = last.kind == PLAY
    plausible = (state.color_plausible[order][..., :, None] &
                 state.rank_plausible[order][..., None, :]).reshape(p, h, b)
    knowledge = jnp.concatenate([
        plausible, _one_hot(state.color_hint[order], rules.colors),
        _one_hot(state.rank_hint[order], rules.ranks)], axis=-1)
    sections = [
        cards.ravel(),
        ~present.all(axis=1),
        jnp.arange(rules.deck_size - p * h) < deck_left,
        _one_hot(state.fireworks - 1, rules.ranks).ravel(),
        jnp.arange(rules.max_information_tokens) < state.information,
        jnp.arange(rules.max_life_tokens) < state.lives,
        self._discard_copy < state.discarded[self._discard_card],
        # The last move.
        _one_hot(jnp.where(acted, (last.actor - observer) % p, _NONE),
                       p),
        _one_hot(last.kind, 4),
        _one_hot(jnp.where(last.target >= 0,
                                 (last.target - observer) % p, _NONE), p),
        _one_hot(jnp.where(last.kind == REVEAL_COLOR, last.value,
                                 _NONE), rules.colors),
        _one_hot(jnp.where(last.kind == REVEAL_RANK, last.value,
                                 _NONE), rules.ranks),
        last.revealed,
        _one_hot(last.slot, h),
        _one_hot(last.card, b),
        jnp.stack([is_play & last.scored, is_play & last.gained_token]),
        (knowledge & present[..., None]).ravel(),
    ]
    # Built in bools, converted once (a quarter of the memory traffic).
    return jnp.concatenate([s.ravel() for s in sections]).astype(jnp.float32)


def _one_hot(values: jax.Array, size: int) -> jax.Array:
  """[..., size] bools; all False for values outside [0, size) (-1: none)."""
  return values[..., None] == jnp.arange(size)


def _score(fireworks: jax.Array, lives: jax.Array) -> jax.Array:
  return jnp.where(lives > 0, fireworks.sum(), 0)


def _split_keys(keys: jax.Array) -> tuple[jax.Array, jax.Array]:
  """Per-game keys in two streams: this deck's and the next games'."""
  if jnp.issubdtype(keys.dtype, jax.dtypes.prng_key):
    keys = jax.random.key_data(keys)
  pairs = jax.vmap(lambda k: jax.random.split(k))(keys)
  return pairs[:, 0], pairs[:, 1]


def _engine_of(game: pyspiel.Game, auto_reset: bool = False) -> HanabiEngine:
  """The engine of a pyspiel `hanabi` game, as `engines.make` builds it."""
  return HanabiEngine(Rules.from_game(game), auto_reset)


engines.register("hanabi", _engine_of)
