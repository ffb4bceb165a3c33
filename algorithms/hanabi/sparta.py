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

`SpartaPlayer` follows a game move by move (its belief), and `play_game`
plays one game from a deck with or without search.
"""

import dataclasses
import functools
import time
from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp
import numpy as np

from open_spiel_ext.algorithms.hanabi import beliefs
from open_spiel_ext.algorithms.hanabi import blueprints
from open_spiel_ext.games.hanabi import engine as engine_lib


@dataclasses.dataclass(frozen=True)
class Settings:
  """The search's budget and its rule for leaving the blueprint."""
  rollouts: int = 10_000  # A decision's, shared among the legal moves.
  batch: int = 1_000  # Rollouts played at once.
  threshold: float = 0.05  # The blueprint move's bonus.
  min_samples: int = 100  # A move's rollouts before it can be pruned.
  stds: float = 2.0  # Standard errors of the pruning bounds.

  def __post_init__(self):
    for name in ("rollouts", "batch", "min_samples"):
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


def sample_games(engine: engine_lib.HanabiEngine,
                 game: engine_lib.HanabiState,
                 belief: beliefs.Belief, count: int,
                 rng: np.random.Generator,
                 probabilities: Optional[np.ndarray] = None
                ) -> engine_lib.HanabiState:
  """`count` games like `game` (a `row`) with the belief's player holding
  hands drawn from its belief (`probabilities`, the belief's `weights` if
  not given) and the rest of the deck shuffled (numpy arrays with a batch
  axis; `engine.observe` makes them playable)."""
  rules = engine.rules
  if probabilities is None:
    probabilities = beliefs.weights(rules, game, belief)
  chosen = belief.hands[rng.choice(len(belief.hands), count,
                                   p=probabilities)]
  unseen = beliefs.unseen(rules, game, belief.player)
  dealt = int(game.dealt)
  decks = np.repeat(np.asarray(game.deck)[None], count, axis=0)
  for index, hand in enumerate(chosen):
    rest = unseen - np.bincount(hand[hand >= 0], minlength=rules.num_cards)
    decks[index, dealt:] = rng.permutation(np.repeat(
        np.arange(rules.num_cards), rest))
  states = jax.tree.map(lambda x: np.repeat(np.asarray(x)[None], count,
                                            axis=0), game)
  hands = states.hands.copy()
  hands[:, belief.player] = chosen
  return states._replace(hands=hands, deck=decks)


def _batch_of(row, size: int):
  """A `row` (no batch axis) repeated `size` times, as JAX arrays."""
  return jax.tree.map(lambda x: jnp.broadcast_to(jnp.asarray(x),
                                                 (size,) + np.shape(x)), row)


def search(blueprint: blueprints.Blueprint, game: engine_lib.HanabiState,
           memory: blueprints.Memory, belief: beliefs.Belief,
           settings: Settings, rng: np.random.Generator) -> Decision:
  """The searcher's move in `game` (a `row`, the searcher to move; `memory`
  the blueprint's there, a `row` too)."""
  started = time.perf_counter()
  engine = blueprint.engine
  chosen = int(blueprints.jitted(blueprint).act(
      blueprint.params, _batch_of(memory, 1), _batch_of(game, 1),
      jnp.asarray([belief.player]))[0])
  legal = np.flatnonzero(np.asarray(game.legal_action_mask))
  if settings.batch < len(legal):
    raise ValueError(f"a batch of rollouts must hold one per legal move: "
                     f"batch={settings.batch} < {len(legal)} legal moves")
  stats = _Stats(len(legal))
  bonus = np.where(legal == chosen, settings.threshold, 0.0)
  active = np.ones(len(legal), bool)
  rollout = _rollout(blueprint)
  rollout_memory = _batch_of(memory, settings.batch)
  probabilities = beliefs.weights(engine.rules, game, belief)
  done = 0
  while len(legal) > 1 and active.sum() > 1 and done < settings.rollouts:
    # Rows g·|moves| + j play move j in sampled game g; the batch is padded
    # to its fixed size (one compilation) with rows whose scores are unused.
    moves = np.flatnonzero(active)
    groups = max(settings.batch // len(moves), 1)
    used = groups * len(moves)
    rows = np.minimum(np.arange(settings.batch), used - 1)
    sampled = sample_games(engine, game, belief, groups, rng, probabilities)
    states = engine.observe(jax.tree.map(
        lambda x: jnp.asarray(x[rows // len(moves)]), sampled))
    first = legal[moves][rows % len(moves)].astype(np.int32)
    scores = np.asarray(rollout(blueprint.params, states, rollout_memory,
                                jnp.asarray(first)))[:used]
    for position, move in enumerate(moves):
      stats.add(move, scores[position::len(moves)])
    done += used
    stderr = settings.stds * stats.stderr(settings.min_samples)
    lower = np.where(active, stats.mean + bonus - stderr, -np.inf)
    active &= stats.mean + bonus + stderr >= lower.max()
  value = np.where(active, stats.mean + bonus, -np.inf)
  action = int(legal[np.argmax(value)]) if done else chosen
  return Decision(action, chosen,
                  {int(a): float(m) for a, m in zip(legal, stats.mean)},
                  done, time.perf_counter() - started)


class GameResult(NamedTuple):
  score: float
  searcher_moves: int
  deviations: int  # Searcher moves other than the blueprint's.
  search_seconds: float  # Spent searching, over the searcher's moves.


def play_game(blueprint: blueprints.Blueprint, deck: np.ndarray,
              searcher: Optional[int], settings: Settings = Settings(),
              seed: int = 0) -> GameResult:
  """One game dealt from `deck`: everyone plays the blueprint, except the
  `searcher` (None: no one), which searches with SPARTA."""
  rng = np.random.default_rng(seed)
  if searcher is None:  # The whole game in one jitted self-play.
    return GameResult(float(blueprints.self_play_scores(
        blueprint, np.asarray(deck)[None])[0]), 0, 0, 0.0)
  params, engine = blueprint.params, blueprint.engine
  calls = blueprints.jitted(blueprint)
  state = engine.deal(jnp.asarray(deck, jnp.int32)[None])
  memory = calls.start(params, state)
  game = beliefs.row(state)
  belief = beliefs.initial(engine.rules, game, searcher)
  score, moves, deviations, seconds = 0.0, 0, 0, 0.0
  while not bool(game.terminated):
    if int(game.current_player) == searcher:
      decision = search(blueprint, game, beliefs.row(memory), belief,
                        settings, rng)
      action = decision.action
      moves += 1
      deviations += decision.action != decision.blueprint_action
      seconds += decision.seconds
    else:
      action = int(calls.moves(params, memory, state)[0])
    state = engine.step(state, jnp.asarray([action], jnp.int32))
    after = beliefs.row(state)
    score += float(after.rewards[0])
    if not bool(after.terminated):
      belief = beliefs.update(blueprint, belief, game, beliefs.row(memory),
                              action, after)
    memory = calls.remember(params, memory, state)
    game = after
  return GameResult(score, moves, deviations, seconds)
