"""Tabular learners for 2-player common-payoff games, many seeds in lockstep.

The independent learners of the Tiny Hanabi Suite, run on the arrays of a
game's public belief MDP (`pub_mdp`): a player's information state there is its
private state and the public stage, so tables are indexed by (stage, private
state, action). Each learns from sampled episodes with ε and learning rates
decaying linearly to their end values:

- `iql`: independent Q-learning, each player bootstrapping from its own next
  decision.
- `hql`: hysteretic Q-learning (Matignon et al.): as IQL, but updates that
  lower a value use `hysteresis` times the learning rate.
- `vdn`: value decomposition: the episode's return is fitted by the sum of the
  acting players' values at every decision of the episode.
- `sad`: the simplified action decoder on VDN: a player also sees the greedy
  action its partner would have taken at the previous step, the exploratory
  one aside (at evaluation the two coincide).
- `ia2c2`: independent softmax actors with a centralised critic that sees both
  private states; the critic's TD error is each actor's advantage.
- `pub_mdp_q`: Q-learning of the coordinator in the PuB-MDP over its
  enumerated beliefs and joint prescriptions (small games only).

Every `eval_every` episodes the greedy joint policy of each run is evaluated
exactly, over every deal.
"""

import dataclasses
import math
from typing import Iterator, Optional

import numpy as np

from open_spiel_ext.algorithms import pub_mdp
from open_spiel_ext.algorithms.nn import masking

ALGORITHMS = ("iql", "hql", "vdn", "sad", "ia2c2", "pub_mdp_q")


@dataclasses.dataclass(frozen=True)
class Config:
  """Hyperparameters; ε and the learning rate decay linearly over episodes."""
  algorithm: str = "iql"
  episodes: int = 20_000
  epsilon_start: float = 1.0
  epsilon_end: float = 0.0
  learning_rate_start: float = 0.1
  learning_rate_end: float = 0.0
  hysteresis: float = 0.1
  eval_every: int = 1_000

  def validate(self) -> None:
    if self.algorithm not in ALGORITHMS:
      raise ValueError(f"algorithm must be one of {ALGORITHMS}, got "
                       f"{self.algorithm!r}")
    if self.episodes < 1 or self.eval_every < 1:
      raise ValueError(f"episodes and eval_every must be >= 1, got "
                       f"{self.episodes}, {self.eval_every}")
    for name in ("epsilon_start", "epsilon_end", "hysteresis"):
      if not 0 <= getattr(self, name) <= 1:
        raise ValueError(f"{name} must be in [0, 1], got "
                         f"{getattr(self, name)}")
    if min(self.learning_rate_start, self.learning_rate_end) < 0:
      raise ValueError(f"learning_rate_start and learning_rate_end must be "
                       f">= 0, got "
                       f"{self.learning_rate_start}, {self.learning_rate_end}")

  def decayed(self, episode: int) -> tuple[float, float]:
    """(ε, learning rate) at an episode."""
    done = episode / self.episodes
    return (self.epsilon_start + done * (self.epsilon_end - self.epsilon_start),
            self.learning_rate_start + done * (self.learning_rate_end -
                                               self.learning_rate_start))


@dataclasses.dataclass(frozen=True)
class LogEntry:
  """Greedy values of every run after `episode` episodes."""
  episode: int
  values: np.ndarray


@dataclasses.dataclass(frozen=True)
class GameArrays:
  """A PuB-MDP as padded arrays (A: most local actions at any stage).

  Attributes:
    prior: [n0, n1] probability of each private pair.
    legal: [stages, 2, A] local actions of each player (a non-actor has one).
    actors: [stages, 2] whether each player acts.
    children: [stages, A, A] next stage (-1: the game ends or padding).
    table_of: [stages] reward table of each stage.
    tables: [tables, n0, n1, A, A] rewards, zero-padded.
    previous_action: [stages] local action of the single-actor stage that led
      here (0 at the root), what SAD's partner observation replaces.
    depth: most stages on a path.
  """
  prior: np.ndarray
  legal: np.ndarray
  actors: np.ndarray
  children: np.ndarray
  table_of: np.ndarray
  tables: np.ndarray
  previous_action: np.ndarray
  depth: int

  @classmethod
  def of(cls, mdp: pub_mdp.PubMdp) -> "GameArrays":
    stages = mdp.stages
    width = max(s.num_actions(p) for s in stages for p in range(2))
    legal = np.zeros((len(stages), 2, width), bool)
    children = np.full((len(stages), width, width), -1)
    previous_action = np.zeros(len(stages), int)
    depth = np.ones(len(stages), int)
    for index, stage in enumerate(stages):
      for player in range(2):
        legal[index, player, :stage.num_actions(player)] = True
      a0, a1 = stage.children.shape
      children[index, :a0, :a1] = stage.children
      for (local0, local1), child in np.ndenumerate(stage.children):
        if child >= 0:
          previous_action[child] = local0 if stage.actors == (0,) else local1
          depth[child] = depth[index] + 1
    tables = np.zeros((len(mdp.reward_tables),) + mdp.prior.shape +
                      (width, width), np.float32)
    for index, table in enumerate(mdp.reward_tables):
      tables[index, :, :, :table.shape[2], :table.shape[3]] = table
    return cls(prior=mdp.prior, legal=legal,
               actors=np.array([[p in s.actors for p in range(2)]
                                for s in stages]),
               children=children,
               table_of=np.array([s.reward_table for s in stages]),
               tables=tables, previous_action=previous_action,
               depth=int(depth.max()))


@dataclasses.dataclass
class _Step:
  """One step of a batch of episodes."""
  alive: np.ndarray
  stage: np.ndarray
  partner_greedy: np.ndarray
  actions: tuple[np.ndarray, np.ndarray]
  reward: np.ndarray


def _table_shapes(arrays: GameArrays, config: Config,
                  runs: int) -> list[tuple[int, ...]]:
  """Each player's table of the runs: [runs, stages, private states,
  partner's greedy action (SAD's; else 1), actions]."""
  width = arrays.legal.shape[2]
  partner_width = width if config.algorithm == "sad" else 1
  return [(runs, len(arrays.legal), n, partner_width, width)
          for n in arrays.prior.shape]


def table_bytes(mdp: pub_mdp.PubMdp, config: Config, runs: int) -> int:
  """A lower bound of the bytes `train` allocates: the runs' tables of
  values (float64, as `rng.uniform` draws them): the players', or the
  coordinator's over the belief graph (`pub_mdp_q`)."""
  if config.algorithm == "pub_mdp_q":
    shapes = [(runs,) + pub_mdp.belief_graph(mdp).valid.shape]
  else:
    shapes = _table_shapes(GameArrays.of(mdp), config, runs)
  return sum(map(math.prod, shapes)) * np.dtype(np.float64).itemsize


class _TabularLearner:
  """Tables over (stage, private state, partner's greedy action, action)."""

  def __init__(self, arrays: GameArrays, config: Config, runs: int,
               rng: np.random.Generator):
    self.arrays, self.config, self.rng = arrays, config, rng
    # Tiny noise breaks ties between equal values at random, per run.
    self.tables = [rng.uniform(0, 1e-6, shape)
                   for shape in _table_shapes(arrays, config, runs)]
    if config.algorithm == "ia2c2":
      self.critic = np.zeros((runs, len(arrays.legal)) + arrays.prior.shape)

  def _observation(self, run, stage, private, partner):
    return (run, stage, private,
            partner if self.config.algorithm == "sad" else 0)

  def _values(self, player, run, stage, private, partner) -> np.ndarray:
    return self.tables[player][self._observation(run, stage, private,
                                                 partner)]

  def _greedy(self, player, run, stage, private, partner) -> np.ndarray:
    return masking.masked_argmax(
        self._values(player, run, stage, private, partner),
        self.arrays.legal[stage, player])

  def _policy(self, player, run, stage, private) -> np.ndarray:
    return masking.masked_softmax(
        self._values(player, run, stage, private, 0),
        self.arrays.legal[stage, player])

  def _act(self, player, run, stage, private, partner, epsilon):
    greedy = self._greedy(player, run, stage, private, partner)
    if self.config.algorithm == "ia2c2":
      acted = self._sample_softmax(player, run, stage, private)
    else:
      count = self.arrays.legal[stage, player].sum(-1)
      random = (self.rng.random(len(stage)) * count).astype(int)
      acted = np.where(self.rng.random(len(stage)) < epsilon, random, greedy)
    return np.where(self.arrays.actors[stage, player], acted, 0), greedy

  def _sample_softmax(self, player, run, stage, private):
    probabilities = self._policy(player, run, stage, private)
    cumulative = np.cumsum(probabilities, -1)
    draws = self.rng.random(len(stage))[:, None]
    return np.minimum((cumulative < draws).sum(-1),
                      self.arrays.legal[stage, player].sum(-1) - 1)

  def play(self, run, x0, x1, epsilon: Optional[float]) -> list[_Step]:
    """Plays a batch of episodes; greedily (as evaluated) if epsilon is None.
    """
    arrays = self.arrays
    stage = np.zeros(len(run), int)
    partner_greedy = np.zeros(len(run), int)
    steps = []
    for _ in range(arrays.depth):
      alive = stage >= 0
      here = np.maximum(stage, 0)
      actions, greedy = [], []
      for player, private in enumerate((x0, x1)):
        if epsilon is None:
          chosen = self._greedy(player, run, here, private, partner_greedy)
          acted = np.where(arrays.actors[here, player], chosen, 0)
          chosen_greedy = acted
        else:
          acted, chosen_greedy = self._act(player, run, here, private,
                                           partner_greedy, epsilon)
        actions.append(acted)
        greedy.append(chosen_greedy)
      reward = arrays.tables[arrays.table_of[here], x0, x1, actions[0],
                             actions[1]] * alive
      steps.append(_Step(alive, here, partner_greedy, tuple(actions), reward))
      single = arrays.actors[here].sum(-1) == 1
      partner_greedy = np.where(single & arrays.actors[here, 0], greedy[0],
                                greedy[1])
      stage = np.where(alive, arrays.children[here, actions[0], actions[1]],
                       -1)
    return steps

  def evaluate(self) -> np.ndarray:
    """[runs] exact expected return of each run's greedy joint policy."""
    runs = self.tables[0].shape[0]
    n0, n1 = self.arrays.prior.shape
    run, x0, x1 = (a.ravel() for a in np.meshgrid(
        np.arange(runs), np.arange(n0), np.arange(n1), indexing="ij"))
    returns = sum(step.reward for step in self.play(run, x0, x1, None))
    return (returns.reshape(runs, n0, n1) * self.arrays.prior).sum((1, 2))

  def learn(self, steps: list[_Step], run, x0, x1, learning_rate) -> None:
    if self.config.algorithm in ("vdn", "sad"):
      self._learn_decomposed(steps, run, x0, x1, learning_rate)
    elif self.config.algorithm == "ia2c2":
      self._learn_actor_critic(steps, run, x0, x1, learning_rate)
    else:
      self._learn_independent(steps, run, x0, x1, learning_rate)

  def _decisions(self, steps, run, privates):
    """Yields (step index, player, acting mask, table index) per decision."""
    for t, step in enumerate(steps):
      for player, private in enumerate(privates):
        acting = step.alive & self.arrays.actors[step.stage, player]
        index = self._observation(run, step.stage, private,
                                  step.partner_greedy) + (
                                      step.actions[player],)
        yield t, player, acting, index

  def _learn_independent(self, steps, run, x0, x1, learning_rate):
    """IQL / HQL: each player's target bootstraps from its next decision."""
    targets = [[None] * len(steps) for _ in range(2)]
    for player, private in enumerate((x0, x1)):
      future = np.zeros(len(run))
      for t in reversed(range(len(steps))):
        step = steps[t]
        future = future + step.reward
        targets[player][t] = future
        acting = step.alive & self.arrays.actors[step.stage, player]
        bootstrap = masking.masked_max(
            self._values(player, run, step.stage, private,
                         step.partner_greedy),
            self.arrays.legal[step.stage, player])
        future = np.where(acting, bootstrap, future)
    for t, player, acting, index in self._decisions(steps, run, (x0, x1)):
      error = targets[player][t] - self.tables[player][index]
      rate = np.where(error < 0, learning_rate * self._down_weight(),
                      learning_rate)
      self.tables[player][index] += np.where(acting, rate * error, 0)

  def _down_weight(self) -> float:
    return self.config.hysteresis if self.config.algorithm == "hql" else 1.0

  def _learn_decomposed(self, steps, run, x0, x1, learning_rate):
    """VDN / SAD: the sum of every decision's value fits the return."""
    decisions = list(self._decisions(steps, run, (x0, x1)))
    total = sum(np.where(acting, self.tables[player][index], 0)
                for _, player, acting, index in decisions)
    error = sum(step.reward for step in steps) - total
    for _, player, acting, index in decisions:
      self.tables[player][index] += np.where(acting, learning_rate * error, 0)

  def _learn_actor_critic(self, steps, run, x0, x1, learning_rate):
    """IA2C2: TD(0) critic on (stage, x0, x1); its TD error is the advantage.
    """
    for t, step in enumerate(steps):
      value = self.critic[run, step.stage, x0, x1]
      if t + 1 < len(steps):
        after = steps[t + 1]
        next_value = np.where(after.alive,
                              self.critic[run, after.stage, x0, x1], 0)
      else:
        next_value = 0
      advantage = np.where(step.alive, step.reward + next_value - value, 0)
      self.critic[run, step.stage, x0, x1] += learning_rate * advantage
      for player, private in enumerate((x0, x1)):
        acting = step.alive & self.arrays.actors[step.stage, player]
        index = (run, step.stage, private, 0)
        gradient = -self._policy(player, run, step.stage, private)
        gradient[np.arange(len(run)), step.actions[player]] += 1
        self.tables[player][index] += np.where(
            acting, learning_rate * advantage, 0)[:, None] * gradient


def _draw_deals(prior: np.ndarray, runs: int, rng: np.random.Generator):
  flat = rng.choice(prior.size, size=runs, p=prior.ravel() / prior.sum())
  return np.unravel_index(flat, prior.shape)


def train(mdp: pub_mdp.PubMdp, config: Config, runs: int,
          seed: int) -> Iterator[LogEntry]:
  """Trains `runs` independent runs in lockstep; yields greedy evaluations.

  Run r's results depend on (seed, runs), not on other flags.
  """
  config.validate()
  if runs < 1:
    raise ValueError(f"runs must be >= 1, got {runs}")
  rng = np.random.default_rng(seed)
  if config.algorithm == "pub_mdp_q":
    yield from _train_pub_mdp_q(mdp, config, runs, rng)
    return
  learner = _TabularLearner(GameArrays.of(mdp), config, runs, rng)
  run = np.arange(runs)
  for episode in range(config.episodes):
    epsilon, learning_rate = config.decayed(episode)
    x0, x1 = _draw_deals(mdp.prior, runs, rng)
    steps = learner.play(run, x0, x1, epsilon)
    learner.learn(steps, run, x0, x1, learning_rate)
    if (episode + 1) % config.eval_every == 0 or (
        episode + 1 == config.episodes):
      yield LogEntry(episode + 1, learner.evaluate())


def _train_pub_mdp_q(mdp, config, runs, rng) -> Iterator[LogEntry]:
  """Q-learning of the coordinator over the enumerated belief graph."""
  graph = pub_mdp.belief_graph(mdp)
  valid = graph.valid
  choices = valid.sum(1)
  q = masking.masked_logits(rng.uniform(0, 1e-6, (runs,) + valid.shape),
                            valid)
  run = np.arange(runs)
  for episode in range(config.episodes):
    epsilon, learning_rate = config.decayed(episode)
    belief = np.zeros(runs, int)
    while np.any(belief >= 0):
      alive = belief >= 0
      here = np.maximum(belief, 0)
      random = (rng.random(runs) * choices[here]).astype(int)
      picked = np.where(rng.random(runs) < epsilon, random,
                        q[run, here].argmax(-1))
      cumulative = np.cumsum(graph.probability[here, picked], -1)
      # Past the last cumulative probability the game ends.
      outcome = (cumulative < rng.random(runs)[:, None]).sum(-1)
      last = cumulative.shape[-1] - 1
      successor = np.where(
          alive & (outcome <= last),
          graph.next_belief[here, picked, np.minimum(outcome, last)], -1)
      future = np.where(successor >= 0,
                        q[run, np.maximum(successor, 0)].max(-1), 0)
      target = graph.rewards[here, picked] + future
      update = learning_rate * (target - q[run, here, picked])
      q[run, here, picked] += np.where(alive, update, 0)
      belief = successor
    if (episode + 1) % config.eval_every == 0 or (
        episode + 1 == config.episodes):
      yield LogEntry(episode + 1, graph.values(q.argmax(-1)))
