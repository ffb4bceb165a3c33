"""Scripted Stratego bots, as opponents a learner plays and is measured
against.

Every bot is an `rl.opponents.Opponent`: a pure JAX function of a batch of
observation tensors and legal masks, in the mover's own frame (the
environment's `relative_actions=True`: its pieces start on rows 0–3 and
"forward" is up), so it runs batched on the engine and inside jitted
matches. A bot scores every legal action and plays the best, small random
noise breaking ties; it knows only what the observation shows: its own
pieces, the enemy pieces revealed by attacks and Scout runs, which pieces
moved, and both sides' losses.

- `random`: uniformly random legal actions (placements too).
- `heuristic`: attacks what it knows it beats (the Flag above all), probes
  unknown pieces with its least valuable movers, advances; random setups.
  It is the bot of `examples/play_stratego.py`.
- `scout`: guards its Flag with the Bomb (the Bomb on the second row, the
  Flag behind it); probes unknown pieces with Scout runs from afar, sends
  the Marshal at unknown pieces that moved (no Bomb among them) and the
  Miner at those that did not; attacks revealed weaker pieces and never
  revealed stronger ones; pulls a piece that a revealed stronger enemy
  threatens away from it; moves towards the nearest enemy piece that never
  moved.
- `probabilistic`: guesses each unknown enemy piece's identity from what
  is left of the enemy army (its losses and revealed pieces removed; a piece
  that moved is no Bomb or Flag) and plays the move of best expected value:
  attacks by their expected material and Flag capture, every move by the
  expected loss from the enemies next to where it goes against where it
  stands, and by how much closer it gets to the nearest enemy piece that
  never moved; Flag in a back corner with the Bomb beside it.

`act_on_state` plays a bot in a pyspiel state (what a person plays against).
"""

import functools
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from open_spiel_ext.algorithms.nn import masking
from open_spiel_ext.algorithms.rl import opponents
from open_spiel_ext.games.stratego import rules as rules_lib
import pyspiel

BOTS = ("random", "heuristic", "scout", "probabilistic")
_FLAG_VALUE = 100.0  # What the bots give the Flag (rules: material values).
_NOISE = 0.3


class _View(NamedTuple):
  """What an observation shows, per square of the mover's frame."""
  own_type: jax.Array  # [B, 100] own piece type, -1 where none.
  enemy: jax.Array  # [B, 100] bool: an enemy piece.
  enemy_type: jax.Array  # [B, 100] its type if revealed, else -1.
  enemy_moved: jax.Array  # [B, 100] bool.
  enemy_left: jax.Array  # [B, T] enemy pieces of each type not yet seen.


class _Tables(NamedTuple):
  """Per action id (the mover's frame): what the action does."""
  origin: np.ndarray  # Moves: the origin; placements: NO_SQUARE.
  target: np.ndarray  # Moves: the target (NO_SQUARE off the board).
  distance: np.ndarray
  place_type: np.ndarray  # Placements: the type placed; moves: -1.
  place_square: np.ndarray  # Placements: the square; moves: NO_SQUARE.


@functools.lru_cache(maxsize=None)
def _tables(army: str) -> tuple[rules_lib.Rules, _Tables]:
  rules = rules_lib.rules_for(army)
  actions = rules.num_distinct_actions
  origin = np.full(actions, rules_lib.NO_SQUARE, np.int32)
  target = np.full(actions, rules_lib.NO_SQUARE, np.int32)
  distance = np.zeros(actions, np.int32)
  place_type = np.full(actions, -1, np.int32)
  place_square = np.full(actions, rules_lib.NO_SQUARE, np.int32)
  place_type[:rules.move_base], place_square[:rules.move_base] = np.divmod(
      np.arange(rules.move_base), rules_lib.NUM_SQUARES)
  for index, move in enumerate(rules.moves):
    origin[rules.move_base + index] = move.origin
    target[rules.move_base + index] = (rules_lib.NO_SQUARE if move.target is
                                       None else move.target)
    distance[rules.move_base + index] = move.distance
  return rules, _Tables(origin, target, distance, place_type, place_square)


def _values(rules: rules_lib.Rules) -> np.ndarray:
  return np.where([t.name == "Flag" for t in rules.types], _FLAG_VALUE,
                  rules.material).astype(np.float32)


def _decode(rules: rules_lib.Rules, observation: jax.Array) -> _View:
  """The planes of `StrategoObserver` (one ply of history)."""
  types = rules.num_types
  values = observation.reshape(observation.shape[0], -1,
                               rules_lib.NUM_SQUARES)
  planes = values > 0.5
  own = planes[:, :types]
  revealed = planes[:, types + 1:2 * types + 1]
  unknown = planes[:, 2 * types + 1]
  enemy_moved = planes[:, 2 * types + 3]
  captured = values[:, 3 * types + 7:4 * types + 7, 0]
  counts = jnp.asarray(rules.counts, jnp.float32)
  alive_revealed = revealed.sum(axis=2)
  return _View(
      own_type=jnp.where(own.any(axis=1), own.argmax(axis=1), -1),
      enemy=revealed.any(axis=1) | unknown,
      enemy_type=jnp.where(revealed.any(axis=1), revealed.argmax(axis=1), -1),
      enemy_moved=enemy_moved,
      enemy_left=jnp.maximum(
          counts - jnp.round(captured * counts) - alive_revealed, 0.0))


def _at(values: jax.Array, squares: np.ndarray, fill: Any = -1) -> jax.Array:
  """[B, A] `values` ([B, 100]) at each action's square (`fill` off the
  board)."""
  padded = jnp.concatenate(
      [values, jnp.full((values.shape[0], 1), fill, values.dtype)], axis=1)
  return padded[:, squares]


def _row(squares: np.ndarray) -> np.ndarray:
  return squares // rules_lib.BOARD_SIZE


def _enemy_beliefs(rules: rules_lib.Rules, view: _View) -> jax.Array:
  """[B, 100, T] each enemy square's type: known if revealed, else in
  proportion to the unseen enemy pieces (movable ones if it moved)."""
  movable = jnp.asarray(rules.movable, jnp.float32)
  left = view.enemy_left[:, None, :]
  guess = jnp.where(view.enemy_moved[..., None], left * movable, left)
  guess = guess / jnp.maximum(guess.sum(axis=-1, keepdims=True), 1e-6)
  known = jax.nn.one_hot(view.enemy_type, rules.num_types)
  return jnp.where((view.enemy_type >= 0)[..., None], known,
                   guess) * view.enemy[..., None]


def _payoff(rules: rules_lib.Rules, flag_value: float) -> np.ndarray:
  """[attacker T, defender T] material gained by an attack."""
  values = _values(rules)
  values[[i for i, t in enumerate(rules.types) if t.name == "Flag"]] = (
      flag_value)
  gain = {rules_lib.ATTACKER_WINS: lambda a, d: values[d],
          rules_lib.DEFENDER_WINS: lambda a, d: -values[a],
          rules_lib.BOTH_REMOVED: lambda a, d: values[d] - values[a],
          rules_lib.FLAG_CAPTURED: lambda a, d: flag_value}
  return np.array([[gain[int(rules.combat[a, d])](a, d)
                    for d in range(rules.num_types)]
                   for a in range(rules.num_types)], np.float32)


def _danger(rules: rules_lib.Rules, enemy_types: jax.Array) -> jax.Array:
  """[B, 101, T] the material a piece of each type may lose on each square
  (and 0 on NO_SQUARE): the chance that each enemy next to it is a movable
  piece that beats it ([B, 100, T] `enemy_types`), times its value."""
  kills = np.isin(rules.combat, (rules_lib.ATTACKER_WINS,
                                 rules_lib.FLAG_CAPTURED))
  kills &= np.array(rules.movable)[:, None]
  threat = enemy_types @ jnp.asarray(kills, jnp.float32)  # [B, 100, T]
  padded = jnp.concatenate([threat, jnp.zeros_like(threat[:, :1])], axis=1)
  around = padded[:, rules_lib.neighbour_table()[:-1]].sum(axis=2)
  danger = around * jnp.asarray(_values(rules))
  return jnp.concatenate([danger, jnp.zeros_like(danger[:, :1])], axis=1)


def _of_mover(danger: jax.Array, squares: np.ndarray,
              movers: jax.Array) -> jax.Array:
  """[B, A] `danger` ([B, 101, T]) at each action's square for its mover."""
  return jnp.take_along_axis(danger[:, squares],
                             jnp.maximum(movers, 0)[..., None], axis=2)[..., 0]


def _setup_score(rules: rules_lib.Rules, tables: _Tables, view: _View,
                 likes: dict[str, Any]) -> jax.Array:
  """[B, A] placement scores: `likes[type name](square, own bombs [B, 100])`
  gives each square's score for that type ([B, A] over the placements)."""
  bombs = view.own_type == [t.name for t in rules.types].index("Bomb")
  score = jnp.zeros((view.own_type.shape[0], len(tables.place_type)))
  for index, piece in enumerate(rules.types):
    if piece.name in likes:
      liked = likes[piece.name](tables.place_square, bombs)
      score += jnp.where(tables.place_type == index, liked, 0.0)
  return score


def _behind_a_bomb(squares: np.ndarray, bombs: jax.Array) -> jax.Array:
  """[B, A] whether each square is on the back row with a Bomb in front."""
  front = np.minimum(squares + rules_lib.BOARD_SIZE, rules_lib.NO_SQUARE)
  padded = jnp.concatenate([bombs, jnp.zeros_like(bombs[:, :1])], axis=1)
  return padded[:, front] & (_row(squares) == 0)


def _beside_a_bomb(squares: np.ndarray, bombs: jax.Array) -> jax.Array:
  """[B, A] whether a Bomb is next to each square."""
  padded = jnp.concatenate([bombs, jnp.zeros_like(bombs[:, :1])], axis=1)
  near = rules_lib.neighbour_table()[np.minimum(squares,
                                                rules_lib.NO_SQUARE)]
  return padded[:, near].any(axis=2)


def _manhattan() -> np.ndarray:
  """[101, 100] squares' Manhattan distances (row NO_SQUARE: all 0)."""
  rows, columns = np.divmod(np.arange(rules_lib.NUM_SQUARES),
                            rules_lib.BOARD_SIZE)
  table = (np.abs(rows[:, None] - rows[None]) +
           np.abs(columns[:, None] - columns[None])).astype(np.float32)
  return np.concatenate([table, np.zeros((1, rules_lib.NUM_SQUARES),
                                         np.float32)])


_DISTANCES = _manhattan()


def _approach(view: _View, tables: _Tables) -> jax.Array:
  """[B, A] how many squares closer a move brings its piece to the nearest
  enemy piece that never moved (where the Flag is)."""
  unmoved = view.enemy & ~view.enemy_moved
  far = jnp.where(unmoved[:, None, :], jnp.asarray(_DISTANCES)[None],
                  jnp.inf).min(axis=2)  # [B, 101]
  far = jnp.where(jnp.isfinite(far), far, 0.0)
  return far[:, tables.origin] - far[:, tables.target]


_CORNERS = np.array([0, rules_lib.BOARD_SIZE - 1])
_NEXT_TO_CORNERS = np.array([1, rules_lib.BOARD_SIZE - 2, rules_lib.BOARD_SIZE,
                             2 * rules_lib.BOARD_SIZE - 1])


def _heuristic(rules: rules_lib.Rules, tables: _Tables, view: _View,
               key: jax.Array) -> jax.Array:
  """The greedy bot's scores [B, A] (module docstring)."""
  attacker = _at(view.own_type, tables.origin)
  defender = _at(view.enemy_type, tables.target)
  enemy = _at(view.enemy, tables.target, False)
  outcome = jnp.asarray(rules.combat)[jnp.maximum(attacker, 0),
                                      jnp.maximum(defender, 0)]
  known_value = jnp.asarray([10.0, -10.0, 1.0, 100.0])[outcome]
  ranks = jnp.asarray([t.rank for t in rules.types], jnp.float32)
  probe = 2.0 - 0.4 * ranks[jnp.maximum(attacker, 0)]
  score = jnp.where(enemy, jnp.where(defender >= 0, known_value, probe), 0.0)
  score += 0.5 * (_row(tables.target) - _row(tables.origin))
  return score + jax.random.uniform(key, score.shape, maxval=0.5)


def _scout(rules: rules_lib.Rules, tables: _Tables, view: _View,
           key: jax.Array) -> jax.Array:
  """The Scout-probing, Flag-guarding bot's scores [B, A]."""
  attacker = _at(view.own_type, tables.origin)
  defender = _at(view.enemy_type, tables.target)
  enemy = _at(view.enemy, tables.target, False)
  mover = jnp.maximum(attacker, 0)
  payoff = jnp.asarray(_payoff(rules, 100.0))[mover,
                                              jnp.maximum(defender, 0)]
  known = jnp.where(payoff < 0, -50.0, payoff)
  names = [t.name for t in rules.types]
  moved = _at(view.enemy_moved, tables.target, False)
  # Unknown pieces: Scouts probe from afar; any piece goes for unmoved
  # ones (one is the Flag; the one Bomb only stops non-Miners), the cheaper
  # the keener; the Marshal and the General for moved ones.
  values = jnp.asarray(_values(rules))[mover]
  probe = jnp.where(
      jnp.asarray(rules.scout)[mover], 3.0 + 0.2 * tables.distance,
      jnp.where(moved, jnp.where(values >= 8.0, 2.0, -1.0),
                jnp.where(mover == names.index("Miner"), 2.5,
                          2.0 - 0.15 * values)))
  score = jnp.where(enemy, jnp.where(defender >= 0, known, probe), 0.0)
  # Whoever can strikes an enemy next to its own Flag.
  flag = view.own_type == names.index("Flag")
  padded = jnp.concatenate([flag, jnp.zeros_like(flag[:, :1])], axis=1)
  raiders = padded[:, rules_lib.neighbour_table()[:-1]].any(axis=2)
  score += jnp.where(_at(raiders & view.enemy, tables.target, False) &
                     ((payoff >= 0) | (defender < 0)), 20.0, 0.0)
  revealed = jax.nn.one_hot(view.enemy_type, rules.num_types)
  danger = _danger(rules, revealed)
  threatened = _of_mover(danger, tables.origin, attacker) > 0
  safe = _of_mover(danger, tables.target, attacker) == 0
  score += jnp.where(threatened & safe & ~enemy, 6.0, 0.0)
  score += 0.5 * _approach(view, tables)
  setup = _setup_score(rules, tables, view, {
      "Bomb": lambda squares, bombs: 5.0 * (_row(squares) == 1),
      "Flag": lambda squares, bombs: 10.0 * _behind_a_bomb(squares, bombs),
      "Marshal": lambda squares, bombs: 1.0 * (_row(squares) == 3),
      "Scout": lambda squares, bombs: 1.0 * (_row(squares) == 3),
  })
  score = jnp.where(tables.place_type >= 0, setup, score)
  return score + jax.random.uniform(key, score.shape, maxval=_NOISE)


def _probabilistic(rules: rules_lib.Rules, tables: _Tables, view: _View,
                   key: jax.Array) -> jax.Array:
  """The expected-value bot's scores [B, A] (module docstring)."""
  beliefs = _enemy_beliefs(rules, view)  # [B, 100, T]
  attacker = _at(view.own_type, tables.origin)
  mover = jnp.maximum(attacker, 0)
  padded = jnp.concatenate([beliefs, jnp.zeros_like(beliefs[:, :1])], axis=1)
  at_target = padded[:, tables.target]  # [B, A, T]
  payoff = jnp.asarray(_payoff(rules, 100.0))[mover]  # [B, A, T]
  score = (at_target * payoff).sum(axis=-1)
  danger = _danger(rules, beliefs)
  score += (_of_mover(danger, tables.origin, attacker) -
            _of_mover(danger, tables.target, attacker))
  score += 0.5 * _approach(view, tables)
  setup = _setup_score(rules, tables, view, {
      "Bomb": lambda squares, bombs: 5.0 * np.isin(squares,
                                                   _NEXT_TO_CORNERS),
      "Flag": lambda squares, bombs: 10.0 * (
          np.isin(squares, _CORNERS) & _beside_a_bomb(squares, bombs)),
      "Marshal": lambda squares, bombs: 1.0 * (_row(squares) == 3),
      "Spy": lambda squares, bombs: 1.0 * (_row(squares) == 2),
  })
  score = jnp.where(tables.place_type >= 0, setup, score)
  return score + jax.random.uniform(key, score.shape, maxval=_NOISE)


_SCORES = {"heuristic": _heuristic, "scout": _scout,
           "probabilistic": _probabilistic}


def _no_table(tree: Any, clones: int) -> np.ndarray:
  raise ValueError("Stratego bots have no tabular form (the game has no "
                   "tree to walk)")


@functools.lru_cache(maxsize=None)
def _act_of(name: str, army: str):
  """The jittable act function of a bot (one per bot and army)."""
  rules, tables = _tables(army)
  score_of = _SCORES[name]

  def act(params, observation, mask, member, key):
    del params, member
    score = score_of(rules, tables, _decode(rules, observation), key)
    return masking.masked_argmax(score, mask).astype(jnp.int32)

  return act


def bot(name: str, army: str = "barrage") -> opponents.Opponent:
  """The bot `name` (one of BOTS) for an army, as an opponent."""
  if name not in BOTS:
    raise ValueError(f"unknown Stratego bot {name!r}; the bots are "
                     f"{', '.join(BOTS)}")
  if name == "random":
    return opponents.uniform()
  return opponents.Opponent(_act_of(name, army), (), jnp.ones(1), _no_table)


@functools.lru_cache(maxsize=None)
def _jitted(act):
  return jax.jit(act)


def act_on_state(opponent: opponents.Opponent, state: pyspiel.State,
                 key: jax.Array, member: int = 0) -> int:
  """The opponent's action in one pyspiel Stratego state (the mover's
  frame turned back into the game's action ids for player 1); `member` is
  the mixture's member playing this game (`Opponent.draw_members`)."""
  player = state.current_player()
  rules = state.get_game().rules
  rotated = rules.rotated_actions()
  mask = np.zeros(rules.num_distinct_actions, bool)
  mask[state.legal_actions()] = True
  if player == 1:
    mask = mask[rotated]
  observation = np.asarray(state.observation_tensor(player), np.float32)
  action = int(_jitted(opponent.act)(
      opponent.params, jnp.asarray(observation)[None],
      jnp.asarray(mask)[None], jnp.full(1, member, jnp.int32), key)[0])
  return int(rotated[action]) if player == 1 else action
