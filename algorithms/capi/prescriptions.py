"""CAPI's prescriptions at one belief: the K it acquires from the policy's
rows (samples, or the K most likely), and their scores but for the values of
the next beliefs (expected immediate rewards, the distinct next beliefs and
the public outcomes leading to them).

A next belief is packed into one integer key (the stage, then each player's
reach bits), so beliefs must fit in 62 bits (`check_packable`).
"""

import dataclasses
import math
import time
from typing import NamedTuple, Optional, Sequence

import numpy as np

from open_spiel_ext.algorithms import pub_mdp

# Reach masks are summed as float64 bits (`action_masks`): exact to 2**53.
MAX_PRIVATE = 52


def check_packable(mdp: pub_mdp.PubMdp) -> None:
  """Raises ValueError if the game's beliefs do not pack into 62 bits."""
  if (sum(mdp.num_private) + len(mdp.stages).bit_length() > 62 or
      max(mdp.num_private) > MAX_PRIVATE):
    raise ValueError(f"{mdp.game}: beliefs do not pack into 62 bits with "
                     f"at most {MAX_PRIVATE} private states a player "
                     f"(it has {mdp.num_private})")


class Outcomes(NamedTuple):
  """The public outcomes of positive probability that continue the game,
  one entry each, over all K prescriptions."""
  prescription: np.ndarray  # k.
  action0: np.ndarray
  action1: np.ndarray
  stage: np.ndarray  # The next stage.
  probability: np.ndarray
  key_row: np.ndarray  # The next belief's row in `Scored.keys`.


@dataclasses.dataclass
class Scored:
  """A decision's K acquired prescriptions, scored but for the values of the
  next beliefs (valued a frontier at a time).

  Attributes:
    gammas: (Γ0, Γ1) on the belief's support (see `acquire`).
    rewards: [K] expected immediate rewards.
    keys: [U, 3] the distinct next beliefs (stage, reach bits of player 0,
      of player 1).
    priority: [K] breaks ties between prescriptions of the same q (from
      the acquisition).
    outcomes: the continuing outcomes, or None where every outcome ends the
      game.
  """
  gammas: tuple[np.ndarray, np.ndarray]
  rewards: np.ndarray
  keys: np.ndarray
  priority: np.ndarray
  outcomes: Optional[Outcomes]


def acquire(stage: pub_mdp.Stage, belief: pub_mdp.Belief,
            rows: list[np.ndarray], explore: bool, acquisition: str, k: int,
            rng: np.random.Generator
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
  """K joint prescriptions on the belief's support and a priority [K]
  that breaks ties between equally good ones (the likelier, or the first
  sampled). With `explore`, one random row of an acting player's support is
  made uniform first (structured exploration).

  Returns:
    (Γ0 [K, |support0|], Γ1 [K, |support1|], priority): each player's
    local action in each private state its reach allows (the other private
    states change nothing); a player who does not act has action 0 (a
    broadcast view).
  """
  supports = [np.flatnonzero(r) for r in belief.reach]
  supported = [(p, x) for p in stage.actors for x in supports[p]]
  rows = [r.copy() for r in rows]
  if explore and supported:
    p, x = supported[rng.integers(len(supported))]
    rows[p][x] = 1 / rows[p].shape[1]
  if acquisition == "sample":
    chosen = {p: sample_rows(rng, rows[p][supports[p]], k).T
              for p in stage.actors}
    priority = -np.arange(k, dtype=np.float64)
  else:
    # A tiny random jitter breaks ties (a uniform row has many) at random
    # rather than in the order of argpartition.
    log_rows = [np.log(np.maximum(rows[p][supports[p]], 1e-30)) +
                rng.uniform(0, 1e-9, rows[p][supports[p]].shape)
                for p in stage.actors]
    choices, priority = most_likely(
        [row for player_rows in log_rows for row in player_rows], k)
    ends = np.cumsum([len(supports[p]) for p in stage.actors])
    chosen = dict(zip(stage.actors, np.split(choices, ends[:-1], axis=1)))
    k = len(choices)
  gammas = [chosen[p] if p in chosen else
            np.broadcast_to(np.zeros(1, np.int64), (k, len(supports[p])))
            for p in range(2)]
  return gammas[0], gammas[1], priority


def acquired_bytes(mdp: pub_mdp.PubMdp, acquisition: str, k: int) -> int:
  """A lower bound of the bytes CAPI allocates at once at the first
  decision: the prescriptions `acquire` returns, K of them (with
  "most_likely", at most as many as there are), each an int64 local action
  per private state of an acting player on the initial belief's support,
  and, while they are held, `score`'s float64 probability of each joint
  action under each prescription (where the stage goes on)."""
  belief = mdp.initial_belief()
  stage = mdp.stages[belief.stage]
  widths = [stage.num_actions(p) for p in stage.actors
            for _ in np.flatnonzero(belief.reach[p])]
  if acquisition == "most_likely":
    k = min(k, math.prod(widths))
  outcomes = 0 if stage.terminal_only else (
      stage.num_actions(0) * stage.num_actions(1) *
      np.dtype(np.float64).itemsize)
  return k * (len(widths) * np.dtype(np.int64).itemsize + outcomes)


def sample_rows(rng: np.random.Generator, probabilities: np.ndarray,
                k: int) -> np.ndarray:
  """[rows, k] independent draws from each row's distribution: multinomial
  counts, spelled out, then shuffled within the row (about twice as fast as
  inverse-CDF sampling for k in the thousands)."""
  probabilities = probabilities / probabilities.sum(-1, keepdims=True)
  counts = rng.multinomial(k, probabilities)
  num_rows, width = probabilities.shape
  ordered = np.repeat(np.tile(np.arange(width), num_rows), counts.ravel())
  return rng.permuted(ordered.reshape(num_rows, k), axis=1)


def most_likely(log_probs: Sequence[np.ndarray], k: int
                ) -> tuple[np.ndarray, np.ndarray]:
  """The k most likely joint choices of independent rows, in no order.

  Keeps the k best partial assignments row by row, which is exact: the
  prefix of any of the k best full assignments is among the k best prefixes.

  Returns:
    ([min(k, total), rows] the chosen index in each row, [min(k, total)]
    their summed log-probabilities).
  """
  scores = np.zeros(1)
  links = []  # Per row: (index of the kept prefix extended, action taken).
  for row in log_probs:
    combined = (scores[:, None] + row[None, :]).ravel()
    best = (np.argpartition(combined, len(combined) - k)[-k:]
            if len(combined) > k else np.arange(len(combined)))
    links.append(np.divmod(best, len(row)))
    scores = combined[best]
  kept = np.arange(len(scores))
  choices = np.zeros((len(kept), len(links)), np.int64)
  for column in range(len(links) - 1, -1, -1):
    parent, action = links[column]
    choices[:, column] = action[kept]
    kept = parent[kept]
  return choices, scores



def score(mdp: pub_mdp.PubMdp, belief: pub_mdp.Belief, gamma0: np.ndarray,
          gamma1: np.ndarray, priority: np.ndarray,
          timers: dict[str, float]) -> Scored:
  """Immediate rewards and the distinct next beliefs of K prescriptions
  (given on the belief's support, as `acquire` returns them); adds the
  seconds taken to timers["rewards"] and timers["next_beliefs"]."""
  stage = mdp.stages[belief.stage]
  support = [np.flatnonzero(r) for r in belief.reach]
  weights = mdp.joint_weights(belief)[np.ix_(*support)]
  weights = weights / weights.sum()
  sub = (gamma0, gamma1)
  start = time.perf_counter()
  table = mdp.reward_tables[stage.reward_table][np.ix_(*support)]
  rewards = pub_mdp.expected_rewards(weights, table, *sub)
  timers["rewards"] += time.perf_counter() - start
  if stage.terminal_only:
    return Scored(sub, rewards, np.zeros((0, 3), np.int64), priority, None)
  start = time.perf_counter()
  probabilities = pub_mdp.outcome_probabilities(
      weights, *sub, stage.num_actions(0), stage.num_actions(1))
  continuing = stage.children >= 0
  k, a0, a1 = np.nonzero((probabilities > 0) & continuing)
  # A next belief here is a small integer: the continuing outcome (numbered
  # 0, 1, ...), then the reach bits of each acting player numbered along
  # its support (a player with one action keeps its whole support).
  outcome = (np.cumsum(continuing) - 1).reshape(continuing.shape)[a0, a1]
  w0, w1 = widths = [len(s) if stage.num_actions(p) > 1 else 0
                     for p, s in enumerate(support)]
  bits = [action_masks(g, np.arange(w), stage.num_actions(p))[k, a]
          if w else 0
          for p, (g, a, w) in enumerate(zip(sub, (a0, a1), widths))]
  packed = (outcome << (w0 + w1)) | (bits[0] << w1) | bits[1]
  distinct, inverse = _distinct(packed,
                                int(continuing.sum()) << (w0 + w1))
  compact = ((distinct >> w1) & ((1 << w0) - 1), distinct & ((1 << w1) - 1))
  keys = np.stack([stage.children[continuing][distinct >> (w0 + w1)]] + [
      _spread_bits(c, s) if w else
      np.full(len(distinct), np.sum(np.int64(1) << s))
      for c, s, w in zip(compact, support, widths)], axis=1)
  timers["next_beliefs"] += time.perf_counter() - start
  return Scored(sub, rewards, keys, priority,
                Outcomes(k, a0, a1, stage.children[a0, a1],
                         probabilities[k, a0, a1], inverse))


def action_masks(gamma: np.ndarray, privates: np.ndarray,
                 num_actions: int) -> np.ndarray:
  """[K, A] bit masks: bit x of [k, a] is set when Γ_k sends private state
  privates[i] = x to action a (gamma is [K, len(privates)]). The bits are
  summed as float64, exact up to `MAX_PRIVATE` private states."""
  return pub_mdp.action_totals(2.0**privates, gamma,
                               num_actions).astype(np.int64)


def full_prescription(belief: pub_mdp.Belief,
                      gammas: tuple[np.ndarray, np.ndarray], index: int
                     ) -> tuple[np.ndarray, np.ndarray]:
  """Acquired prescription `index` (gammas on the belief's support) over
  every private state: (Γ0 [n0], Γ1 [n1]), action 0 off the support."""
  full = []
  for reach, gamma in zip(belief.reach, gammas):
    row = np.zeros(len(reach), np.int64)
    row[np.flatnonzero(reach)] = gamma[index]
    full.append(row)
  return full[0], full[1]


def _distinct(values: np.ndarray, bound: int
             ) -> tuple[np.ndarray, np.ndarray]:
  """np.unique(values, return_inverse=True) for integers in [0, bound):
  by counting, without a sort, when the bound is small."""
  if bound > max(1 << 16, 4 * len(values)):
    distinct, inverse = np.unique(values, return_inverse=True)
    return distinct, inverse.ravel()
  present = np.bincount(values, minlength=bound) > 0
  return np.flatnonzero(present), (np.cumsum(present) - 1)[values]


def _spread_bits(compact: np.ndarray, positions: np.ndarray) -> np.ndarray:
  """Moves bit i of each compact mask to bit positions[i]."""
  bits = (compact[:, None] >> np.arange(len(positions))) & 1
  return (bits << positions).sum(-1)
