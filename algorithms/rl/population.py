"""A population of learned policies and its payoff table, for PSRO-style
methods with learned best responses.

Members are parameters of one network (`LearnedPolicy.apply`), each playing
either seat (the symmetric mode). `add` fills the new member's row of the
payoff table: entry (i, j) is member i's expected payoff against member j,
averaged over the two seats, so the table is antisymmetric. It is exact
where the tree engine walks the game (the members tabulated once; m-Clone
Leduc through its collapse onto Leduc), otherwise the mean of
`games_per_entry` games played on the JAX engine. `opponent(weights)` is the
mixture of members a learner trains against (one member drawn per game),
and `exploitability(weights)` the exact exploitability of that mixture
where the tree fits.
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


# (engine, network) -> the versus environment and jitted act of sampled
# entries, compiled once per process for every population of them.
_ENTRY_GAMES: dict[Any, tuple[versus_lib.VersusEnv, Any]] = {}


def _entry_games(env: Any, apply: learner_lib.LogitsFn,
                 opponent: opponents.Opponent
                ) -> tuple[versus_lib.VersusEnv, Any]:
  if (env, apply) not in _ENTRY_GAMES:
    _ENTRY_GAMES[env, apply] = (versus_lib.VersusEnv(env, opponent),
                                jax.jit(opponent.act))
  return _ENTRY_GAMES[env, apply]


class Population:
  """Members of one architecture and their payoff table."""

  def __init__(self, game: pyspiel.Game, apply: learner_lib.LogitsFn,
               env: Any = None, games_per_entry: int = 20_000,
               exact: bool = True, seed: int = 0):
    """Args:
      game: the game.
      apply: the members' logits function.
      env: a JAX engine of `game` with auto-reset (for sampled entries).
      games_per_entry: games per sampled entry.
      exact: compute entries exactly with the tree engine (refused with
        ValueError if the game's tree does not fit).
      seed: seeds the sampled games.
    """
    if not exact and env is None:
      raise ValueError("sampled payoff entries need a batched engine (env)")
    if games_per_entry < 1:
      raise ValueError(f"games_per_entry must be >= 1, got "
                       f"games_per_entry={games_per_entry}")
    self.game = game
    self.apply = apply
    self.env = env
    self.games_per_entry = games_per_entry
    self._continuous = bool(getattr(env, "continuous", False))
    self._evaluator = (evaluation.ExactEvaluator(game, opponents.uniform())
                       if exact else None)
    self._key = jax.random.PRNGKey(seed)  # Each sampled entry folds in i, j.
    self.members: list[Any] = []
    self._tables: list[np.ndarray] = []  # Exact mode: each member's policy.
    self.payoffs = np.zeros((0, 0))

  def __len__(self) -> int:
    return len(self.members)

  def add(self, params: Any) -> None:
    """Adds a member and fills its row and column of the payoff table."""
    policy = learner_lib.LearnedPolicy(self.apply, params)
    if self._evaluator is not None:
      self._tables.append(self._evaluator.policy_array(policy))
    self.members.append(params)
    size = len(self.members)
    row = np.array([self._entry(size - 1, j) for j in range(size - 1)])
    payoffs = np.zeros((size, size))
    payoffs[:-1, :-1] = self.payoffs
    payoffs[-1, :-1] = row
    payoffs[:-1, -1] = -row
    self.payoffs = payoffs

  def state(self) -> dict[str, Any]:
    """What `restore` needs (plain arrays, for a checkpoint)."""
    return {"members": jax.device_get(self.members),
            "tables": self._tables, "payoffs": self.payoffs}

  def restore(self, state: dict[str, Any]) -> None:
    """Takes back the members and payoffs that `state()` returned."""
    self.members = list(state["members"])
    self._tables = list(state["tables"])
    self.payoffs = state["payoffs"]

  def payoffs_with(self, extra: Sequence[Any]) -> np.ndarray:
    """The payoff table of the members and `extra` parameters (say, active
    learners), which are not added."""
    trial = copy.copy(self)
    trial.members, trial._tables = list(self.members), list(self._tables)
    for params in extra:
      trial.add(params)
    return trial.payoffs

  def opponent(self, weights: np.ndarray,
               extra: Sequence[Any] = ()) -> opponents.Opponent:
    """The members (then `extra` parameters) mixed by `weights`, one drawn
    per game."""
    stacked = jax.tree.map(lambda *x: jnp.stack(x),
                           *self.members, *extra)
    return opponents.of_networks(self.apply, stacked,
                                 np.asarray(weights, np.float64).tolist(),
                                 self._continuous)

  def mixture_table(self, weights: np.ndarray,
                    extra: Sequence[Any] = ()) -> np.ndarray:
    """The behaviour policy array of the members (then `extra` parameters)
    mixed by `weights`, on the tree engine's tree."""
    if self._evaluator is None:
      raise ValueError("a mixture's policy array needs the tree (exact=True)")
    tables = self._tables + [
        self._evaluator.policy_array(learner_lib.LearnedPolicy(self.apply, p))
        for p in extra]
    return self._evaluator.sweeps.mixture_policy(
        np.stack(tables), np.asarray(weights, np.float64))

  def exploitability(self, weights: np.ndarray,
                     extra: Sequence[Any] = ()) -> float:
    """The exact exploitability of the members (then `extra` parameters)
    mixed by `weights`."""
    return self._evaluator.sweeps.exploitability(
        self.mixture_table(weights, extra))

  def tabular_policy(self, weights: np.ndarray,
                     extra: Sequence[Any] = ()) -> policy_lib.TabularPolicy:
    """The members (then `extra` parameters) mixed by `weights` as an
    OpenSpiel TabularPolicy (of Leduc poker for m-Clone Leduc, whose tree
    the engine walks)."""
    return tree_policies.to_tabular(self._evaluator.sweeps.tree,
                                    self.mixture_table(weights, extra))

  def _entry(self, i: int, j: int) -> float:
    """Member i's payoff against member j, averaged over the seats."""
    if self._evaluator is not None:
      sweeps = self._evaluator.sweeps
      player = sweeps.tree.infoset_player[:, None]
      first = sweeps.expected_value(
          np.where(player == 0, self._tables[i], self._tables[j]))
      second = sweeps.expected_value(
          np.where(player == 0, self._tables[j], self._tables[i]))
      return 0.5 * (first - second)
    return self._sampled_entry(i, j)

  def _sampled_entry(self, i: int, j: int) -> float:
    """From `games_per_entry` games, member i in alternating seats against
    member j, each sampling its softmax policy (or playing its action): the
    mean of the two seats' mean returns."""
    player, opponent = (
        opponents.of_networks(self.apply, self.members[k],
                              continuous=self._continuous) for k in (i, j))
    template, player_act = _entry_games(self.env, self.apply, opponent)
    versus = template.against(opponent)
    batch = min(self.games_per_entry, 1024)
    # Keyed by the pair, not by a running key: a resumed run (whose
    # checkpoint keeps the table, not a key) samples the entries it adds
    # from the same games as a run never stopped.
    init_key, play_key = jax.random.split(
        jax.random.fold_in(jax.random.fold_in(self._key, i), j))
    state = versus.init(init_key, batch)
    seat = np.asarray(state.seat)
    totals, games = np.zeros(2), np.zeros(2)
    while games.sum() < self.games_per_entry:
      play_key, act_key = jax.random.split(play_key)
      actions = player_act(player.params, versus.observation(state),
                           versus.legal_mask(state),
                           jnp.zeros(batch, jnp.int32), act_key)
      state, reward, done = versus.step(state, actions)
      done = np.asarray(done)
      for s in (0, 1):
        ended = done & (seat == s)
        totals[s] += float(np.asarray(reward)[ended].sum())
        games[s] += ended.sum()
    return float(np.mean(totals / games))
