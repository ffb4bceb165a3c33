"""SPARTA: single-agent search over the exact belief (Lerer et al., 2020).

One player searches; everyone else plays the blueprint, which the searcher
knows. At each of its turns the searcher samples hands from its exact belief
(`beliefs.py`) and, for each, the rest of the deck; it plays every legal move
in each sampled game and then the blueprint for everyone to the end
(rollouts, batched on the engine, the same samples for every move: common
random numbers). Moves whose mean falls clearly below another's are pruned
(after `min_samples` rollouts, a move whose mean + `stds` standard errors is
below another's mean − `stds` standard errors); the blueprint's move gets a
bonus of `threshold`, so the search deviates from the blueprint only for an
estimated gain above it. The reference's settings: 10,000 rollouts a
decision shared among the legal moves, 100 before pruning, 2 standard
errors; the threshold 0.05.

The loop itself, `monte_carlo_search`, takes where the hands come from (a
`Sampler`) and how a move is valued (a `Rollout`), so that learned belief
search (`lbs.py`) runs the same loop with a learned belief and truncated
rollouts. A `Searcher` follows one player through a game (SPARTA's keeps the
exact belief, move by move), and `play_game` plays one game from a deck with
the searchers a `SearchStart` gives, or none.
"""

import abc
import dataclasses
import functools
import time
from typing import Callable, NamedTuple, Optional

import jax
import jax.numpy as jnp
import numpy as np

from open_spiel_ext.algorithms.hanabi import beliefs
from open_spiel_ext.algorithms.hanabi import blueprints
from open_spiel_ext.algorithms.nn import masking
from open_spiel_ext.games.hanabi import engine as engine_lib
from open_spiel_ext.utils import memory


@dataclasses.dataclass(frozen=True)
class Config:
  """The search's budget and its rule for leaving the blueprint."""
  rollouts: int = 10_000  # A decision's, shared among the legal moves.
  batch: int = 1_000  # Rollouts played at once.
  threshold: float = 0.05  # The blueprint move's bonus.
  min_samples: int = 100  # A move's rollouts before it can be pruned.
  stds: float = 2.0  # Standard errors of the pruning bounds.
  # The most hands an exact belief may hold (beliefs.BeliefTooLarge above).
  max_belief_hands: int = 500_000_000

  def __post_init__(self):
    for name in ("rollouts", "batch", "min_samples", "max_belief_hands"):
      if getattr(self, name) < 1:
        raise ValueError(f"{name} must be at least 1, got "
                         f"{name}={getattr(self, name)}")
    if self.threshold < 0 or self.stds <= 0:
      raise ValueError(f"threshold must be >= 0 and stds > 0, got "
                       f"threshold={self.threshold}, stds={self.stds}")


class Decision(NamedTuple):
  action: int
  blueprint_action: int
  means: dict[int, float]  # Each legal move's mean rollout score.
  rollouts: int
  seconds: float


@functools.lru_cache(maxsize=None)
def _rollout(blueprint: blueprints.Blueprint):
  """The jitted rollouts: each game takes its first action, then everyone
  plays the blueprint to the end; returns each game's points scored."""
  engine = blueprint.engine

  def run(params, states, memory, first):
    states = engine.step(states, first)
    memory = blueprint.remember(params, memory, states)
    return states.rewards[:, 0] + blueprints.play_out(blueprint, params,
                                                      states, memory)

  return jax.jit(run)


class _Stats:
  """Running mean and variance of each move's rollout scores."""

  def __init__(self, moves: int):
    self.count = np.zeros(moves)
    self.total = np.zeros(moves)
    self.squares = np.zeros(moves)

  def add(self, move: int, scores: np.ndarray) -> None:
    self.count[move] += len(scores)
    self.total[move] += scores.sum()
    self.squares[move] += (scores**2).sum()

  @property
  def mean(self) -> np.ndarray:
    return self.total / np.maximum(self.count, 1)

  def stderr(self, min_samples: int) -> np.ndarray:
    variance = np.maximum(self.squares / np.maximum(self.count, 1) -
                          self.mean**2, 0)
    return np.where(self.count < min_samples, 1e6,
                    np.sqrt(variance / np.maximum(self.count, 1)))


Sampler = Callable[[int, np.random.Generator], Optional[np.ndarray]]
"""(count, rng) -> [count, H] hands the searcher may hold, drawn from its
belief, or None when the belief cannot give them (search then keeps the
blueprint's move)."""
Rollout = Callable[[engine_lib.HanabiState, blueprints.Memory, jax.Array],
                   jax.Array]
"""(states, memory, first moves) -> [B] each game's value of its move."""


def exact_sampler(rules: engine_lib.Rules, game: engine_lib.HanabiState,
                  belief: beliefs.Belief) -> Sampler:
  """Hands drawn from an exact belief (its `weights` and their cumulative
  sums computed once: a draw is then a binary search, whatever the size of
  the belief)."""
  cumulative = np.cumsum(beliefs.weights(rules, game, belief))
  return lambda count, rng: belief.hands[np.minimum(
      cumulative.searchsorted(rng.random(count) * cumulative[-1],
                              side="right"), len(cumulative) - 1)]


def complete_games(engine: engine_lib.HanabiEngine,
                   game: engine_lib.HanabiState, player: int,
                   hands: np.ndarray, rng: np.random.Generator
                  ) -> engine_lib.HanabiState:
  """Games like `game` (a `row`) with `player` holding each of `hands` and
  the rest of the deck shuffled (numpy arrays with a batch axis;
  `engine.observe` makes them playable)."""
  rules = engine.rules
  count = len(hands)
  unseen = beliefs.unseen(rules, game, player)
  dealt = int(game.dealt)
  decks = np.repeat(np.asarray(game.deck)[None], count, axis=0)
  for index, hand in enumerate(hands):
    rest = unseen - np.bincount(hand[hand >= 0], minlength=rules.num_cards)
    decks[index, dealt:] = rng.permutation(np.repeat(
        np.arange(rules.num_cards), rest))
  states = jax.tree.map(lambda x: np.repeat(np.asarray(x)[None], count,
                                            axis=0), game)
  all_hands = states.hands.copy()
  all_hands[:, player] = hands
  return states._replace(hands=all_hands, deck=decks)


def sample_games(engine: engine_lib.HanabiEngine,
                 game: engine_lib.HanabiState, belief: beliefs.Belief,
                 count: int, rng: np.random.Generator
                ) -> engine_lib.HanabiState:
  """`count` games like `game` with the belief's player holding hands drawn
  from its exact belief (`complete_games`)."""
  hands = exact_sampler(engine.rules, game, belief)(count, rng)
  return complete_games(engine, game, belief.player, hands, rng)


def rollout_bytes(blueprint: blueprints.Blueprint, batch: int) -> int:
  """A lower bound of the bytes a search allocates: `batch` rollouts' games
  and the blueprint's memory of them, as `jax.eval_shape` sizes them
  without allocating."""

  def rollouts(key):
    states = blueprint.engine.init(jax.random.split(key, batch))
    return states, blueprint.start(blueprint.params, states)

  return memory.tree_bytes(jax.eval_shape(rollouts, jax.random.PRNGKey(0)))


def _batch_of(row, size: int):
  """A `row` (no batch axis) repeated `size` times, as JAX arrays."""
  return jax.tree.map(lambda x: jnp.broadcast_to(jnp.asarray(x),
                                                 (size,) + np.shape(x)), row)


def blueprint_action(blueprint: blueprints.Blueprint,
                     game: engine_lib.HanabiState, memory: blueprints.Memory,
                     player: int) -> int:
  """The blueprint's move for `player` in `game` (a `row`, with its memory)."""
  return int(blueprints.jitted(blueprint).act(
      blueprint.params, _batch_of(memory, 1), _batch_of(game, 1),
      jnp.asarray([player]))[0])


def monte_carlo_search(blueprint: blueprints.Blueprint,
                       game: engine_lib.HanabiState,
                       memory: blueprints.Memory, player: int,
                       sample: Sampler, config: Config,
                       rng: np.random.Generator,
                       rollout: Optional[Rollout] = None) -> Decision:
  """The move of `player` in `game` (a `row`, `player` to move; `memory` the
  blueprint's there, a `row` too) by rollouts from games with its hand
  drawn by `sample` (the module docstring); `rollout` values a move (full
  rollouts of the blueprint if None)."""
  started = time.perf_counter()
  engine = blueprint.engine
  chosen = blueprint_action(blueprint, game, memory, player)
  legal = np.flatnonzero(np.asarray(game.legal_action_mask))
  if config.batch < len(legal):
    raise ValueError(f"a batch of rollouts must hold one per legal move: "
                     f"batch={config.batch} < {len(legal)} legal moves")
  if rollout is None:
    rollout = functools.partial(_rollout(blueprint), blueprint.params)
  stats = _Stats(len(legal))
  bonus = np.where(legal == chosen, config.threshold, 0.0)
  active = np.ones(len(legal), bool)
  rollout_memory = _batch_of(memory, config.batch)
  done = 0
  while len(legal) > 1 and active.sum() > 1 and done < config.rollouts:
    # Rows g·|moves| + j play move j in sampled game g; the batch is padded
    # to its fixed size (one compilation) with rows whose scores are unused.
    moves = np.flatnonzero(active)
    groups = max(config.batch // len(moves), 1)
    used = groups * len(moves)
    rows = np.minimum(np.arange(config.batch), used - 1)
    hands = sample(groups, rng)
    if hands is None:
      break
    sampled = complete_games(engine, game, player, hands, rng)
    states = engine.observe(jax.tree.map(
        lambda x: jnp.asarray(x[rows // len(moves)]), sampled))
    first = legal[moves][rows % len(moves)].astype(np.int32)
    scores = np.asarray(rollout(states, rollout_memory,
                                jnp.asarray(first)))[:used]
    for position, move in enumerate(moves):
      stats.add(move, scores[position::len(moves)])
    done += used
    stderr = config.stds * stats.stderr(config.min_samples)
    lowest = masking.masked_max(stats.mean + bonus - stderr, active)
    active &= stats.mean + bonus + stderr >= lowest
  best = masking.masked_argmax(stats.mean + bonus, active)
  action = int(legal[best]) if done else chosen
  return Decision(action, chosen,
                  {int(a): float(m) for a, m in zip(legal, stats.mean)},
                  done, time.perf_counter() - started)


def search(blueprint: blueprints.Blueprint, game: engine_lib.HanabiState,
           memory: blueprints.Memory, belief: beliefs.Belief,
           config: Config, rng: np.random.Generator) -> Decision:
  """SPARTA's move for the belief's player in `game` (a `row`, that player
  to move; `memory` the blueprint's there, a `row` too)."""
  return monte_carlo_search(
      blueprint, game, memory, belief.player,
      exact_sampler(blueprint.engine.rules, game, belief), config, rng)


class Searcher(abc.ABC):
  """One player's search through one game: it follows every move (its
  belief) and decides the player's moves."""

  def __init__(self, blueprint: blueprints.Blueprint, player: int):
    self.blueprint, self.player = blueprint, player

  @abc.abstractmethod
  def decide(self, game: engine_lib.HanabiState, memory: blueprints.Memory,
             rng: np.random.Generator) -> Decision:
    """The player's move in `game` (a `row`, with the blueprint's memory)."""

  @abc.abstractmethod
  def observe(self, before: engine_lib.HanabiState,
              memory: blueprints.Memory, action: int,
              after: engine_lib.HanabiState) -> None:
    """Follows the move `action` from `before` (with the blueprint's memory
    there) to `after` (not finished)."""


class ExactBelief:
  """A player's exact belief (`beliefs.py`), following the game."""

  def __init__(self, blueprint: blueprints.Blueprint, player: int,
               game: engine_lib.HanabiState,
               max_hands: Optional[int] = None):
    self.blueprint = blueprint
    self.belief = beliefs.initial(blueprint.engine.rules, game, player,
                                  max_hands)

  def observe(self, before: engine_lib.HanabiState,
              memory: blueprints.Memory, action: int,
              after: engine_lib.HanabiState) -> None:
    self.belief = beliefs.update(self.blueprint, self.belief, before, memory,
                                 action, after)

  def sampler(self, game: engine_lib.HanabiState) -> Sampler:
    return exact_sampler(self.blueprint.engine.rules, game, self.belief)


class SpartaSearcher(Searcher):
  """SPARTA: search over the player's exact belief, with full rollouts."""

  def __init__(self, blueprint: blueprints.Blueprint, player: int,
               game: engine_lib.HanabiState, config: Config):
    super().__init__(blueprint, player)
    self.config = config
    self.belief = ExactBelief(blueprint, player, game,
                              config.max_belief_hands)

  def decide(self, game, memory, rng):
    return monte_carlo_search(self.blueprint, game, memory, self.player,
                              self.belief.sampler(game), self.config, rng)

  def observe(self, before, memory, action, after):
    self.belief.observe(before, memory, action, after)


# (the dealt game, a `row`) -> the searchers of the players who search.
SearchStart = Callable[[engine_lib.HanabiState], dict[int, Searcher]]


def sparta_start(blueprint: blueprints.Blueprint, config: Config,
                 player: int) -> SearchStart:
  """`player` searches with SPARTA (single-agent search)."""
  return lambda game: {player: SpartaSearcher(blueprint, player, game,
                                              config)}


def game_deck(rules: engine_lib.Rules, seed: int, game: int) -> np.ndarray:
  """Game `game`'s deck in runs of `seed`: a shuffle that depends only on
  the two, so that runs with and without search play the same decks."""
  return np.random.default_rng([seed, game]).permutation(
      rules.ordered_deck())


class GameResult(NamedTuple):
  score: float
  searcher_moves: int
  deviations: int  # Searcher moves other than the blueprint's.
  search_seconds: float  # Spent searching, over the searcher's moves.
  # Spent by the searchers on their beliefs: the first, then following the
  # game.
  belief_seconds: float


# (player, its search's decision or None, the game before, after the move).
MoveWatcher = Callable[[int, Optional[Decision], engine_lib.HanabiState,
                        engine_lib.HanabiState], None]


def play_game(blueprint: blueprints.Blueprint, deck: np.ndarray,
              start: Optional[SearchStart] = None,
              seed: int = 0,
              watch: Optional[MoveWatcher] = None) -> GameResult:
  """One game dealt from `deck`: everyone plays the blueprint, except the
  players `start` gives searchers to (None: no one); `watch` sees every
  move (`row`s of the game before and after it)."""
  rng = np.random.default_rng(seed)
  if start is None:  # The whole game in one jitted self-play.
    return GameResult(float(blueprints.self_play_scores(
        blueprint, np.asarray(deck)[None])[0]), 0, 0, 0.0, 0.0)
  params, engine = blueprint.params, blueprint.engine
  calls = blueprints.jitted(blueprint)
  state = engine.deal(jnp.asarray(deck, jnp.int32)[None])
  memory = calls.start(params, state)
  game = beliefs.row(state)
  started = time.perf_counter()
  searchers = start(game)  # Their initial beliefs.
  following = time.perf_counter() - started
  score, moves, deviations, seconds = 0.0, 0, 0, 0.0
  while not bool(game.terminated):
    searcher = searchers.get(int(game.current_player))
    decision = None
    if searcher is not None:
      decision = searcher.decide(game, beliefs.row(memory), rng)
      action = decision.action
      moves += 1
      deviations += decision.action != decision.blueprint_action
      seconds += decision.seconds
    else:
      action = int(calls.moves(params, memory, state)[0])
    state = engine.step(state, jnp.asarray([action], jnp.int32))
    after = beliefs.row(state)
    if watch is not None:
      watch(int(game.current_player), decision, game, after)
    score += float(after.rewards[0])
    if not bool(after.terminated):
      started = time.perf_counter()
      for each in searchers.values():
        each.observe(game, beliefs.row(memory), action, after)
      following += time.perf_counter() - started
    memory = calls.remember(params, memory, state)
    game = after
  return GameResult(score, moves, deviations, seconds, following)
