"""Stratego matches between opponents on the batched engine.

`play(env, first, second, games, key)` plays `games` games at once between
two `rl.opponents.Opponent`s (bots, networks, mixtures), `first` in seat 0
of the even games and seat 1 of the odd ones, each acting on its own
observation and legal mask (the environment must show actions in the
mover's frame, `relative_actions=True`); it returns `first`'s result in
each game (+1, 0, −1). `win_rate` summarises results with a 95% confidence
interval (Wilson's; a draw counts as half a win), `round_robin` fills a
table of every pair and `cross_table` one of each of some players against
each of others.
"""

import functools
from typing import Callable, NamedTuple, Optional, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from open_spiel_ext.algorithms.rl import opponents
from open_spiel_ext.games.stratego import env as env_lib


@functools.lru_cache(maxsize=None)
def _match(env: env_lib.StrategoEnv, first_act, second_act, games: int):
  """Jitted: whole games between two kinds of opponents."""
  seat = jnp.arange(games) % 2  # `first`'s seat in each game.
  rows = jnp.arange(games)

  def run(first_params, second_params, first_member, second_member, key):
    init_key, key = jax.random.split(key)
    state = env.init(jax.random.split(init_key, games))

    def going(carry):
      return ~carry[0].terminated.all()

    def move(carry):
      state, key, result = carry
      key, first_key, second_key = jax.random.split(key, 3)
      mover = jnp.maximum(state.current_player, 0)
      observation = state.observation[rows, mover]
      mask = state.legal_action_mask
      actions = jnp.where(
          mover == seat,
          first_act(first_params, observation, mask, first_member,
                    first_key),
          second_act(second_params, observation, mask, second_member,
                     second_key))
      state = env.step(state, actions)
      return state, key, result + state.rewards[rows, seat]

    return jax.lax.while_loop(going, move,
                              (state, key, jnp.zeros(games)))[2]

  return jax.jit(run)


def play(env: env_lib.StrategoEnv, first: opponents.Opponent,
         second: opponents.Opponent, games: int,
         key: jax.Array) -> np.ndarray:
  """[games] `first`'s result in each game (module docstring)."""
  if not env.relative_actions or env.auto_reset:
    raise ValueError("matches need an environment with relative_actions="
                     "True and auto_reset=False")
  if games < 2:
    raise ValueError(f"games must be at least 2 (one per seat), got "
                     f"games={games}")
  member_key, key = jax.random.split(key)
  first_key, second_key = jax.random.split(member_key)
  run = _match(env, first.act, second.act, games)
  return np.asarray(run(first.params, second.params,
                        first.draw_members(first_key, games),
                        second.draw_members(second_key, games), key))


class WinRate(NamedTuple):
  rate: float  # (wins + draws / 2) / games.
  low: float  # Wilson's 95% interval.
  high: float
  games: int

  def __str__(self) -> str:
    return f"{self.rate:.3f} [{self.low:.3f}, {self.high:.3f}]"


def win_rate(results: np.ndarray) -> WinRate:
  """The score rate of +1/0/−1 results with Wilson's 95% interval."""
  games = len(results)
  # In float64 whatever the results' type, so that a match read back from
  # its counts (a resumed evaluation) has the very rate it had when played.
  rate = float((np.asarray(results, np.float64) + 1).sum() / (2 * games))
  z = 1.96
  centre = (rate + z**2 / (2 * games)) / (1 + z**2 / games)
  half = z * np.sqrt(rate * (1 - rate) / games + z**2 / (4 * games**2)) / (
      1 + z**2 / games)
  return WinRate(rate, float(centre - half), float(centre + half), games)


def round_robin(env: env_lib.StrategoEnv, players: dict[str, opponents.Opponent],
                games: int, key: jax.Array,
                on_match: Optional[Callable[[str, str, np.ndarray],
                                            None]] = None,
                played: Optional[dict[tuple[str, str], np.ndarray]] = None
               ) -> dict[tuple[str, str], WinRate]:
  """Every pair's match: the row player's win rate against the column's.

  `on_match(row, column, results)` is called with the row player's +1/0/−1
  results as each match ends; the matches in `played` (the same results, of
  a resumed run) are not played again. Each match has its own random key,
  so a resumed table equals one never stopped.
  """
  return cross_table(env, players, list(players), list(players), games, key,
                     on_match, played)


def cross_table(env: env_lib.StrategoEnv,
                players: dict[str, opponents.Opponent], rows: Sequence[str],
                columns: Sequence[str], games: int, key: jax.Array,
                on_match: Optional[Callable[[str, str, np.ndarray],
                                            None]] = None,
                played: Optional[dict[tuple[str, str], np.ndarray]] = None
               ) -> dict[tuple[str, str], WinRate]:
  """Each of `rows` against each of `columns` (names in `players`), as
  `round_robin` but for those pairs alone: a player in both lists does not
  play itself, and a pair in both orders is played once."""
  unknown = sorted((set(rows) | set(columns)) - set(players))
  if unknown:
    raise ValueError(f"no player named {unknown}; players: {list(players)}")
  pairs = {}
  for row in rows:
    for column in columns:
      if row != column and (column, row) not in pairs:
        pairs[row, column] = None
  table = {}
  for index, (row, column) in enumerate(pairs):
    if played and (row, column) in played:
      results = played[row, column]
    else:
      results = play(env, players[row], players[column], games,
                     jax.random.fold_in(key, index))
      if on_match:
        on_match(row, column, results)
    table[row, column] = win_rate(results)
    table[column, row] = win_rate(-results)
  return table
