"""A population of learned policies and its payoff table, for PSRO-style
methods with learned best responses.

Members are parameters of one network (`LearnedPolicy.apply`), each playing
either seat (the symmetric mode). `add` fills the new member's row of the
payoff table: entry (i, j) is member i's expected payoff against member j,
averaged over the two seats, so the table is antisymmetric. It is exact
where the tree engine walks the game (the members tabulated once; m-Clone
Leduc through its collapse onto Leduc), otherwise the mean of
whole games played on the JAX engine (`games_per_entry`, or fewer once the
entry's standard error is small enough). `opponent(weights)` is the
mixture of members a learner trains against (one member drawn per game),
and `exploitability(weights)` the exact exploitability of that mixture
where the tree fits.

A population may be anchored: fixed opponents of other kinds (say a game's
scripted bots, `opponents.Opponent`s) head its table, rows 0..k−1, and
the networks follow; `members` holds the networks only.
"""

import copy
from typing import Any, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from open_spiel.python import policy as policy_lib
from open_spiel_ext.algorithms.rl import evaluation
from open_spiel_ext.algorithms.rl import learner as learner_lib
from open_spiel_ext.algorithms.rl import opponents
from open_spiel_ext.algorithms.rl import versus as versus_lib
from open_spiel_ext.algorithms.tree import policies as tree_policies
import pyspiel


# (engine, player's and opponent's kinds, batch, games per slot) -> the
# jitted whole games of sampled entries,
# compiled once per process for every population of them.
_ENTRY_GAMES: dict[Any, Any] = {}


def _entry_games(env: Any, player_act: opponents.ActFn,
                 opponent: opponents.Opponent, batch: int,
                 per_slot: int = 1) -> Any:
  """Jitted: `batch · per_slot` whole games of one member against another,
  dealt to `batch` slots as they free up, slot b's games in seat b % 2:
  (player's parameters, opponent's parameters and weights, key) -> the
  player's return and seat in each game, in the order the games started.
  Every game started is played to its end and counted once, so long games
  keep their weight in the mean (stopping at the first endings of
  auto-reset games would count short games more often); dealing a slot its
  next game as soon as it is free leaves slots idle only while the last
  games end, where a fixed share of games per slot would wait on the slot
  whose games ran longest."""
  cache_key = (env, player_act, opponent.act, batch, per_slot)
  if cache_key in _ENTRY_GAMES:
    return _ENTRY_GAMES[cache_key]
  versus = versus_lib.VersusEnv(env, opponent)
  total = batch * per_slot
  seat = jnp.arange(batch, dtype=jnp.int32) % 2

  def games(player_params, opponent_params, opponent_weights, key):
    init_key, key = jax.random.split(key)
    state = versus.start(init_key, seat, opponent_params, opponent_weights)

    def going(carry):
      return (carry[2] < total).any()

    def move(carry):
      state, key, game, started, returns, seats = carry
      key, act_key = jax.random.split(key)
      actions = player_act(player_params, versus.observation(state),
                           versus.legal_mask(state),
                           jnp.zeros(batch, jnp.int32), act_key)
      state, reward, done = versus.play(state, actions, opponent_params,
                                        opponent_weights)
      # Games numbered total or more were never dealt: their slots idle.
      returns = returns.at[game].add(reward, mode="drop")
      next_game = started + jnp.cumsum(done) - 1
      game = jnp.where(done, next_game, game)
      seats = seats.at[jnp.where(done, game, total)].set(seat, mode="drop")
      return state, key, game, started + done.sum(), returns, seats

    first_seats = jnp.zeros(total, jnp.int32).at[:batch].set(seat)
    return jax.lax.while_loop(going, move, (
        state, key, jnp.arange(batch), jnp.asarray(batch), jnp.zeros(total),
        first_seats))[4:]

  _ENTRY_GAMES[cache_key] = jax.jit(games)
  return _ENTRY_GAMES[cache_key]


def entry_slots(games_per_entry: int, games_per_slot: int,
                entry_batch: int) -> int:
  """Slots a sampled entry plays its games in at once: enough for
  `games_per_entry` games at `games_per_slot` a slot, at most `entry_batch`,
  at least one per seat."""
  return max(2, min(-(-games_per_entry // games_per_slot), entry_batch))


class Population:
  """Members of one architecture, after any anchors, and their payoff
  table."""

  def __init__(self, game: pyspiel.Game, apply: learner_lib.LogitsFn,
               env: Any = None, games_per_entry: int = 20_000,
               exact: bool = True, seed: int = 0,
               entry_standard_error: float = 0.0, entry_batch: int = 1024,
               entry_games_per_slot: int = 1,
               anchors: Sequence[opponents.Opponent] = ()):
    """Args:
      game: the game.
      apply: the members' logits function.
      env: a JAX engine of `game` with auto-reset (for sampled entries).
      games_per_entry: games per sampled entry, at most.
      exact: compute entries exactly with the tree engine (refused with
        ValueError if the game's tree does not fit).
      seed: seeds the sampled games.
      entry_standard_error: a sampled entry stops after the batch of games
        that brings its standard error to at most this (0: after
        games_per_entry games).
      entry_batch: slots a sampled entry plays in at once (at most).
      entry_games_per_slot: games a call deals per slot on average, each to
        the next slot that frees up (a call ends when its last game does;
        the standard error is checked between calls).
      anchors: fixed single policies heading the table (rows 0..k−1), their
        entries filled as the first network joins.
    """
    if not exact and env is None:
      raise ValueError("sampled payoff entries need a batched engine (env)")
    if games_per_entry < 2:
      raise ValueError(f"games_per_entry must be >= 2 (a game per seat), "
                       f"got games_per_entry={games_per_entry}")
    if entry_batch < 2:
      raise ValueError(f"entry_batch must be >= 2 (a game per seat), got "
                       f"entry_batch={entry_batch}")
    if entry_games_per_slot < 1:
      raise ValueError(f"entry_games_per_slot must be >= 1, got "
                       f"entry_games_per_slot={entry_games_per_slot}")
    if entry_standard_error < 0:
      raise ValueError(f"entry_standard_error must be >= 0, got "
                       f"entry_standard_error={entry_standard_error}")
    self.game = game
    self.apply = apply
    self.env = env
    self.games_per_entry = games_per_entry
    self.entry_standard_error = entry_standard_error
    self.entry_batch = entry_batch
    self.entry_games_per_slot = entry_games_per_slot
    self.entry_games = 0  # Games played for sampled entries so far.
    self._continuous = bool(getattr(env, "continuous", False))
    self._evaluator = (evaluation.ExactEvaluator(game, opponents.uniform())
                       if exact else None)
    self._key = jax.random.PRNGKey(seed)  # Each sampled entry folds in i, j.
    self.anchors = list(anchors)
    self.members: list[Any] = []
    # Exact mode: each anchor's, then each member's policy array.
    self._tables: list[np.ndarray] = [self._anchor_table(a) for a in anchors]
    self.payoffs = np.zeros((0, 0))
    # Each entry's standard error (0 where exact): how far a meta-solver
    # may trust it.
    self.standard_errors = np.zeros((0, 0))

  def __len__(self) -> int:
    """The table's size: anchors and members."""
    return len(self.anchors) + len(self.members)

  def _anchor_table(self, anchor: opponents.Opponent) -> np.ndarray:
    if self._evaluator is None:
      return np.zeros(0)
    return anchor.members_table(self._evaluator.sweeps.tree,
                                self._evaluator.clones)[0]

  def add(self, params: Any) -> None:
    """Adds a member and fills its row and column of the payoff table (the
    anchors' first, when it is the first member)."""
    policy = learner_lib.LearnedPolicy(self.apply, params)
    if self._evaluator is not None:
      self._tables.append(self._evaluator.policy_array(policy))
    self.members.append(params)
    while len(self.payoffs) < len(self):
      self._add_row()

  def _add_row(self) -> None:
    """Fills the next row and column of the payoff table."""
    size = len(self.payoffs) + 1
    row, errors = np.array(
        [self._entry(size - 1, j) for j in range(size - 1)]).reshape(-1, 2).T
    self.payoffs = _grown(self.payoffs, row, -row)
    self.standard_errors = _grown(self.standard_errors, errors, errors)

  def state(self) -> dict[str, Any]:
    """What `restore` needs (plain arrays, for a checkpoint)."""
    state = {"members": jax.device_get(self.members),
             "tables": self._tables, "payoffs": self.payoffs,
             "standard_errors": self.standard_errors,
             "entry_games": self.entry_games}
    return {**state, "anchors": len(self.anchors)} if self.anchors else state

  def restore(self, state: dict[str, Any]) -> None:
    """Takes back the members and payoffs that `state()` returned. A state
    without anchors taken back by an anchored population (a run forked
    from an unanchored one) gets the anchors' rows and columns, put first.

    Raises:
      ValueError: the state has another number of anchors than this
        population (their names are the caller's to check).
    """
    saved_anchors = state.get("anchors", 0)
    if saved_anchors not in (0, len(self.anchors)):
      raise ValueError(f"the saved population has {saved_anchors} anchors, "
                       f"this one {len(self.anchors)}")
    self.members = list(state["members"])
    self._tables = list(state["tables"])
    self.payoffs = state["payoffs"]
    self.standard_errors = state.get("standard_errors",
                                     np.zeros_like(self.payoffs))
    self.entry_games = state.get("entry_games", 0)
    if self.anchors and not saved_anchors:
      self._put_anchors_first()

  def _put_anchors_first(self) -> None:
    """Prepends the anchors to a table of members only."""
    count, size = len(self.anchors), len(self)
    self._tables = [self._anchor_table(a) for a in self.anchors] + (
        self._tables)
    payoffs, errors = np.zeros((size, size)), np.zeros((size, size))
    payoffs[count:, count:] = self.payoffs
    errors[count:, count:] = self.standard_errors
    for i in range(size):
      for j in range(min(i, count)):
        payoffs[i, j], errors[i, j] = self._entry(i, j)
        payoffs[j, i], errors[j, i] = -payoffs[i, j], errors[i, j]
    self.payoffs, self.standard_errors = payoffs, errors

  def payoffs_with(self, extra: Sequence[Any]) -> np.ndarray:
    """The payoff table of the anchors, members and `extra` parameters (say,
    active learners), which are not added."""
    trial = copy.copy(self)
    trial.members, trial._tables = list(self.members), list(self._tables)
    for params in extra:
      trial.add(params)
    self.entry_games = trial.entry_games
    return trial.payoffs

  def opponent(self, weights: np.ndarray,
               extra: Sequence[Any] = ()) -> opponents.Opponent:
    """The anchors and members (then `extra` parameters) mixed by
    `weights`, one drawn per game."""
    networks = list(self.members) + list(extra)
    stacked = jax.tree.map(lambda *x: jnp.stack(x), *networks)
    weights = np.asarray(weights, np.float64)
    if not self.anchors:
      return opponents.of_networks(self.apply, stacked, weights.tolist(),
                                   self._continuous)
    return opponents.anchored(
        self.anchors, opponents.of_networks(
            self.apply, stacked, np.full(len(networks), 1 / len(networks)),
            self._continuous), weights)

  def _policy(self, index: int) -> opponents.Opponent:
    """The table's row `index` as a single policy."""
    if index < len(self.anchors):
      return self.anchors[index]
    return opponents.of_networks(
        self.apply, self.members[index - len(self.anchors)],
        continuous=self._continuous)

  def mixture_table(self, weights: np.ndarray,
                    extra: Sequence[Any] = ()) -> np.ndarray:
    """The behaviour policy array of the anchors and members (then `extra`
    parameters) mixed by `weights`, on the tree engine's tree."""
    if self._evaluator is None:
      raise ValueError("a mixture's policy array needs the tree (exact=True)")
    tables = self._tables + [
        self._evaluator.policy_array(learner_lib.LearnedPolicy(self.apply, p))
        for p in extra]
    return self._evaluator.sweeps.mixture_policy(
        np.stack(tables), np.asarray(weights, np.float64))

  def exploitability(self, weights: np.ndarray,
                     extra: Sequence[Any] = ()) -> float:
    """The exact exploitability of the anchors and members (then `extra`
    parameters) mixed by `weights`."""
    return self._evaluator.sweeps.exploitability(
        self.mixture_table(weights, extra))

  def tabular_policy(self, weights: np.ndarray,
                     extra: Sequence[Any] = ()) -> policy_lib.TabularPolicy:
    """The anchors and members (then `extra` parameters) mixed by `weights`
    as an OpenSpiel TabularPolicy (of Leduc poker for m-Clone Leduc, whose tree
    the engine walks)."""
    return tree_policies.to_tabular(self._evaluator.sweeps.tree,
                                    self.mixture_table(weights, extra))

  def _entry(self, i: int, j: int) -> tuple[float, float]:
    """Row i's payoff against row j, averaged over the seats, and its
    standard error (0 where exact)."""
    if self._evaluator is not None:
      sweeps = self._evaluator.sweeps
      player = sweeps.tree.infoset_player[:, None]
      first = sweeps.expected_value(
          np.where(player == 0, self._tables[i], self._tables[j]))
      second = sweeps.expected_value(
          np.where(player == 0, self._tables[j], self._tables[i]))
      return 0.5 * (first - second), 0.0
    return self._sampled_entry(i, j)

  def _sampled_entry(self, i: int, j: int) -> tuple[float, float]:
    """Row i's mean return against row j over whole games, a call's
    `entry_batch · entry_games_per_slot` games dealt to `entry_batch` slots
    as they free up, i in alternating seats, each sampling its softmax
    policy (or playing its action): the mean of the two seats' means, from
    `games_per_entry` games, or fewer once its standard error is at most
    `entry_standard_error`."""
    player, opponent = self._policy(i), self._policy(j)
    per_slot = self.entry_games_per_slot
    batch = entry_slots(self.games_per_entry, per_slot, self.entry_batch)
    games = _entry_games(self.env, player.act, opponent, batch, per_slot)
    # Keyed by the pair, not by a running key: a resumed run (whose
    # checkpoint keeps the table, not a key) samples the entries it adds
    # from the same games as a run never stopped.
    pair_key = jax.random.fold_in(jax.random.fold_in(self._key, i), j)
    returns, seats = [], []
    while len(returns) * batch * per_slot < self.games_per_entry:
      call_returns, call_seats = jax.device_get(games(
          player.params, opponent.params, jnp.asarray(opponent.weights),
          jax.random.fold_in(pair_key, len(returns))))
      returns.append(call_returns)
      seats.append(call_seats)
      self.entry_games += batch * per_slot
      mean, error = seat_averaged_mean(np.concatenate(returns),
                                       np.concatenate(seats))
      if 0 < self.entry_standard_error >= error:  # 0: every game is played.
        break
    return mean, error


def _grown(table: np.ndarray, row: np.ndarray,
           column: np.ndarray) -> np.ndarray:
  """`table` with a new last row and column (0 where they meet)."""
  size = len(table) + 1
  grown = np.zeros((size, size))
  grown[:-1, :-1] = table
  grown[-1, :-1] = row
  grown[:-1, -1] = column
  return grown


def seat_averaged_mean(returns: np.ndarray,
                       seats: np.ndarray) -> tuple[float, float]:
  """The mean of the two seats' mean returns and its standard error."""
  means, variances = [], []
  for seat in (0, 1):
    own = returns[seats == seat]
    means.append(own.mean())
    variances.append(own.var(ddof=1) / len(own) if len(own) > 1 else np.inf)
  return float(np.mean(means)), float(0.5 * np.sqrt(sum(variances)))
