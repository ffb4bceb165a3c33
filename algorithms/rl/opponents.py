"""Fixed opponents a learner plays against, as pure JAX functions.

An `Opponent` acts in a batch of games from each game's information-state
tensor and legal mask: `act(params, observation, mask, member, key)`.
`params` is a pytree passed at every call (a new opponent of the same kind
and shape does not recompile anything) and `member` is, per game, which
member of a mixture plays it: a mixture of population members with weights
(what PSRO's meta-strategy is) draws one member per game when the game
starts and lets it play the whole game, which is exactly playing the mixed
strategy.

Kinds:
  `uniform()`: uniformly random legal actions.
  `network(apply_fn, params)`: softmax of a network's logits over the legal
    actions; `network(apply_fn, stacked_params, weights)` for a mixture of
    networks of one architecture (parameters stacked on a leading axis).
  `tabular(tree, policy, weights)`: a policy array of the tree engine
    ([infosets, actions], or [members, infosets, actions] with weights),
    looked up by information-state tensor; it needs tensors of 0s and 1s
    (poker's are), which are packed into one integer key per information
    state.
  `from_openspiel(policy, tree)`: any OpenSpiel `Policy` of a tree-walkable
    game, tabulated once.
  `from_spec(spec, game)`: one of these named on a command line.

For engines with continuous actions (`continuous=True`; their `mask` is only
[B, dims] of liveness): `uniform_continuous()`, uniform in [−1, 1]^dims, and
`deterministic(apply_fn, params, weights)`, networks whose output is the
action (PPO's played continuous policy), mixed like `network`'s. They have
no tree, so their `members_table` refuses.
"""

import hashlib
import os
from typing import Any, Callable, NamedTuple, Optional, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from open_spiel.python import policy as policy_lib
from open_spiel_ext.algorithms.nn import masking
from open_spiel_ext.algorithms.rl import network_policies
from open_spiel_ext.algorithms.tree import cfr
from open_spiel_ext.algorithms.tree import game_tree as game_tree_lib
from open_spiel_ext.algorithms.tree import policies as tree_policies
from open_spiel_ext.algorithms.tree import sweeps as sweeps_lib
from open_spiel_ext.utils import reporting
import pyspiel

ActFn = Callable[[Any, jax.Array, jax.Array, jax.Array, jax.Array], jax.Array]


class Opponent(NamedTuple):
  """A fixed policy for a batch of games (see the module docstring).

  Attributes:
    act: (params, observation [B, *], mask [B, A], member [B], key) ->
      actions [B]; the same function object for opponents of one kind.
    params: its pytree of parameters.
    weights: [members] the mixture's weights ([1.0] if not a mixture).
    members_table: (tree, clones) -> [members, infosets, actions] each
      member's policy as policy arrays of the tree engine; for clones of a
      game (clones > 1, such as m-Clone Leduc) the tree is that game's and
      the policies are collapsed onto it (`network_policies.collapse_clones`).
  """
  act: ActFn
  params: Any
  weights: jax.Array
  members_table: Callable[[game_tree_lib.GameTree, int], np.ndarray]

  def draw_members(self, key: jax.Array, batch: int) -> jax.Array:
    """[batch] a member per game, drawn by the mixture's weights."""
    return jax.random.choice(key, len(self.weights), (batch,), p=self.weights)


def fingerprint(opponent: Opponent) -> str:
  """A digest of the opponent's parameters and weights: names this very
  policy, so that a checkpoint or a record is never resumed against
  another."""
  digest = hashlib.sha256()
  for leaf in jax.tree.leaves((opponent.params, opponent.weights)):
    digest.update(np.asarray(leaf).tobytes())
  return digest.hexdigest()[:16]


def _check_weights(weights: Optional[Sequence[float]],
                   members: int) -> jax.Array:
  weights = np.ones(1) if weights is None else np.asarray(weights, np.float64)
  if weights.shape != (members,) or (weights < 0).any() or not np.isclose(
      weights.sum(), 1.0):
    raise ValueError(f"mixture weights must be {members} non-negative numbers "
                     f"summing to 1, got weights={weights.tolist()}")
  return jnp.asarray(weights, jnp.float32)


def _uniform_act(params, observation, mask, member, key):
  del params, observation, member
  return masking.masked_sample(key, jnp.zeros(mask.shape), mask)


def _uniform_table(tree: game_tree_lib.GameTree, clones: int) -> np.ndarray:
  del clones  # Collapsed, a uniform cloned policy is uniform.
  return tree_policies.uniform(tree.legal)[None]


def uniform() -> Opponent:
  """Uniformly random legal actions."""
  return Opponent(_uniform_act, (), jnp.ones(1), _uniform_table)


def _members_outputs(apply_fn: Callable[[Any, jax.Array], jax.Array],
                     params: Any, observation: jax.Array, member: jax.Array,
                     shape: tuple[int, ...]) -> jax.Array:
  """[B, outputs] (`shape`) each game's own member's network output. The
  members run one after another on the whole batch, each only if it plays
  some game: a vmap over the members' parameters would run the weightless
  padding members too, and it turns convolutions into grouped ones, which
  XLA runs about 50× slower on CPU (8 Stratego networks at batch 128: 0.40 s
  vmapped, 0.06 s one after another, 0.016 s when 2 of them play)."""

  def add_member(outputs, index):
    playing = member == index

    def run(outputs):
      own = apply_fn(jax.tree.map(lambda x: jnp.asarray(x)[index], params),
                     observation)
      return jnp.where(playing[:, None], own, outputs)

    return jax.lax.cond(playing.any(), run, lambda o: o, outputs), None

  members = jax.tree.leaves(params)[0].shape[0]
  return jax.lax.scan(add_member, jnp.zeros(shape, jnp.float32),
                      jnp.arange(members))[0]


def network(apply_fn: Callable[[Any, jax.Array], jax.Array], params: Any,
            weights: Optional[Sequence[float]] = None) -> Opponent:
  """A network's policy; with `weights`, a mixture of networks whose
  parameters are stacked on a leading axis (one entry per member)."""
  stacked = params if weights is not None else jax.tree.map(
      lambda x: x[None], params)
  weights = _check_weights(weights, 1 if weights is None else len(weights))

  def act(params, observation, mask, member, key):
    logits = _members_outputs(apply_fn, params, observation, member,
                              mask.shape)
    return masking.masked_sample(key, logits, mask)

  def members_table(tree, clones):
    tensors = network_policies.infoset_tensors(tree)
    legal = np.tile(tree.legal, clones)
    members = [
        masking.masked_softmax(
            np.asarray(apply_fn(jax.tree.map(lambda x: x[m], stacked),
                                tensors), np.float64), legal)
        for m in range(len(weights))]
    return network_policies.collapse_clones(np.stack(members), clones) if (
        clones > 1) else np.stack(members)

  return Opponent(_memoized(("network", apply_fn), act), stacked, weights,
                  members_table)


def anchored(anchors: Sequence[Opponent], networks: Opponent,
             weights: Sequence[float]) -> Opponent:
  """A mixture whose first members are `anchors`, single policies of other
  kinds (say a game's scripted bots) that a population keeps fixed, and
  whose other members are those of `networks` (a mixture of networks),
  mixed by `weights` (the anchors', then the networks'). Its parameters are
  (the anchors' parameters, the networks').

  Raises:
    ValueError: an anchor is itself a mixture, or bad weights.
  """
  if any(len(anchor.weights) != 1 for anchor in anchors):
    raise ValueError("each anchor must be a single policy, got mixtures of "
                     f"{[len(anchor.weights) for anchor in anchors]} members")
  count = len(anchors)
  acts = tuple(anchor.act for anchor in anchors)

  def act(params, observation, mask, member, key):
    anchor_params, network_params = params
    keys = jax.random.split(key, count + 1)
    # Games an anchor plays get no network member (index below 0).
    actions = networks.act(network_params, observation, mask, member - count,
                           keys[0])
    for index, (anchor_act, own) in enumerate(zip(acts, anchor_params)):
      playing = member == index

      def play(actions, anchor_act=anchor_act, own=own, index=index,
               playing=playing):
        anchors_actions = anchor_act(own, observation, mask,
                                     jnp.zeros_like(member), keys[index + 1])
        return jnp.where(playing.reshape(playing.shape + (1,) * (
            actions.ndim - 1)), anchors_actions, actions)

      actions = jax.lax.cond(playing.any(), play, lambda a: a, actions)
    return actions

  def members_table(tree, clones):
    return np.concatenate([anchor.members_table(tree, clones)
                           for anchor in anchors] +
                          [networks.members_table(tree, clones)])

  weights = _check_weights(weights, count + len(networks.weights))
  return Opponent(_memoized(("anchored", acts, networks.act), act),
                  (tuple(anchor.params for anchor in anchors),
                   networks.params), weights, members_table)


def no_tree_table(tree: game_tree_lib.GameTree, clones: int) -> np.ndarray:
  """The `members_table` of policies without one (continuous actions)."""
  del tree, clones
  raise ValueError("a continuous-action policy has no policy array on a "
                   "game tree")


def _uniform_continuous_act(params, observation, mask, member, key):
  del params, observation, member
  return jax.random.uniform(key, mask.shape, minval=-1.0, maxval=1.0)


def uniform_continuous() -> Opponent:
  """Uniformly random continuous actions in [−1, 1]^dims."""
  return Opponent(_uniform_continuous_act, (), jnp.ones(1), no_tree_table)


def uniform_for(env: Any) -> Opponent:
  """Uniform play on `env`, continuous or not."""
  return uniform_continuous() if getattr(env, "continuous", False) else (
      uniform())


def deterministic(apply_fn: Callable[[Any, jax.Array], jax.Array],
                  params: Any,
                  weights: Optional[Sequence[float]] = None) -> Opponent:
  """A network whose output is its continuous action; with `weights`, a
  mixture of such networks (parameters stacked on a leading axis)."""
  stacked = params if weights is not None else jax.tree.map(
      lambda x: x[None], params)
  weights = _check_weights(weights, 1 if weights is None else len(weights))

  def act(params, observation, mask, member, key):
    del key
    return _members_outputs(apply_fn, params, observation, member,
                            mask.shape)

  return Opponent(_memoized(("deterministic", apply_fn), act), stacked,
                  weights, no_tree_table)


def of_networks(apply_fn: Callable[[Any, jax.Array], jax.Array], params: Any,
                weights: Optional[Sequence[float]] = None,
                continuous: bool = False) -> Opponent:
  """`network` (logits) or, with `continuous`, `deterministic` (actions)."""
  return (deterministic if continuous else network)(apply_fn, params, weights)


_ACT_FNS: dict[Any, ActFn] = {}


def _memoized(key: Any, act: ActFn) -> ActFn:
  """One act function per kind (and network function), so that jitted code
  taking opponents of the same kind compiles once."""
  return _ACT_FNS.setdefault(key, act)


def _packed_keys(tensors: np.ndarray, multipliers: np.ndarray) -> np.ndarray:
  """One uint32 key per binary tensor: its 31-bit words mixed by odd
  multipliers (arithmetic mod 2^32)."""
  bits = tensors.reshape(len(tensors), -1).astype(np.uint64)
  width = bits.shape[1]
  words = -(-width // 31)
  padded = np.zeros((len(bits), words * 31), np.uint64)
  padded[:, :width] = bits
  values = (padded.reshape(len(bits), words, 31) <<
            np.arange(31, dtype=np.uint64)).sum(-1)
  return ((values * multipliers) % 2**32).sum(-1) % 2**32


class TensorIndex(NamedTuple):
  """Finds the row of a tree's information state from its tensor (of 0s and
  1s), by one packed integer key per state, inside jitted code."""
  multipliers: jax.Array  # [words] uint32.
  keys: jax.Array  # [infosets] uint32, sorted.
  order: np.ndarray  # [infosets] the tree's information state of each key.

  def rows(self, observation: jax.Array) -> jax.Array:
    """[B] the position in `keys` of each observation's state."""
    bits = observation.reshape(observation.shape[0], -1).astype(jnp.uint32)
    width = bits.shape[1]
    words = self.multipliers.shape[0]
    bits = jnp.pad(bits, ((0, 0), (0, words * 31 - width)))
    values = (bits.reshape(-1, words, 31) <<
              jnp.arange(31, dtype=jnp.uint32)).sum(-1, dtype=jnp.uint32)
    keys = (values * self.multipliers).sum(-1, dtype=jnp.uint32)
    return jnp.searchsorted(self.keys, keys)


def tensor_index(tree: game_tree_lib.GameTree) -> TensorIndex:
  """The `TensorIndex` of a tree whose information-state tensors are 0s and
  1s (poker's are)."""
  tensors = network_policies.infoset_tensors(tree)
  if not np.isin(tensors, (0, 1)).all():
    raise ValueError(f"{tree.game}: tabular policies need information-state "
                     "tensors of 0s and 1s; play this game through "
                     "PyspielVectorEnv with an OpenSpiel policy instead")
  words = -(-tensors[0].size // 31)
  rng = np.random.RandomState(0)
  for _ in range(100):  # Odd multipliers until no two states share a key.
    multipliers = rng.randint(0, 2**31, words).astype(np.uint64) * 2 + 1
    keys = _packed_keys(tensors, multipliers)
    if len(np.unique(keys)) == len(keys):
      break
  else:
    raise ValueError(f"{tree.game}: no collision-free key for its "
                     "information states")
  order = np.argsort(keys)
  return TensorIndex(jnp.asarray(multipliers.astype(np.uint32)),
                     jnp.asarray(keys[order].astype(np.uint32)), order)


class _Table(NamedTuple):
  index: TensorIndex
  rows: jax.Array  # [members, infosets, actions] probabilities, key order.


def _tabular_act(table: _Table, observation, mask, member, key):
  probabilities = table.rows[member, table.index.rows(observation)]
  return masking.masked_sample(key, jnp.log(probabilities), mask)


def tabular(tree: game_tree_lib.GameTree, policy: np.ndarray,
            weights: Optional[Sequence[float]] = None) -> Opponent:
  """A policy array of `tree` ([infosets, actions]), or with `weights` a
  mixture of such arrays ([members, infosets, actions])."""
  policy = np.asarray(policy, np.float64)
  stacked = policy if weights is not None else policy[None]
  weights = _check_weights(weights, len(stacked))
  if stacked.shape[1:] != tree.legal.shape:
    raise ValueError(f"a policy of this tree has shape {tree.legal.shape}, "
                     f"got {policy.shape}")
  index = tensor_index(tree)
  table = _Table(index._replace(order=None),
                 jnp.asarray(stacked[:, index.order], jnp.float32))

  def members_table(other_tree, clones):
    if clones != 1 or other_tree.legal.shape != tree.legal.shape:
      raise ValueError(f"a tabular opponent of {tree.game} cannot be "
                       f"evaluated on {other_tree.game} with clones={clones}")
    return stacked

  return Opponent(_tabular_act, table, weights, members_table)


def from_openspiel(policy: policy_lib.Policy,
                   tree: game_tree_lib.GameTree) -> Opponent:
  """An OpenSpiel policy of the tree's game, tabulated once."""
  if str(policy.game) != str(tree.game):
    raise ValueError(f"the opponent policy is for {policy.game}, not for "
                     f"{tree.game}")
  states = [tree.state(node) for node in tree.infoset_node]
  table = np.zeros(tree.legal.shape)
  for row, (state, player) in enumerate(zip(states, tree.infoset_player)):
    for action, probability in policy.action_probabilities(state,
                                                           player).items():
      table[row, action] = probability
  return tabular(tree, table)


CFR_PREFIX = "cfr+:"


def from_spec(spec: str, game: pyspiel.Game) -> Opponent:
  """The opponent a command line names: "uniform"; "cfr+:N", the average
  policy of N CFR+ iterations (tree engine); or the path of a policy.json
  written by an example (`reporting.save_policy`).

  Raises:
    ValueError: a bad spec, or a policy file of another game.
  """
  if spec == "uniform":
    return uniform()
  tree = game_tree_lib.build_tree(game)
  if spec.startswith(CFR_PREFIX):
    iterations = spec[len(CFR_PREFIX):]
    if not iterations.isdigit() or int(iterations) < 1:
      raise ValueError(f"cfr+:N needs a number of iterations N >= 1, got "
                       f"{spec!r}")
    solver = cfr.CFRSolver(sweeps_lib.TreeSweeps(tree), "cfr+")
    solver.run(int(iterations))
    return tabular(tree, solver.average_policy())
  if not os.path.exists(spec):
    raise ValueError(f"an opponent is 'uniform', 'cfr+:N' or a policy.json "
                     f"file; got {spec!r}, which is none of these")
  return from_openspiel(reporting.load_policy(spec, game), tree)
