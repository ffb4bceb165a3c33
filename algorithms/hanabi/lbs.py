"""Learned belief search (LBS; Hu, Lerer, Brown and Foerster, 2021).

SPARTA's search (`sparta.monte_carlo_search`: rollouts of every legal move
from sampled games, common random numbers, pruning of hopeless moves, a
deviation threshold) with two changes that make it cheap:

- the searcher's hands come from a learned belief model
  (`belief_model.py`), whose encoder follows the searcher's observations;
  hands the public information rules out (hints, visible copies, and what
  the blueprint's memory infers from its conventions,
  `Blueprint.known_identities`: SmartBot's grid) are rejected, as are the
  hands with which the blueprint would not have made the other players'
  moves since the searcher's own last one (its hand has not changed since:
  the check is exact, as SPARTA's belief update is for those moves; the
  rule bot's "play the newest card hinted" is read so), and when fewer
  than `min_acceptance` of the draws survive the search keeps the
  blueprint's move (the reference falls back below 5%);
- a rollout plays `depth` moves, the searched move and then the blueprint's,
  and adds the blueprint's value of the state it reaches (the learned
  blueprints' Q value of the best legal move of the player to move; for the
  rule-based bot the belief model's value network), unless the game ended;
  depth None plays to the end as SPARTA does.

The public LSTM state of a learned blueprint is the same for every sampled
hand, so a rollout reruns only the private part of the network. With
`LbsSearcher` one player searches, or every player (`lbs_start` with
several players: each then assumes the others play the blueprint, which
they no longer do; the paper finds this worse).
"""

import dataclasses
import functools
from typing import Any, Callable, Optional, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from open_spiel_ext.algorithms.hanabi import belief_model
from open_spiel_ext.algorithms.hanabi import beliefs
from open_spiel_ext.algorithms.hanabi import blueprints
from open_spiel_ext.algorithms.hanabi import sparta
from open_spiel_ext.games.hanabi import engine as engine_lib


@dataclasses.dataclass(frozen=True)
class Config:
  """LBS's budget: SPARTA's config, the rollout depth, the rejection
  rule."""
  search: sparta.Config = sparta.Config()
  depth: Optional[int] = 16  # Moves per rollout, then the value; None: all.
  min_acceptance: float = 0.05  # Of belief draws consistent with the hints.
  # Whether draws must explain the others' moves since the searcher's last.
  explain_moves: bool = True

  def __post_init__(self):
    if self.depth is not None and (not isinstance(self.depth, int) or
                                   self.depth < 1):
      raise ValueError(f"the rollout depth must be an integer >= 1 (None: "
                       f"full rollouts), got depth={self.depth!r}")
    if not 0 <= self.min_acceptance < 1:
      raise ValueError(f"min_acceptance must be in [0, 1), got "
                       f"min_acceptance={self.min_acceptance}")


ValueFn = Callable[[Any, blueprints.Memory, engine_lib.HanabiState],
                   jax.Array]


@functools.lru_cache(maxsize=None)
def _model_value(rules: engine_lib.Rules,
                 config: belief_model.NetworkConfig) -> ValueFn:
  """A belief model's value network as (params, memory, states) -> [B]."""
  value = belief_model.network(rules, config).apply[4]

  def run(params, memory, states):
    del memory
    everyone = states.observation.reshape(states.observation.shape[0], -1)
    return value(params, everyone)

  return run


def bootstrap(blueprint: blueprints.Blueprint,
              model: Optional[belief_model.BeliefModel]
             ) -> tuple[ValueFn, Any]:
  """The value a truncated rollout ends with, and its parameters: the
  blueprint's own where it has one, else the belief model's value network
  (ValueError if it has none)."""
  if blueprint.has_value:
    return blueprint.value, blueprint.params
  if model is None or not model.has_value:
    where = ("no belief model is given" if model is None else
             f"the belief model {model.path} has no value network")
    raise ValueError(
        f"the blueprint {blueprint.fingerprint} has no value of its own and "
        f"{where}: truncated rollouts need one (train the belief model with "
        "value layers, or use full rollouts)")
  return _model_value(model.rules, model.config), model.params


def check_setup(blueprint: blueprints.Blueprint,
                model: Optional[belief_model.BeliefModel],
                depth: Optional[int]) -> None:
  """Raises ValueError unless `model` belongs to `blueprint` and rollouts
  of `depth` moves have a value to end with."""
  if model is not None:
    model.check(blueprint)
  if depth is not None:
    bootstrap(blueprint, model)


@functools.lru_cache(maxsize=None)
def _truncated_rollout(blueprint: blueprints.Blueprint, depth: int,
                       value: ValueFn):
  """Jitted: each game takes its first move, the blueprint `depth` − 1
  more, and the value of where they end is added to the points scored."""
  engine = blueprint.engine

  def run(params, value_params, states, memory, first):
    states = engine.step(states, first)
    memory = blueprint.remember(params, memory, states)

    def going(carry):
      return (carry[0] < depth - 1) & ~carry[1].terminated.all()

    def move(carry):
      step, states, memory, scored = carry
      states = engine.step(states, blueprint.moves(params, memory, states))
      return (step + 1, states, blueprint.remember(params, memory, states),
              scored + states.rewards[:, 0])

    _, states, memory, scored = jax.lax.while_loop(
        going, move, (0, states, memory, states.rewards[:, 0]))
    # The observations made again from where the games end, so that the
    # loop's own are dead code unless the blueprint reads them: a rule-based
    # blueprint's rollout then skips encoding them at every move.
    states = engine.observe(states)
    return scored + jnp.where(states.terminated, 0.0,
                              value(value_params, memory, states))

  return jax.jit(run)


HandTest = Callable[[np.ndarray], np.ndarray]  # [N, H] hands -> [N] bool.


class RejectionSampler:
  """Hands from `draw` ((count, rng) -> at least `count` hands), those the
  public information rules out rejected (the hints, the copies in sight and
  `known`, what the blueprint's memory publicly inferred), and those that
  fail `explains` (`explains_moves`). Accepted hands not yet used wait for
  the next call (they are independent draws of one distribution); once
  fewer than `min_acceptance` of the draws were accepted it gives up
  (returns None)."""

  def __init__(self, draw: sparta.Sampler, rules: engine_lib.Rules,
               game: engine_lib.HanabiState, player: int,
               min_acceptance: float, known: Optional[np.ndarray] = None,
               explains: Optional[HandTest] = None):
    self.draw, self.rules, self.game, self.player = draw, rules, game, player
    self.min_acceptance, self.known = min_acceptance, known
    self.explains = explains
    self.pool = np.zeros((0, rules.hand_size), np.int8)
    self.drawn = self.accepted = 0

  def __call__(self, count: int,
               rng: np.random.Generator) -> Optional[np.ndarray]:
    while len(self.pool) < count:
      hands = self.draw(count - len(self.pool), rng)
      fits = beliefs.consistent(self.rules, self.game, self.player, hands,
                                self.known)
      if self.explains is not None and fits.any():
        fits[fits] = self.explains(hands[fits])
      self.drawn += len(hands)
      self.accepted += int(fits.sum())
      if self.accepted < self.min_acceptance * self.drawn:
        return None
      self.pool = np.concatenate([self.pool, hands[fits].astype(np.int8)])
    hands, self.pool = self.pool[:count], self.pool[count:]
    return hands


def explains_moves(blueprint: blueprints.Blueprint, player: int,
                   moves: Sequence[tuple[engine_lib.HanabiState,
                                         blueprints.Memory, int]],
                   hands: np.ndarray) -> np.ndarray:
  """[N] whether the blueprint, were `player` to hold each of `hands`
  ([N, H]), would have made every one of `moves` ((game, memory, move),
  `row`s: other players' moves through which `player`'s hand did not
  change)."""
  belief = beliefs.Belief(player, hands)
  fits = np.ones(len(hands), bool)
  for game, memory, move in moves:
    fits &= beliefs.blueprint_moves(blueprint, game, memory, belief,
                                    int(game.current_player)) == move
  return fits


FEWEST_DRAWS = 64  # The smallest batch of hands a learned belief draws.


class LearnedBelief:
  """A player's learned belief: the belief model's encoder follows the
  player's observations; hands are drawn from its latest output in batches
  of a power of two from FEWEST_DRAWS to `most_draws` (a few compilations),
  the smallest that holds the hands asked for."""

  def __init__(self, model: belief_model.BeliefModel,
               blueprint: blueprints.Blueprint, player: int,
               game: engine_lib.HanabiState, most_draws: int):
    model.check(blueprint)
    self.model, self.player, self.most_draws = model, player, most_draws
    self.context, self.state = self._encode(game, model.start())

  def _encode(self, game: engine_lib.HanabiState, state):
    observation = jnp.asarray(game.observation[self.player])[None]
    return self.model.remember(self.model.params, observation, state)

  def observe(self, before: engine_lib.HanabiState,
              memory: blueprints.Memory, action: int,
              after: engine_lib.HanabiState) -> None:
    del before, memory, action
    self.context, self.state = self._encode(after, self.state)

  def sampler(self, game: engine_lib.HanabiState) -> sparta.Sampler:
    present = int((np.asarray(game.hands)[self.player] >= 0).sum())

    def draw(count, rng):
      draws = min(max(FEWEST_DRAWS, 1 << (count - 1).bit_length()),
                  self.most_draws)
      return self.model.sample(self.context, draws, present,
                               jax.random.PRNGKey(rng.integers(2**31)))

    return draw


class LbsSearcher(sparta.Searcher):
  """A player searching with a belief (by default its learned one) and
  rollouts of `config.depth` moves (module docstring). `model` is the
  blueprint's belief model; it also gives the value of a blueprint without
  its own."""

  def __init__(self, blueprint: blueprints.Blueprint, player: int,
               game: engine_lib.HanabiState,
               model: Optional[belief_model.BeliefModel], config: Config,
               belief: Optional[Any] = None):
    super().__init__(blueprint, player)
    check_setup(blueprint, model, config.depth)
    self.config = config
    if belief is None:
      if model is None:
        raise ValueError("LBS needs a belief model (or a belief)")
      belief = LearnedBelief(model, blueprint, player, game,
                             config.search.batch)
    self.belief = belief
    # The other players' moves since this player's last: (game, memory,
    # move), the player's hand the same throughout.
    self.moves_since = []
    self.rollout = None
    if config.depth is not None:
      value, value_params = bootstrap(blueprint, model)
      self.rollout = functools.partial(
          _truncated_rollout(blueprint, config.depth, value),
          blueprint.params, value_params)

  def decide(self, game, memory, rng):
    explains = None
    if self.config.explain_moves and self.moves_since:
      explains = functools.partial(explains_moves, self.blueprint,
                                   self.player, tuple(self.moves_since))
    sample = RejectionSampler(
        self.belief.sampler(game), self.blueprint.engine.rules, game,
        self.player, self.config.min_acceptance,
        self.blueprint.known_identities(memory, self.player), explains)
    return sparta.monte_carlo_search(
        self.blueprint, game, memory, self.player, sample,
        self.config.search, rng, self.rollout)

  def observe(self, before, memory, action, after):
    self.belief.observe(before, memory, action, after)
    if int(before.current_player) == self.player:
      self.moves_since = []
    else:
      self.moves_since.append((before, memory, action))


def lbs_start(blueprint: blueprints.Blueprint,
              model: belief_model.BeliefModel, config: Config,
              players: Sequence[int]) -> sparta.SearchStart:
  """The `players` search with LBS."""
  return lambda game: {player: LbsSearcher(blueprint, player, game, model,
                                           config) for player in players}
