"""Batched JAX engines for Kuhn poker and m-Clone Leduc poker.

For learners that play many poker games at once (best responses, NFSP,
NXDO): `kuhn_poker()` and `leduc_poker(clones)` meet the contract of
`games/batched.py`, and `tests/games/batched_conformance_test.py` checks, move
by move over thousands of random games, that they agree with OpenSpiel's
`kuhn_poker`, `leduc_poker` and the plugin's `xdo_clone_leduc`, the games
they are registered for (`engines.make`).

Both games are two-player limit poker with an ante of one chip, so one engine
plays both from a table of rules (`PokerRules`). Each action is read as one
of three moves: fold, call (a check when nothing is owed) or raise. Leduc's
action `a` is the move `a % 3` (through clone `a // 3`); Kuhn's pass is a
check, or a fold when facing a bet, and its bet a raise, or a call when facing
one.

Chance is dealt in full when a game starts: both private cards and, in Leduc,
the public card, which stays hidden until the first round ends. The
information-state tensor is kept in the state and only gains bits as the game
goes (the action's slot of the betting sequence, the public card when it is
revealed), so a step never rebuilds it.
"""

import itertools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from open_spiel_ext.games import batched
# Registers xdo_clone_leduc, the rules reference for more than one clone.
from open_spiel_ext.games import clone_leduc  # pylint: disable=unused-import
from open_spiel_ext.games import engines
import pyspiel

FOLD, CALL, RAISE = 0, 1, 2  # The moves, numbered as Leduc's actions.
NUM_PLAYERS = 2
_NO_BIT = -1  # A tensor position that sets nothing.


class PokerRules(NamedTuple):
  """One limit-poker variant, and the layout of its information-state tensor
  (player, private card, public card if any, then per round the betting
  sequence, two bits a slot: call, raise; a fold sets neither)."""
  deck_size: int
  suits: int  # Card `c` has rank `c // suits`.
  raise_amounts: tuple[int, ...]  # One per betting round.
  max_raises: int  # Per round.
  bets_per_round: int  # Betting-sequence slots per round in the tensor.
  # moves[facing_a_bet][base action]: the move the action makes.
  moves: tuple[tuple[int, ...], tuple[int, ...]]
  # bits[base action]: its bit within a betting slot (_NO_BIT for none).
  bits: tuple[int, ...]

  @property
  def num_rounds(self) -> int:
    return len(self.raise_amounts)

  @property
  def has_public_card(self) -> bool:
    return self.num_rounds > 1

  @property
  def num_cards_dealt(self) -> int:
    return NUM_PLAYERS + self.has_public_card

  @property
  def public_offset(self) -> int:
    return NUM_PLAYERS + self.deck_size

  @property
  def betting_offset(self) -> int:
    return self.public_offset + self.has_public_card * self.deck_size

  @property
  def tensor_size(self) -> int:
    return self.betting_offset + 2 * self.num_rounds * self.bets_per_round


KUHN_RULES = PokerRules(
    deck_size=3, suits=1, raise_amounts=(1,), max_raises=1, bets_per_round=3,
    moves=((CALL, RAISE), (FOLD, CALL)), bits=(0, 1))
LEDUC_RULES = PokerRules(
    deck_size=6, suits=2, raise_amounts=(2, 4), max_raises=2,
    bets_per_round=4, moves=((FOLD, CALL, RAISE), (FOLD, CALL, RAISE)),
    bits=(_NO_BIT, 0, 1))


class PokerState(NamedTuple):
  """A batch of games: the contract's fields, then the engine's own. Every
  field has a leading batch axis; shapes below are per game."""
  current_player: jax.Array  # [] int32, batched.GAME_OVER once over.
  observation: jax.Array  # [2, tensor size] float32.
  legal_action_mask: jax.Array  # [actions] bool.
  rewards: jax.Array  # [2] float32.
  terminated: jax.Array  # [] bool.
  cards: jax.Array  # [cards dealt] int32: players 0 and 1, then public.
  key: jax.Array  # [2] uint32: draws the next deal (auto_reset).
  round: jax.Array  # [] int32: the betting round, from 0.
  bets: jax.Array  # [] int32: actions so far this round.
  raises: jax.Array  # [] int32: raises so far this round.
  calls: jax.Array  # [] int32: calls since the round's last raise.
  stakes: jax.Array  # [] int32: what a player must have put in to stay.
  contributions: jax.Array  # [2] int32: what each player has put in.


def _of_player(values: jax.Array, player: jax.Array) -> jax.Array:
  """`values[player]` of a [2] array; 0 for batched.GAME_OVER."""
  return jnp.sum(jnp.where(jnp.arange(NUM_PLAYERS) == player, values, 0))


def _ordered_deals(rules: PokerRules) -> np.ndarray:
  """[deals, cards dealt]: every way to deal the cards, in order."""
  return np.array(list(itertools.permutations(range(rules.deck_size),
                                              rules.num_cards_dealt)),
                  np.int32)


class BatchedPoker(batched.BatchedEnv):
  """Jitted `init` and `step` of one poker game over a batch (see
  `batched.BatchedEnv` for the contract); build one with `kuhn_poker()` or
  `leduc_poker(clones)`."""

  def __init__(self, game: pyspiel.Game, rules: PokerRules, clones: int,
               auto_reset: bool):
    self.game = game
    self.name = str(game)
    self.rules = rules
    self.clones = clones
    self.auto_reset = auto_reset
    self.num_players = NUM_PLAYERS
    self.num_base_actions = len(rules.bits)
    self.num_actions = self.num_base_actions * clones
    self.observation_shape = (rules.tensor_size,)
    assert self.num_actions == game.num_distinct_actions()
    assert self.observation_shape == tuple(
        game.information_state_tensor_shape())
    self._deals = jnp.asarray(_ordered_deals(rules))
    self._moves = jnp.asarray(np.array(rules.moves, np.int32))
    self._bits = jnp.asarray(np.array(rules.bits, np.int32))
    self._raise_amounts = jnp.asarray(np.array(rules.raise_amounts, np.int32))
    self.init = jax.jit(self._init)
    self.step = jax.jit(jax.vmap(self._step))

  # Starting games.

  def _init(self, keys: jax.Array) -> PokerState:
    if jax.dtypes.issubdtype(keys.dtype, jax.dtypes.prng_key):
      keys = jax.random.key_data(keys)
    return jax.vmap(self._new_game)(keys)

  def _draw_deal(self, key: jax.Array) -> tuple[jax.Array, jax.Array]:
    """The next key and a uniformly drawn deal, from one draw of four words
    (cheaper than `split` and `randint`, which draw several): two words make
    the key, two a 64-bit number whose remainder picks the deal (biased by
    less than deals / 2^64)."""
    words = jax.random.bits(key, (4,), jnp.uint32)
    num_deals = len(self._deals)
    index = ((words[2] % num_deals) * (2**32 % num_deals) +
             words[3] % num_deals) % num_deals
    return words[:2], self._deals[index]

  def _new_game(self, key: jax.Array) -> PokerState:
    """A fresh game dealt from `key`, player 0 to move."""
    key, cards = self._draw_deal(key)
    positions = jnp.arange(self.rules.tensor_size)
    players = jnp.arange(NUM_PLAYERS)[:, None]
    observation = ((positions == players) |
                   (positions == NUM_PLAYERS + cards[:NUM_PLAYERS, None]))
    contributions = jnp.ones(NUM_PLAYERS, jnp.int32)
    zero = jnp.int32(0)
    return PokerState(
        current_player=zero,
        observation=observation.astype(jnp.float32),
        legal_action_mask=self._legal_mask(contributions[0], jnp.int32(1),
                                           zero),
        rewards=jnp.zeros(NUM_PLAYERS, jnp.float32),
        terminated=jnp.bool_(False),
        cards=cards, key=key, round=zero, bets=zero, raises=zero, calls=zero,
        stakes=jnp.int32(1), contributions=contributions)

  # Playing.

  def _legal_mask(self, contribution: jax.Array, stakes: jax.Array,
                  raises: jax.Array) -> jax.Array:
    """[actions]: the legal actions of a player who has put in
    `contribution`; every clone of a legal base action is legal."""
    facing = stakes > contribution
    moves = self._moves[facing.astype(jnp.int32)]
    legal = (((moves != FOLD) | facing) &
             ((moves != RAISE) | (raises < self.rules.max_raises)))
    return jnp.tile(legal, self.clones)

  def _step(self, game: PokerState, action: jax.Array) -> PokerState:
    """One game's step (see `games/batched.py`): `_play`, except that a
    finished game stays as it is, or with auto_reset, that a game the step
    ends shows a fresh one beside its rewards."""
    played = self._play(game, action)
    if not self.auto_reset:
      return jax.tree_util.tree_map(
          lambda old, new: jnp.where(game.terminated, old, new),
          game._replace(rewards=jnp.zeros_like(game.rewards)), played)
    fresh = self._new_game(game.key)._replace(rewards=played.rewards,
                                              terminated=played.terminated)
    return jax.tree_util.tree_map(
        lambda new_game, same_game: jnp.where(played.terminated, new_game,
                                              same_game), fresh, played)

  def _play(self, game: PokerState, action: jax.Array) -> PokerState:
    """The player to move takes `action`; the public card comes when the
    first round ends."""
    base = action % self.num_base_actions
    facing = game.stakes > _of_player(game.contributions,
                                      game.current_player)
    move = self._moves[facing.astype(jnp.int32), base]
    bet = self._bet(game, move)
    round_over = (move == CALL) & (
        bet.calls == jnp.where(bet.raises == 0, NUM_PLAYERS, 1))
    showdown = round_over & (game.round == self.rules.num_rounds - 1)
    next_round = round_over & ~showdown
    terminated = (move == FOLD) | showdown
    player = jnp.where(terminated, batched.GAME_OVER,
                       jnp.where(next_round, 0, 1 - game.current_player))
    raises = jnp.where(next_round, 0, bet.raises)
    return bet._replace(
        current_player=player,
        observation=self._observe(game, base, next_round),
        legal_action_mask=self._legal_mask(
            _of_player(bet.contributions, player), bet.stakes, raises)
        & ~terminated,
        rewards=self._rewards(game.cards, bet.contributions,
                              game.current_player, move == FOLD, showdown),
        terminated=terminated,
        round=game.round + next_round,
        bets=jnp.where(next_round, 0, game.bets + 1),
        raises=raises,
        calls=jnp.where(next_round, 0, bet.calls))

  def _bet(self, game: PokerState, move: jax.Array) -> PokerState:
    """The chips and counts after the player to move makes `move`."""
    raised = move == RAISE
    stakes = game.stakes + raised * self._raise_amounts[game.round]
    mine = jnp.arange(NUM_PLAYERS) == game.current_player
    return game._replace(
        stakes=stakes,
        contributions=jnp.where(mine & (move != FOLD), stakes,
                                game.contributions),
        raises=game.raises + raised,
        calls=jnp.where(raised, 0, game.calls + (move == CALL)))

  def _observe(self, game: PokerState, base: jax.Array,
               next_round: jax.Array) -> jax.Array:
    """Both information-state tensors after base action `base`: plus its
    bit in this round's betting sequence, and the public card if the round
    is over."""
    rules = self.rules
    bit = self._bits[base]
    bet_position = jnp.where(
        bit == _NO_BIT, _NO_BIT, rules.betting_offset + 2 * (
            game.round * rules.bets_per_round + game.bets) + bit)
    public_position = (jnp.where(next_round, rules.public_offset +
                                 game.cards[-1], _NO_BIT)
                       if rules.has_public_card else _NO_BIT)
    positions = jnp.arange(rules.tensor_size)
    return jnp.maximum(game.observation, (
        (positions == bet_position) | (positions == public_position)
    ).astype(jnp.float32))

  def _rewards(self, cards: jax.Array, contributions: jax.Array,
               player: jax.Array, folded: jax.Array,
               showdown: jax.Array) -> jax.Array:
    """[2] float32: what each player wins once the game ends (a folder
    loses what it put in; at a showdown, where both put in the same, the
    stronger hand wins it), else zeros."""
    strength = self._hand_strength(cards)
    sign = jnp.where(folded, jnp.where(player == 0, -1, 1),
                     jnp.sign(strength[0] - strength[1]))
    sign = jnp.where(folded | showdown, sign, 0)
    loser_stake = jnp.where(folded, _of_player(contributions, player),
                            contributions[0])
    won = (sign * loser_stake).astype(jnp.float32)
    return jnp.stack([won, -won])

  def _hand_strength(self, cards: jax.Array) -> jax.Array:
    """[2]: each player's hand; higher wins. A pair with the public card
    beats every rank."""
    ranks = cards // self.rules.suits
    strength = ranks[:NUM_PLAYERS]
    if self.rules.has_public_card:
      num_ranks = self.rules.deck_size // self.rules.suits
      strength = strength + num_ranks * (ranks[:NUM_PLAYERS] == ranks[-1])
    return strength


def kuhn_poker(auto_reset: bool = False) -> BatchedPoker:
  """The engine of OpenSpiel's `kuhn_poker`."""
  return BatchedPoker(pyspiel.load_game("kuhn_poker"), KUHN_RULES, clones=1,
                      auto_reset=auto_reset)


def leduc_poker(clones: int = 1, auto_reset: bool = False) -> BatchedPoker:
  """The engine of Leduc poker with every action cloned `clones` times:
  OpenSpiel's `leduc_poker` for one clone, `xdo_clone_leduc(clones=m)` for
  more.

  Raises:
    ValueError: `clones` is not an integer >= 1.
  """
  if (isinstance(clones, bool) or not isinstance(clones, (int, np.integer))
      or clones < 1):
    raise ValueError(f"leduc_poker: clones must be an integer >= 1, got "
                     f"clones={clones!r}")
  game = pyspiel.load_game("leduc_poker" if clones == 1 else
                           f"xdo_clone_leduc(clones={clones})")
  return BatchedPoker(game, LEDUC_RULES, clones=int(clones),
                      auto_reset=auto_reset)


def _engine_of(game: pyspiel.Game, auto_reset: bool = False) -> BatchedPoker:
  """The engine of `game` (kuhn_poker, leduc_poker or
  xdo_clone_leduc(clones=m), with their default rules otherwise), as
  `engines.make` builds it.

  Raises:
    ValueError: `game` has other rules.
  """
  engine = (kuhn_poker(auto_reset) if game.get_type().short_name == "kuhn_poker"
            else leduc_poker(int(game.get_parameters().get("clones", 1)),
                             auto_reset))
  if str(engine.game) != str(game):
    raise ValueError(f"no batched JAX engine plays {game}; there are engines "
                     "for kuhn_poker, leduc_poker and "
                     "xdo_clone_leduc(clones=m) with their default rules")
  return engine


for _short_name in ("kuhn_poker", "leduc_poker", "xdo_clone_leduc"):
  engines.register(_short_name, _engine_of)
