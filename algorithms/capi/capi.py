"""CAPI's learner: its episodes over every public branch, the training loop
with its exact evaluations, and checkpoints (see the package docstring)."""

import dataclasses
import os
import time
from typing import Any, Iterator, Optional, Sequence

import numpy as np

from open_spiel_ext.algorithms import pub_mdp
from open_spiel_ext.algorithms.capi import config as config_lib
from open_spiel_ext.algorithms.capi import model as model_lib
from open_spiel_ext.algorithms.capi import prescriptions
from open_spiel_ext.utils import checkpoints


@dataclasses.dataclass(frozen=True)
class LogEntry:
  """One evaluation: the greedy policy's exact value and the last episode's.

  Attributes:
    episode: episodes played.
    greedy_value: exact expected return of the policy's most likely
      prescriptions.
    search_value: exact expected return of an episode without exploration:
      the best of K acquired prescriptions at every belief.
    episode_return: exact expected return of the last episode's choices
      (exploration included).
    root_q: the q* the last episode chose at the initial belief.
    value_loss: the last update's value loss.
    seconds: wall time since the start.
    seconds_by_part: where the time went: policy, acquisition, rewards,
      next beliefs, value network, training.
    distinct_next_beliefs: value-network evaluations so far.
  """
  episode: int
  greedy_value: float
  search_value: float
  episode_return: float
  root_q: float
  value_loss: float
  seconds: float
  seconds_by_part: dict[str, float]
  distinct_next_beliefs: int


class Capi:
  """A CAPI learner for one game and one seed."""

  def __init__(self, mdp: pub_mdp.PubMdp, config: config_lib.Config):
    config.validate()
    prescriptions.check_packable(mdp)
    self.mdp, self.config = mdp, config
    self.rng = np.random.default_rng(config.seed)
    self.model = model_lib.PolicyValue(mdp, config)
    self.distinct_next_beliefs = 0
    self.num_depths = _num_depths(mdp)
    self.timers = dict.fromkeys(("policy", "acquisition", "rewards",
                                 "next_beliefs", "value_network", "training"),
                                0.0)

  def _acquire(self, belief: pub_mdp.Belief, rows: list[np.ndarray],
               explore: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`prescriptions.acquire` with this learner's settings and stream."""
    return prescriptions.acquire(
        self.mdp.stages[belief.stage], belief, rows, explore,
        self.config.acquisition, self.config.num_prescriptions, self.rng)

  def _score(self, belief: pub_mdp.Belief, gamma0: np.ndarray,
             gamma1: np.ndarray, priority: np.ndarray
            ) -> prescriptions.Scored:
    """`prescriptions.score`, counting the distinct next beliefs."""
    scored = prescriptions.score(self.mdp, belief, gamma0, gamma1, priority,
                                 self.timers)
    self.distinct_next_beliefs += len(scored.keys)
    return scored

  # Episodes -----------------------------------------------------------------

  def play_episode(self, explore: bool = True) -> list[model_lib.Decision]:
    """One episode over every public branch; returns its decisions.

    The episode goes a public depth at a time: every belief of the frontier
    acquires and scores its prescriptions (and draws whether it explores,
    in the order the random stream had when beliefs were played one at a
    time), then the value network runs once on all their distinct next
    beliefs.
    """
    structured = explore and self.config.structured_exploration
    one_per_episode = explore and self.config.exploration == "one_per_episode"
    explored_depth = (int(self.rng.integers(self.num_depths))
                      if one_per_episode else -1)
    frontier = [model_lib.Decision(self.mdp.initial_belief(), 1.0)]
    decisions = []
    depth = 0
    while frontier:
      start = time.perf_counter()
      rows = self.model.row_probabilities([d.belief for d in frontier])
      self.timers["policy"] += time.perf_counter() - start
      explored = (int(self.rng.integers(len(frontier)))
                  if depth == explored_depth else -1)
      scored, played = [], []
      for index, (decision, policy_rows) in enumerate(zip(frontier, rows)):
        start = time.perf_counter()
        acquired = self._acquire(decision.belief, policy_rows, structured)
        self.timers["acquisition"] += time.perf_counter() - start
        scored.append(self._score(decision.belief, *acquired))
        if one_per_episode:
          exploring = index == explored
        else:
          exploring = explore and self.rng.random() < self.config.epsilon
        played.append(int(self.rng.integers(len(scored[-1].rewards)))
                      if exploring else None)
      start = time.perf_counter()
      values = self.model.values(np.concatenate([s.keys for s in scored]))
      self.timers["value_network"] += time.perf_counter() - start
      ends = np.cumsum([len(s.keys) for s in scored])
      next_frontier = []
      for decision, scores, next_values, exploratory in zip(
          frontier, scored, np.split(values, ends[:-1]), played):
        next_frontier += self._decide(decision, scores, next_values,
                                      exploratory)
      decisions += frontier
      frontier = next_frontier
      depth += 1
    return decisions

  def _decide(self, decision: model_lib.Decision, scored: prescriptions.Scored,
              next_values: np.ndarray, exploratory: Optional[int]
             ) -> list[model_lib.Decision]:
    """Records the best prescription and plays it, or acquired prescription
    `exploratory` if given; returns the children."""
    belief = decision.belief
    q = np.asarray(scored.rewards, np.float64)
    outcomes = scored.outcomes
    if outcomes is not None:
      q = q + np.bincount(
          outcomes.prescription,
          outcomes.probability * next_values[outcomes.key_row],
          minlength=len(q))
    ties = np.flatnonzero(q == q.max())
    best = int(ties[np.argmax(scored.priority[ties])])
    decision.q = float(q[best])
    decision.target = decision.chosen = prescriptions.full_prescription(
        belief, scored.gammas, best)
    if exploratory is not None:
      best = exploratory
      decision.chosen = prescriptions.full_prescription(belief,
                                                        scored.gammas, best)
    decision.reward = float(scored.rewards[best])
    if outcomes is None:
      return []
    played = outcomes.prescription == best
    children = []
    for chosen_a0, chosen_a1, stage in zip(outcomes.action0[played],
                                           outcomes.action1[played],
                                           outcomes.stage[played]):
      reach = (pub_mdp.next_reach(belief.reach[0], decision.chosen[0],
                                  chosen_a0),
               pub_mdp.next_reach(belief.reach[1], decision.chosen[1],
                                  chosen_a1))
      next_belief = pub_mdp.Belief(int(stage), reach)
      share = (self.mdp.joint_weights(next_belief).sum() /
               self.mdp.joint_weights(belief).sum())
      children.append(model_lib.Decision(
          next_belief, decision.probability * share, decision.depth + 1))
    return children

  # Training and evaluation --------------------------------------------------

  def train_on(self, decisions: Sequence[model_lib.Decision]) -> float:
    """`model.train_on`, timed: fits v to q* and the policy to Γ*; returns
    the value loss."""
    start = time.perf_counter()
    loss = self.model.train_on(decisions)
    self.timers["training"] += time.perf_counter() - start
    return loss

  def greedy_prescription(self, belief: pub_mdp.Belief
                         ) -> tuple[np.ndarray, np.ndarray]:
    """Each row's most likely action."""
    rows = self.model.row_probabilities([belief])[0]
    return rows[0].argmax(-1), rows[1].argmax(-1)

  def greedy_value(self) -> float:
    return pub_mdp.evaluate_policy(self.mdp, self.greedy_prescription)


def _num_depths(mdp: pub_mdp.PubMdp) -> int:
  """How many public depths (decisions in a row) the game can last."""
  depth, level = 0, [0]
  while level:
    depth += 1
    level = [int(child) for stage in level
             for child in mdp.stages[stage].children.ravel() if child >= 0]
  return depth


def _expected_return(decisions: Sequence[model_lib.Decision]) -> float:
  """An episode's exact expected return: it expanded every public branch."""
  return sum(d.probability * d.reward for d in decisions)


def train(mdp: pub_mdp.PubMdp, config: config_lib.Config,
          checkpoint_path: Optional[str] = None) -> Iterator[LogEntry]:
  """Runs CAPI; yields a log entry every `eval_every` episodes and at the
  end.

  With `checkpoint_path` the learner (networks, tabular policy, random state,
  log so far) is saved there at every evaluation, with the game and the
  config (`run_record`), and a run whose checkpoint exists resumes from it:
  it yields its earlier entries again, then goes on exactly as the
  uninterrupted run would. A checkpoint of another game or config is
  refused (ValueError, naming what differs).
  """
  learner = Capi(mdp, config)
  record = run_record(mdp, config)
  log, done, seconds = [], 0, 0.0
  if checkpoint_path and os.path.exists(checkpoint_path):
    log, done, seconds = _restore(learner, checkpoint_path, record)
    yield from log
  start = time.perf_counter() - seconds
  for episode in range(done + 1, config.episodes + 1):
    decisions = learner.play_episode()
    loss = learner.train_on(decisions)
    if episode % config.eval_every == 0 or episode == config.episodes:
      log.append(LogEntry(
          episode=episode, greedy_value=float(learner.greedy_value()),
          search_value=float(_expected_return(
              learner.play_episode(explore=False))),
          episode_return=float(_expected_return(decisions)),
          root_q=decisions[0].q, value_loss=float(loss),
          seconds=time.perf_counter() - start,
          seconds_by_part=dict(learner.timers),
          distinct_next_beliefs=learner.distinct_next_beliefs))
      if checkpoint_path:
        _save(learner, checkpoint_path, log, record)
      yield log[-1]


def run_record(mdp: pub_mdp.PubMdp,
               config: config_lib.Config) -> dict[str, Any]:
  """What a run's checkpoint is saved with and must match to resume: the
  game and the config."""
  return {"game": str(mdp.game), **dataclasses.asdict(config)}


def _save(learner: Capi, path: str, log: list[LogEntry],
          record: dict[str, Any]) -> None:
  """Checkpoints the learner after the last logged episode."""
  checkpoints.save(
      path, learner.model.train_state, record, step=log[-1].episode,
      extra={"log": [dataclasses.asdict(e) for e in log],
             # Kept out of the (JAX, float32) tree: float64, exactly.
             "table": getattr(learner.model, "table", None),
             "rng": learner.rng.bit_generator.state,
             "timers": dict(learner.timers),
             "distinct_next_beliefs": learner.distinct_next_beliefs})


def _restore(learner: Capi, path: str, record: dict[str, Any]
            ) -> tuple[list[LogEntry], int, float]:
  """Loads a checkpoint into the learner; returns (its log, episodes done,
  seconds spent)."""
  saved = checkpoints.restore(path, record)
  learner.model.train_state = saved.tree
  if saved.extra["table"] is not None:
    learner.model.table = saved.extra["table"]
  learner.rng.bit_generator.state = saved.extra["rng"]
  learner.timers = dict(saved.extra["timers"])
  learner.distinct_next_beliefs = saved.extra["distinct_next_beliefs"]
  log = [LogEntry(**e) for e in saved.extra["log"]]
  return log, saved.step, log[-1].seconds
