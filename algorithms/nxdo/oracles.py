"""NXDO's best-response oracles: respond(opponent, iteration, directory)
-> Response, the new population member.

`ExactOracle` gives exact best responses from the tree engine as tabular
members (`TabularMembers`); `LearnedOracle` trains one network for both seats
until its return plateaus.
"""

import dataclasses
import functools
import os
from typing import Any, NamedTuple, Optional

import jax
import jax.numpy as jnp
import numpy as np

from open_spiel_ext.algorithms.nn import masking
from open_spiel_ext.algorithms.rl import best_response
from open_spiel_ext.algorithms.rl import evaluation
from open_spiel_ext.algorithms.rl import learner as learner_lib
from open_spiel_ext.algorithms.rl import opponents as opponents_lib
from open_spiel_ext.algorithms.rl import versus as versus_lib
from open_spiel_ext.algorithms.tree import game_tree as game_tree_lib
import pyspiel


class TabularMembers:
  """Policy arrays of a tree as population members (or any table by
  information state): a member's parameters are its log-probabilities in
  the order of `opponents.tensor_index`, and `apply` looks them up by
  information-state tensor (0s and 1s). For a game that copies the tree's
  game's actions `clones` times (m-Clone Leduc on Leduc's tree), `apply`
  spreads each action's probability evenly over its copies."""

  def __init__(self, tree: game_tree_lib.GameTree, clones: int = 1):
    self.tree = tree
    self.clones = clones
    self.index = opponents_lib.tensor_index(tree)

  def params(self, policy: np.ndarray) -> jax.Array:
    """[infosets, actions] a policy array of the tree -> parameters."""
    return jnp.asarray(np.log(np.maximum(policy[self.index.order], 1e-30)),
                       jnp.float32)

  def policy(self, params: jax.Array) -> np.ndarray:
    """Parameters -> the policy array (of the tree's order)."""
    policy = np.zeros(params.shape)
    policy[self.index.order] = masking.masked_softmax(
        np.asarray(params, np.float64), np.ones(params.shape, bool))
    return policy

  def apply(self, params: jax.Array, observation: jax.Array) -> jax.Array:
    logits = params[self.index.rows(observation)]
    if self.clones == 1:
      return logits
    return jnp.tile(logits, self.clones) - jnp.log(float(self.clones))


class Response(NamedTuple):
  params: Any  # The new member.
  episodes: int  # Games the oracle played to find it.
  mean_return: float  # Its mean return against the opponent at the end.


class ExactOracle:
  """Exact best responses of both seats from the tree engine, as one pure
  tabular member (on the base game's tree for a game of cloned actions,
  each action's copies played evenly)."""

  def __init__(self, game: pyspiel.Game):
    exact = evaluation.OpponentExploitability(game)
    self.sweeps, self.clones = exact.sweeps, exact.clones
    self.members = TabularMembers(self.sweeps.tree, self.clones)
    self.apply = self.members.apply
    self.record = "exact"

  def respond(self, opponent: opponents_lib.Opponent, iteration: int,
              directory: Optional[str] = None) -> Response:
    del iteration, directory  # Deterministic, nothing to checkpoint.
    tree = self.sweeps.tree
    policy = evaluation.opponent_policy(self.sweeps, self.clones, opponent)
    pure = np.zeros(tree.legal.shape)
    values = []
    for player in (0, 1):
      value, actions = self.sweeps.best_response(policy, player)
      rows = np.flatnonzero(tree.infoset_player == player)
      pure[rows, actions[rows]] = 1.0
      values.append(value)
    return Response(self.members.params(pure), 0, float(np.mean(values)))


@dataclasses.dataclass(frozen=True)
class LearnedOracle:
  """Best responses trained by `train_best_response` (both seats, one
  network) until their return plateaus: checked every `check_steps` batched
  steps, stopped once it rises by less than `min_gain`, or at `max_steps`
  (the reference: every 20,000 episodes, 0.01, at most 100,000 episodes)."""
  env: Any  # A JAX engine of the original game, auto-reset.
  config: best_response.AnyConfig
  check_steps: int = 500
  max_steps: int = 2_500
  min_gain: float = 0.01
  num_envs: int = 64
  seed: int = 0

  def __post_init__(self):
    learner_lib.check_positive(self, "check_steps", "max_steps", "num_envs")

  @property
  def record(self) -> str:
    """Its settings, as checkpoints compare them."""
    return repr({field.name: getattr(self, field.name)
                 for field in dataclasses.fields(self) if field.name != "env"})

  @functools.cached_property
  def apply(self) -> learner_lib.LogitsFn:
    """The members' logits function (one architecture for all)."""
    versus = versus_lib.VersusEnv(self.env, opponents_lib.uniform())
    learner = best_response.make_learner(self.config, versus, self.num_envs)
    return learner.played(learner.init(jax.random.PRNGKey(0))).apply

  def respond(self, opponent: opponents_lib.Opponent, iteration: int,
              directory: Optional[str] = None) -> Response:
    policy, log = best_response.train_best_response(
        self.env, opponent, self.config, steps=self.max_steps,
        num_envs=self.num_envs, eval_every=self.check_steps,
        seed=iteration_seed(self.seed, iteration),
        checkpoint_path=directory and os.path.join(directory, "oracle.ckpt"),
        stop=best_response.plateaued(self.min_gain))
    return Response(policy.params, log[-1].episodes, log[-1].mean_return)


def iteration_seed(seed: int, iteration: int) -> int:
  """A distinct seed per iteration of a run (-1: the first response)."""
  return int(np.random.SeedSequence([seed, iteration + 1]).generate_state(1)[0]
             % 2**31)
