"""A batched Stratego engine: pure JAX functions over a batch of boards.

For RL rollouts and search, where the pyspiel game's one state at a time is
too slow. The rules come from the same tables as the pyspiel game
(`rules.py`: rays, combat table, placement order, action encoding), and
`tests/games/stratego/stratego_batched_test.py` checks move by move, over
thousands of random games, that both engines agree on legal actions,
positions and results. What the players observe of the boards is
`batched_observer.py`'s; the learning environment over both is `env.py`.

Pieces live in slots: slot `player·army_size + i` is the i-th piece the player
places (so its type is `rules.placement_types[i]`). A board keeps each slot's
square (`NO_SQUARE` until placed and once captured) and, per square, the slot
on it. Legal actions are computed per slot rather than per action id, and
only for pieces that move (the slots' types are fixed): the state keeps a
compact mask of 100 entries for the squares of the next placement, then 36
per Scout (4 directions × 9 distances) and 4 per other moving piece.
`legal_mask` expands it to the game's action ids.

Every function takes and returns a `Boards` batch and is `jax.jit`ted; a
finished board stays as it is whatever action it is given.
"""

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from open_spiel_ext.games import random_play
from open_spiel_ext.games.stratego import rules as rules_lib

_EMPTY = -1
_OFF_BOARD = 2  # What `owner` holds on the padding square NO_SQUARE.
_MOVE = -1  # "Outcome" of a move to an empty square.
ONGOING = -2  # `winner` while the game goes on; -1 is a draw.


def _distance(square: jax.Array, other: jax.Array) -> jax.Array:
  """How many steps along rows and columns lead from one square to the
  other."""
  rows = jnp.abs(square // rules_lib.BOARD_SIZE - other // rules_lib.BOARD_SIZE)
  cols = jnp.abs(square % rules_lib.BOARD_SIZE - other % rules_lib.BOARD_SIZE)
  return rows + cols


class Boards(NamedTuple):
  """A batch of Stratego positions; every field has a leading batch axis."""
  owner: jax.Array  # [101] player on each square, -1 empty, 2 off-board.
  slot: jax.Array  # [100] slot on each square, -1 empty.
  position: jax.Array  # [2·army] square of each slot, NO_SQUARE if none.
  moved: jax.Array  # [2·army] bool.
  revealed: jax.Array  # [2·army] bool: attacked or attacking.
  shown_scout: jax.Array  # [2·army] bool: a long Scout move.
  captured: jax.Array  # [2, types] pieces lost per player and type.
  placed: jax.Array  # [2] pieces placed per player.
  player: jax.Array  # [] player to move (or to place).
  ply: jax.Array  # [] plies after the setup.
  last_move: jax.Array  # [2] origin and target of the last ply, -1 if none.
  # [2] each player's last move, -1 if none or if its attacker was removed.
  last_origin: jax.Array
  last_target: jax.Array
  back_and_forth: jax.Array  # [2] two-square rule counts.
  evading: jax.Array  # [2·army] bool: evaded during the current chase.
  chaser: jax.Array  # [] the player chasing now, -1 if none.
  chase_square: jax.Array  # [] where the chaser's last moved piece stands.
  chase_hashes: jax.Array  # [CHASE_MEMORY, 2] uint32 positions of the chase.
  chase_count: jax.Array  # [] positions recorded (the last CHASE_MEMORY kept).
  winner: jax.Array  # [] ONGOING, -1 draw, or the winning player.
  legal: jax.Array  # [100 + 36·army] compact legal mask of the player to move.


class _Ply(NamedTuple):
  """What a move did, for the more-squares rule."""
  origin: jax.Array
  target: jax.Array
  attack: jax.Array
  mover: jax.Array  # The moving piece's slot.
  flag_taken: jax.Array


class BatchedStratego:
  """Jitted batch functions for one army, ply limit and rule set.

  `more_squares_rule` and `both_stuck_draw` are the pyspiel game's
  parameters. Positions of a chase are compared by 64-bit Zobrist hashes of
  each square's owner and piece type (the pyspiel game compares the squares
  themselves; a collision has probability about 2^-64 per comparison).
  """

  def __init__(self, army: str = "barrage", ply_limit: int = 1000,
               more_squares_rule: bool = True, both_stuck_draw: bool = True):
    rules = rules_lib.rules_for(army)
    self.rules = rules
    self.ply_limit = ply_limit
    self.more_squares_rule = more_squares_rule
    self.both_stuck_draw = both_stuck_draw
    self.army_size = rules.army_size
    self.num_actions = rules.num_distinct_actions
    placement_types = np.array(rules.placement_types, np.int32)
    self._placement_types = jnp.asarray(placement_types)
    self._placement_remaining = jnp.asarray(
        np.array(rules.placement_remaining, np.int32))
    self._slot_type = jnp.asarray(np.tile(placement_types, 2))
    # An army's slots whose pieces move, Scouts (any distance) and the
    # others (one square); the compact mask holds their moves only.
    scout = np.array(rules.scout, bool)[placement_types]
    movable = np.array(rules.movable, bool)[placement_types]
    self._scout_slots = np.flatnonzero(scout)
    self._stepper_slots = np.flatnonzero(movable & ~scout)
    self._movers = ((self._scout_slots, rules_lib.MAX_DISTANCE),
                    (self._stepper_slots, 1))
    self.num_compact = rules_lib.NUM_SQUARES + (
        len(self._scout_slots) * rules_lib.MOVES_PER_SQUARE +
        len(self._stepper_slots) * rules_lib.NUM_DIRECTIONS)
    # Each compact move entry's offset in its origin square's 36 actions.
    self._move_offsets = jnp.asarray(np.concatenate([
        np.tile(np.arange(rules_lib.MOVES_PER_SQUARE),
                len(self._scout_slots)),
        np.tile(np.arange(rules_lib.NUM_DIRECTIONS) * rules_lib.MAX_DISTANCE,
                len(self._stepper_slots))]))
    self._mover_slots = np.concatenate([
        np.repeat(self._scout_slots, rules_lib.MOVES_PER_SQUARE),
        np.repeat(self._stepper_slots, rules_lib.NUM_DIRECTIONS)])
    self._combat = jnp.asarray(rules.combat)
    self._rays = jnp.asarray(rules_lib.ray_table())
    self._neighbours = jnp.asarray(rules_lib.neighbour_table())
    self._slot_hashes = jnp.asarray(self._zobrist_table(placement_types))
    setup_squares = np.zeros((2, rules_lib.NUM_SQUARES), bool)
    for player, rows in enumerate(rules_lib.SETUP_ROWS):
      for row in rows:
        setup_squares[player, row * 10:(row + 1) * 10] = True
    self._setup_squares = jnp.asarray(setup_squares)
    self.initial = jax.jit(self._initial, static_argnums=0)
    self.legal_mask = jax.jit(jax.vmap(self._legal_mask))
    self.step = jax.jit(self._batch_step)
    self.squares = jax.jit(jax.vmap(self.square_contents))
    self.from_positions = jax.jit(self._batch_from_positions)
    self.sample_actions = jax.jit(self._sample_actions)
    self.random_rollout = jax.jit(self._random_rollout, static_argnums=2)

  def _zobrist_table(self, placement_types: np.ndarray) -> np.ndarray:
    """[2·army, squares + 1, 2] uint32: the hash of each slot's piece on each
    square (zero on NO_SQUARE); identical pieces hash alike."""
    keys = np.random.RandomState(20261123).randint(
        0, 2**32, (2, self.rules.num_types, rules_lib.NUM_SQUARES + 1, 2),
        dtype=np.uint64).astype(np.uint32)
    keys[:, :, rules_lib.NO_SQUARE] = 0
    owners = np.repeat([0, 1], self.army_size)
    return keys[owners, np.tile(placement_types, 2)]

  # Creating boards.

  def _initial(self, batch: int) -> Boards:
    """`batch` boards at the start of the placement phase."""
    board = self._empty_board()
    board = board._replace(legal=self._compact_legal(board))
    return jax.tree_util.tree_map(
        lambda x: jnp.broadcast_to(x, (batch,) + x.shape), board)

  def _empty_board(self) -> Boards:
    slots = 2 * self.army_size
    return Boards(
        owner=jnp.full(rules_lib.NUM_SQUARES + 1, _EMPTY,
                       jnp.int32).at[-1].set(_OFF_BOARD),
        slot=jnp.full(rules_lib.NUM_SQUARES, -1, jnp.int32),
        position=jnp.full(slots, rules_lib.NO_SQUARE, jnp.int32),
        moved=jnp.zeros(slots, bool),
        revealed=jnp.zeros(slots, bool),
        shown_scout=jnp.zeros(slots, bool),
        captured=jnp.zeros((2, self.rules.num_types), jnp.int32),
        placed=jnp.zeros(2, jnp.int32),
        player=jnp.int32(0),
        ply=jnp.int32(0),
        last_move=jnp.full(2, -1, jnp.int32),
        last_origin=jnp.full(2, -1, jnp.int32),
        last_target=jnp.full(2, -1, jnp.int32),
        back_and_forth=jnp.zeros(2, jnp.int32),
        evading=jnp.zeros(slots, bool),
        chaser=jnp.int32(-1),
        chase_square=jnp.int32(rules_lib.NO_SQUARE),
        chase_hashes=jnp.zeros((rules_lib.CHASE_MEMORY, 2), jnp.uint32),
        chase_count=jnp.int32(0),
        winner=jnp.int32(ONGOING),
        legal=jnp.zeros(self.num_compact, bool))

  def _from_positions(self, position: jax.Array) -> Boards:
    """A board after the setup, from the [2·army] squares of the slots."""
    board = self._empty_board()
    slots = jnp.arange(2 * self.army_size)
    board = board._replace(
        owner=board.owner.at[position].set(slots // self.army_size),
        slot=board.slot.at[position].set(slots),
        position=position,
        placed=jnp.full(2, self.army_size, jnp.int32))
    return self._finish_turn(board, flag_taken=jnp.bool_(False))

  def _batch_from_positions(self, positions: jax.Array) -> Boards:
    """Boards after the setup from [batch, 2·army] squares of the slots."""
    return self._settle_stuck(jax.vmap(self._from_positions)(positions),
                              jnp.ones(positions.shape[0], bool))

  def _random_positions(self, key: jax.Array) -> jax.Array:
    """[2·army] the squares of one game's uniformly random setups."""
    setup_squares = np.flatnonzero(np.asarray(self._setup_squares).ravel())
    per_player = jnp.asarray(setup_squares.reshape(2, -1) %
                             rules_lib.NUM_SQUARES)
    return jax.vmap(lambda k, squares: jax.random.permutation(k, squares)[
        :self.army_size])(jax.random.split(key), per_player).ravel()

  def setups_from_keys(self, keys: jax.Array) -> Boards:
    """Boards after uniformly random setups, one per key, player 0 to
    move (jittable)."""
    return self._batch_from_positions(jax.vmap(self._random_positions)(keys))

  def random_setups(self, key: jax.Array, batch: int) -> Boards:
    """`batch` boards after uniformly random setups, player 0 to move."""
    return self.from_positions(jax.vmap(self._random_positions)(
        jax.random.split(key, batch)))

  # Legal actions.

  def _compact_legal(self, board: Boards, setup_over: bool = False
                    ) -> jax.Array:
    """The compact legal mask; `setup_over` promises the setup is complete."""
    if setup_over:
      return jnp.concatenate([jnp.zeros(rules_lib.NUM_SQUARES, bool),
                              self._move_legal(board)])
    setup_done = board.placed[1] == self.army_size
    placement = jnp.where(setup_done, False, self._placement_legal(board))
    moves = jnp.where(setup_done, self._move_legal(board), False)
    return jnp.concatenate([placement, moves])

  def _placement_legal(self, board: Boards) -> jax.Array:
    player = board.player
    index = jnp.minimum(board.placed[player], self.army_size - 1)
    piece_type = self._placement_types[index]
    previous = jnp.maximum(index - 1, 0)
    same_type = (index > 0) & (self._placement_types[previous] == piece_type)
    last_square = jnp.where(
        same_type, board.position[player * self.army_size + previous], -1)
    squares = jnp.arange(rules_lib.NUM_SQUARES)
    candidates = (self._setup_squares[player] &
                  (board.owner[:-1] == _EMPTY) & (squares > last_square))
    from_here = jnp.cumsum(candidates[::-1])[::-1]
    return candidates & (from_here >= self._placement_remaining[index])

  def _move_legal(self, board: Boards) -> jax.Array:
    """[compact moves] legal moves of the player to move (the Scouts' 36
    per piece, then the other movers' 4), but for the more-squares rule
    (`_apply_chase_rule`). Pieces that never move have no entries: classic
    Stratego's 8 Scouts and 25 other movers make 388, not 40 × 36."""
    return jnp.concatenate([self._moves_of(board, slots, distances).ravel()
                            for slots, distances in self._movers])

  def _moves_of(self, board: Boards, army_slots: np.ndarray,
                distances: int) -> jax.Array:
    """[len(army_slots), directions, distances] legal moves of the given
    slots of the player to move, up to `distances` squares away."""
    player = board.player
    _, own, targets = self._reach_of(board, army_slots, distances)
    occupant = board.owner[targets]
    empty = occupant == _EMPTY
    # Squares up to which the path is clear, unrolled (cumprod is slow on
    # CPU): a piece reaches distance d if every square before it is empty.
    reachable = [jnp.ones(empty.shape[:-1], bool)]
    for distance in range(1, distances):
      reachable.append(reachable[-1] & empty[..., distance - 1])
    reachable = jnp.stack(reachable, axis=-1)
    legal = reachable & (empty | (occupant == 1 - player))
    forbidden = ((board.back_and_forth[player] >= rules_lib.MAX_BACK_AND_FORTH)
                 & self._continues(board, own[:, None, None], targets))
    return legal & ~forbidden

  def _reach_of(self, board: Boards, army_slots: np.ndarray, distances: int
               ) -> tuple[jax.Array, jax.Array, jax.Array]:
    """The given slots of the player to move [n], their squares [n] and the
    squares their moves reach [n, directions, distances]."""
    slots = army_slots + board.player * self.army_size
    own = board.position[slots]
    return slots, own, self._rays[own][..., :distances]

  def _returns(self, board: Boards, own: jax.Array,
               targets: jax.Array) -> jax.Array:
    """Which moves go straight back along the mover's last move."""
    return ((own[:, None, None] == board.last_target[board.player]) &
            (targets == board.last_origin[board.player]))

  def _continues(self, board: Boards, origin: jax.Array,
                 target: jax.Array) -> jax.Array:
    """Which moves from `origin` to `target` continue the two-square rule's
    count of the player to move (see `rules.py`): they start where its last
    move ended and end on a square that move crossed, up to its origin."""
    last_origin = board.last_origin[board.player]
    last_target = board.last_target[board.player]
    return (origin == last_target) & (
        _distance(last_origin, target) + _distance(target, last_target) ==
        _distance(last_origin, last_target))

  def _chase_forbidden(self, board: Boards) -> jax.Array:
    """[compact] the moves the more-squares rule forbids the player to move:
    to an empty square next to an evading piece, not straight back, and
    recreating a position recorded in the chase."""
    evading_squares = jnp.where(board.evading, board.position,
                                rules_lib.NO_SQUARE)
    near_evader = jnp.zeros(rules_lib.NUM_SQUARES + 1, bool).at[
        self._neighbours[evading_squares]].set(True).at[
            rules_lib.NO_SQUARE].set(False)
    recorded = (jnp.arange(rules_lib.CHASE_MEMORY) <
                jnp.minimum(board.chase_count, rules_lib.CHASE_MEMORY))
    position_hash = self._position_hash(board)

    def forbidden_of(army_slots, distances):
      slots, own, targets = self._reach_of(board, army_slots, distances)
      after = (position_hash ^ self._slot_hashes[slots, own])[
          :, None, None] ^ self._slot_hashes[slots[:, None, None], targets]
      seen = jnp.any(jnp.all(after[..., None, :] == board.chase_hashes,
                             axis=-1) & recorded, axis=-1)
      return ((board.chaser == board.player) & near_evader[targets] & seen &
              (board.owner[targets] == _EMPTY) &
              ~self._returns(board, own, targets)).ravel()

    return jnp.concatenate([jnp.zeros(rules_lib.NUM_SQUARES, bool)] + [
        forbidden_of(slots, distances) for slots, distances in self._movers])

  def _apply_chase_rule(self, boards: Boards) -> Boards:
    """Takes the moves the more-squares rule forbids out of `legal`; a player
    left without a move loses (see `_settle_stuck`).

    Only boards whose chaser is to move can lose moves, about 5 of 1,024 in
    random play, so the rule is evaluated on the first few of them (a
    thirty-second of the batch, at least 8) or, when more need it, on the
    whole batch.
    """
    needs = ((boards.chaser == boards.player) & (boards.winner == ONGOING) &
             boards.evading.any(axis=-1))
    batch = needs.shape[0]
    capacity = min(batch, max(8, batch // 32))

    def for_all(boards):
      forbidden = jax.vmap(self._chase_forbidden)(boards)
      return boards.legal & ~(forbidden & needs[:, None])

    def for_some(boards):
      index = jnp.nonzero(needs, size=capacity, fill_value=batch)[0]
      some = jax.tree_util.tree_map(
          lambda x: x[jnp.minimum(index, batch - 1)], boards)
      legal = some.legal & ~jax.vmap(self._chase_forbidden)(some)
      return boards.legal.at[index].set(legal, mode="drop")

    def apply(boards):
      legal = (for_all(boards) if capacity == batch else jax.lax.cond(
          needs.sum() > capacity, for_all, for_some, boards))
      stuck = needs & ~legal.any(axis=-1)
      return boards._replace(
          legal=legal,
          winner=jnp.where(stuck, 1 - boards.player, boards.winner))

    return jax.lax.cond(needs.any(), apply, lambda boards: boards, boards)

  def _position_hash(self, board: Boards) -> jax.Array:
    """[2] uint32: the Zobrist hash of the pieces on the board."""
    pieces = self._slot_hashes[jnp.arange(2 * self.army_size), board.position]
    return jax.lax.reduce(pieces, np.uint32(0), jax.lax.bitwise_xor, (0,))

  def _compact_actions(self, board: Boards) -> jax.Array:
    """The action id of each compact entry (out of range where none)."""
    player = board.player
    index = jnp.minimum(board.placed[player], self.army_size - 1)
    placements = (self._placement_types[index] * rules_lib.NUM_SQUARES +
                  jnp.arange(rules_lib.NUM_SQUARES))
    origins = board.position[self._mover_slots + player * self.army_size]
    moves = (self.rules.move_base + origins * rules_lib.MOVES_PER_SQUARE +
             self._move_offsets)
    return jnp.concatenate([placements, moves])

  def _legal_mask(self, board: Boards) -> jax.Array:
    """[num_distinct_actions] legal actions of the player to move."""
    return jnp.zeros(self.num_actions, bool).at[
        self._compact_actions(board)].max(board.legal, mode="drop")

  def _sample_actions(self, key: jax.Array, boards: Boards) -> jax.Array:
    """A uniformly random legal action per board (0 where none)."""
    return jax.vmap(self._compact_action)(
        boards, random_play.uniform_true_index(key, boards.legal))

  def _compact_action(self, board: Boards, index: jax.Array) -> jax.Array:
    """The action id of one compact entry."""
    return self._compact_actions(board)[index]

  # Applying actions.

  def _batch_step(self, boards: Boards, actions: jax.Array) -> Boards:
    """Applies one action per board; a batch past its setup skips placement."""
    was_ongoing = boards.winner == ONGOING
    boards = jax.lax.cond(
        jnp.all(boards.placed[:, 1] == self.army_size),
        jax.vmap(functools.partial(self._step, setup_over=True)),
        jax.vmap(functools.partial(self._step, setup_over=False)), boards,
        actions)
    if self.more_squares_rule:
      boards = self._apply_chase_rule(boards)
    return self._settle_stuck(boards, was_ongoing)

  def _settle_stuck(self, boards: Boards, was_ongoing: jax.Array) -> Boards:
    """Draws the games that just ended with the player to move stuck (given
    to the other player by `_finish_turn`) where the other could not move
    either."""
    if not self.both_stuck_draw:
      return boards
    flag = [t.name for t in self.rules.types].index("Flag")
    flag_lost = jnp.take_along_axis(boards.captured[:, :, flag],
                                    boards.player[:, None], axis=1)[:, 0] > 0
    stuck = (was_ongoing & (boards.winner == 1 - boards.player) & ~flag_lost &
             ~boards.legal.any(axis=-1))
    return jax.lax.cond(jnp.any(stuck), jax.vmap(self._draw_if_both_stuck),
                        lambda boards, _: boards, boards, stuck)

  def _draw_if_both_stuck(self, board: Boards, stuck: jax.Array) -> Boards:
    other = board._replace(player=1 - board.player)
    other_stuck = ~self._move_legal(other).any()
    return board._replace(
        winner=jnp.where(stuck & other_stuck, -1, board.winner))

  def _step(self, board: Boards, action: jax.Array, setup_over: bool) -> Boards:
    done = board.winner != ONGOING
    new, ply = self._move(board, action - self.rules.move_base)
    if self.more_squares_rule:
      new = self._follow_chase(board, new, ply)
    flag_taken = ply.flag_taken
    if not setup_over:
      setup_done = board.placed[1] == self.army_size
      placed = self._place(board, action % rules_lib.NUM_SQUARES)
      new = jax.tree_util.tree_map(
          lambda m, p: jnp.where(setup_done, m, p), new, placed)
      flag_taken &= setup_done
    new = self._finish_turn(new, flag_taken, setup_over)
    return jax.tree_util.tree_map(lambda old, n: jnp.where(done, old, n),
                                  board, new)

  def _follow_chase(self, before: Boards, after: Boards, ply: _Ply) -> Boards:
    """The chase after a move (the more-squares rule in `rules.py`)."""
    player = before.player
    near_target = self._neighbours[ply.target]
    threat = ((after.owner[ply.target] == player) &
              jnp.any(after.owner[near_target] == 1 - player))
    evasion = ((before.chaser == 1 - player) & ~ply.attack &
               jnp.any(self._neighbours[ply.origin] == before.chase_square))
    chasing_on = (before.chaser == player) & ~ply.attack & threat
    ends = ~(evasion | chasing_on)
    starts = ends & threat
    count = jnp.where(ends, 0, before.chase_count)
    records = evasion | chasing_on | starts
    hashes = jnp.where(
        records,
        before.chase_hashes.at[count % rules_lib.CHASE_MEMORY].set(
            self._position_hash(after)), before.chase_hashes)
    evading = jnp.where(ends, False, before.evading)
    return after._replace(
        evading=evading.at[ply.mover].set(evading[ply.mover] | evasion),
        chaser=jnp.where(ends, jnp.where(starts, player, -1), before.chaser),
        chase_square=jnp.where(evasion, before.chase_square,
                               jnp.where(ends & ~starts, rules_lib.NO_SQUARE,
                                         ply.target)),
        chase_hashes=hashes,
        chase_count=count + records)

  def _place(self, board: Boards, square: jax.Array) -> Boards:
    player = board.player
    index = jnp.minimum(board.placed[player], self.army_size - 1)
    slot = player * self.army_size + index
    placed = board.placed.at[player].add(1)
    return board._replace(
        owner=board.owner.at[square].set(player),
        slot=board.slot.at[square].set(slot),
        position=board.position.at[slot].set(square),
        placed=placed,
        player=jnp.where(placed[player] == self.army_size, 1 - player,
                         player))

  def _move(self, board: Boards, move: jax.Array) -> tuple[Boards, _Ply]:
    """The board after a move (legal actions not updated), and the move."""
    player = board.player
    origin = move // rules_lib.MOVES_PER_SQUARE
    direction = move % rules_lib.MOVES_PER_SQUARE // rules_lib.MAX_DISTANCE
    distance = move % rules_lib.MAX_DISTANCE + 1
    target = self._rays[origin, direction, distance - 1]
    attacker = board.slot[origin]
    # Without a defender, an index past the slots: updates to it are dropped.
    defender = jnp.where(board.slot[target] >= 0, board.slot[target],
                         2 * self.army_size)
    attack = board.owner[target] == 1 - player
    outcome = jnp.where(
        attack, self._combat[self._slot_type[attacker],
                             self._slot_type[defender]], _MOVE)
    attacker_stays = ((outcome == _MOVE) |
                      (outcome == rules_lib.ATTACKER_WINS) |
                      (outcome == rules_lib.FLAG_CAPTURED))
    attacker_lost = ~attacker_stays
    defender_lost = attack & (outcome != rules_lib.DEFENDER_WINS)
    target_owner = jnp.where(
        attacker_stays, player,
        jnp.where(defender_lost, _EMPTY, board.owner[target]))
    target_slot = jnp.where(attacker_stays, attacker,
                            jnp.where(defender_lost, -1, board.slot[target]))
    position = board.position.at[attacker].set(
        jnp.where(attacker_stays, target, rules_lib.NO_SQUARE))
    position = position.at[defender].set(
        jnp.where(defender_lost, rules_lib.NO_SQUARE, position[defender]),
        mode="drop")
    captured = board.captured.at[player, self._slot_type[attacker]].add(
        attacker_lost.astype(jnp.int32))
    captured = captured.at[1 - player, self._slot_type[defender]].add(
        defender_lost.astype(jnp.int32), mode="drop")
    back_and_forth = jnp.where(
        attacker_stays,
        jnp.where(self._continues(board, origin, target),
                  board.back_and_forth[player] + 1, 1), 0)
    board = board._replace(
        owner=board.owner.at[origin].set(_EMPTY).at[target].set(target_owner),
        slot=board.slot.at[origin].set(-1).at[target].set(target_slot),
        position=position,
        moved=board.moved.at[attacker].set(True),
        revealed=board.revealed.at[attacker].set(
            board.revealed[attacker] | attack).at[defender].set(
                board.revealed[defender] | attack, mode="drop"),
        shown_scout=board.shown_scout.at[attacker].set(
            board.shown_scout[attacker] | (~attack & (distance > 1))),
        captured=captured,
        player=1 - player,
        ply=board.ply + 1,
        last_move=jnp.stack([origin, target]),
        last_origin=board.last_origin.at[player].set(
            jnp.where(attacker_stays, origin, -1)),
        last_target=board.last_target.at[player].set(
            jnp.where(attacker_stays, target, -1)),
        back_and_forth=board.back_and_forth.at[player].set(back_and_forth))
    return board, _Ply(origin, target, attack, attacker,
                       outcome == rules_lib.FLAG_CAPTURED)

  def _finish_turn(self, board: Boards, flag_taken: jax.Array,
                   setup_over: bool = False) -> Boards:
    """Legal actions of the player to move, and the result if the game ends.

    The game ends when the flag was taken (the player who moved last wins),
    at the ply limit (a draw), or when the player to move cannot move.
    """
    legal = self._compact_legal(board, setup_over)
    last_mover = 1 - board.player
    winner = jnp.where(
        flag_taken, last_mover,
        jnp.where(board.ply >= self.ply_limit, -1,
                  jnp.where(legal.any(), ONGOING, last_mover)))
    return board._replace(legal=legal, winner=winner)

  # Reading boards.

  def square_contents(self, board: Boards) -> dict[str, jax.Array]:
    """Per square of one board, as the pyspiel state keeps them: owner and
    type (-1 where empty) and the moved, revealed and shown_scout flags
    (`squares` does a batch)."""
    occupied = board.slot >= 0
    slot = jnp.maximum(board.slot, 0)
    return {
        "owner": board.owner[:-1],
        "kind": jnp.where(occupied, self._slot_type[slot], -1),
        "moved": occupied & board.moved[slot],
        "revealed": occupied & board.revealed[slot],
        "shown_scout": occupied & board.shown_scout[slot],
    }

  def returns(self, boards: Boards) -> np.ndarray:
    """[batch, 2] returns: +1 win, -1 loss, 0 draw or not over."""
    winner = np.asarray(boards.winner)
    player0 = np.where(winner == 0, 1.0, np.where(winner == 1, -1.0, 0.0))
    return np.stack([player0, -player0], axis=-1)

  def _random_rollout(self, key: jax.Array, boards: Boards,
                      num_steps: int) -> tuple[Boards, jax.Array]:
    """`num_steps` uniformly random plies; also returns the plies played."""

    def one_step(carry, step_key):
      boards, plies = carry
      actions = self._sample_actions(step_key, boards)
      active = (boards.winner == ONGOING).sum()
      return (self.step(boards, actions), plies + active), None

    (boards, plies), _ = jax.lax.scan(one_step, (boards, jnp.int32(0)),
                                      jax.random.split(key, num_steps))
    return boards, plies
