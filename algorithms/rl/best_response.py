"""Learned best responses to a fixed opponent, measured exactly where the
game's tree fits.

`train_best_response(env, opponent, config, steps=...)` trains the learner
that `config` names (a `dqn.Config`, `ppo.Config` or `sac.Config`) against
`opponent` (any `Opponent`: uniform, a network, a policy array, an OpenSpiel
policy, or a weighted mixture of population members) on a JAX engine of the
batched-environment contract (or any pyspiel game through
`PyspielVectorEnv`), and returns the learned policy and a log.

By default one network plays both seats, alternating over the batch, and
tells them apart by the information-state tensor: the symmetric mode of
P2SRO. Poker's tensors (Kuhn, Leduc, m-Clone Leduc) name the player; for a
game whose tensors do not, train `seats=0` and `seats=1` apart.

`evaluation.ExactEvaluator` measures the learned policy exactly on
tree-sized games. A run evaluates every `eval_every` steps and checkpoints
after each evaluation; rerunning with the same checkpoint path and settings
resumes it and ends with the same parameters as a run that was never
interrupted.
"""

import dataclasses
from typing import Any, Callable, Optional, Union

import jax
import jax.numpy as jnp

from open_spiel_ext.algorithms.rl import dqn
from open_spiel_ext.algorithms.rl import evaluation
from open_spiel_ext.algorithms.rl import learner as learner_lib
from open_spiel_ext.algorithms.rl import opponents as opponents_lib
from open_spiel_ext.algorithms.rl import ppo
from open_spiel_ext.algorithms.rl import sac
from open_spiel_ext.algorithms.rl import versus as versus_lib
from open_spiel_ext.games import batched
from open_spiel_ext.utils import checkpoints
from open_spiel_ext.utils import memory

AnyConfig = Union[dqn.Config, ppo.Config, sac.Config]
LEARNERS = {dqn.Config: dqn.DQN, ppo.Config: ppo.PPO, sac.Config: sac.SAC}


def make_learner(config: AnyConfig, versus: versus_lib.VersusEnv,
                 batch: int) -> learner_lib.Learner:
  """The learner `config` configures, sized for `versus`."""
  for config_type, learner_type in LEARNERS.items():
    if isinstance(config, config_type):
      return learner_type(config, versus.observation_shape,
                          versus.num_actions, batch)
  raise ValueError(f"config must be one of "
                   f"{[c.__module__ + '.Config' for c in LEARNERS]}, got "
                   f"{type(config).__name__}")


def carry_bytes(env: Any, config: AnyConfig, num_envs: int,
                seats: Any = versus_lib.ALTERNATE) -> int:
  """A lower bound of the bytes `train_best_response` allocates on a JAX
  engine: its carry (the learner's state, `num_envs` games in progress), as
  `jax.eval_shape` sizes it without allocating; the opponent's parameters,
  which the carry does not hold, are not counted."""
  versus = versus_lib.VersusEnv(env, opponents_lib.uniform_for(env), seats)
  learner = make_learner(config, versus, num_envs)
  return memory.tree_bytes(jax.eval_shape(
      lambda key: learner_lib.init_carry(learner, versus, key, num_envs),
      jax.random.PRNGKey(0)))


@checkpoints.reads_former_tuples()
@dataclasses.dataclass(frozen=True)
class LogEntry:
  step: int  # Batched steps so far.
  episodes: int  # Games finished so far.
  mean_return: float  # The learner's mean return in this stretch's games.
  wall_time: float  # Seconds of training so far (evaluations not counted).
  exact: Optional[evaluation.Evaluation]  # From the evaluator, if any.
  metrics: dict[str, float]


def train_best_response(
    env: Any, opponent: opponents_lib.Opponent, config: AnyConfig, *,
    steps: int, num_envs: int = 64, eval_every: Optional[int] = None,
    seed: int = 0, seats: Any = versus_lib.ALTERNATE,
    evaluator: Optional[Callable[[learner_lib.LearnedPolicy],
                                 evaluation.Evaluation]] = None,
    checkpoint_path: Optional[str] = None,
    on_entry: Optional[Callable[[LogEntry], None]] = None,
    stop: Optional[Callable[[list[LogEntry]], bool]] = None,
) -> tuple[learner_lib.LearnedPolicy, list[LogEntry]]:
  """Trains a best response to `opponent` (see the module docstring).

  Args:
    env: a JAX engine of the batched-environment contract made with
      `auto_reset=True` (trained in jitted `lax.scan` chunks), or a
      `PyspielVectorEnv` with `auto_reset=True` for any other game (a Python
      loop of jitted learner steps; no checkpoints).
    opponent: the fixed policy to respond to.
    config: the learner's config.
    steps: batched steps to train for (each is `num_envs` decisions).
    num_envs: games played at once.
    eval_every: steps between log entries (and evaluations, checkpoints);
      a tenth of the run by default.
    seed: the run's seed.
    seats: "alternate" (one network, both seats), 0 or 1.
    evaluator: called on the learned policy at every log entry (an
      `evaluation.ExactEvaluator`, say).
    checkpoint_path: where to checkpoint; an existing checkpoint of the same
      settings is resumed.
    on_entry: called with each log entry as it is made (progress output).
    stop: called with the log after each entry; True ends the run early
      (`plateaued` makes one).

  Returns:
    (the learned policy, the log).
  """
  run_config = learner_lib.RunConfig(steps, num_envs,
                                     eval_every or max(steps // 10, 1), seed,
                                     seats)
  if isinstance(env, batched.PyspielVectorEnv):
    if checkpoint_path:
      raise ValueError("checkpoints need a JAX engine: a PyspielVectorEnv's "
                       "games in progress are pyspiel states, which a "
                       f"checkpoint does not keep; got {checkpoint_path=}")
    versus = versus_lib.HostVersusEnv(env, opponent, seats)
  else:
    versus = versus_lib.VersusEnv(env, opponent, seats)
  learner = make_learner(config, versus, num_envs)
  train_steps = learner_lib.make_train_steps(learner, versus)
  carry = learner_lib.init_carry(learner, versus, jax.random.PRNGKey(seed),
                                 num_envs)
  record = run_config.as_record(config, game=learner_lib.env_name(env),
                                opponent=opponents_lib.fingerprint(opponent))

  def make_entry(carry, step, metrics, wall_time, log):
    episodes = int(metrics.episodes)
    return LogEntry(
        step, (log[-1].episodes if log else 0) + episodes,
        float(metrics.return_sum) / max(episodes, 1), wall_time,
        evaluator(learner.played(carry.learner)) if evaluator else None,
        {name: float(value) for name, value in metrics.learner.items()})

  carry, log = learner_lib.run_in_chunks(
      carry, lambda c, n: train_steps(c, opponent.params, opponent.weights, n),
      make_entry, steps, run_config.eval_every, record, checkpoint_path,
      on_entry, stop)
  return learner.played(carry.learner), log


def plateaued(min_gain: float, min_entries: int = 2
             ) -> Callable[[list[LogEntry]], bool]:
  """A `stop` rule: the mean return rose by less than `min_gain` from one
  log entry to the next, after at least `min_entries` entries (the
  reference's plateau check, every `eval_every` steps)."""

  def stop(log: list[LogEntry]) -> bool:
    return (len(log) >= max(min_entries, 2) and
            log[-1].mean_return - log[-2].mean_return < min_gain)

  return stop


# The evaluator that population methods (P2SRO, NXDO) take by name: the
# exact exploitability from the tree engine, where the game's tree fits.
# Any other evaluator is a function of the policy, such as
# `approximate_exploitability` bound to its settings.
EXACT = "exact"


def approximate_exploitability(
    env: Any, opponent: opponents_lib.Opponent, config: AnyConfig, *,
    check_steps: int = 500, max_steps: int = 10_000, min_gain: float = 0.01,
    num_envs: int = 64, eval_steps: int = 1_000, seed: int = 0,
    checkpoint_path: Optional[str] = None) -> float:
  """The exploitability of `opponent` (a policy of the whole game, played
  in both seats) as the thesis measured it where no tree fits: a fresh best
  response (the learner `config` names, one network for both seats) trains
  against it until its mean return rises by less than `min_gain` between
  checks (or for `max_steps`); then the response, exploring no more, plays
  `eval_steps` batched steps against it, and its mean return per game,
  averaged over the seats, estimates NashConv / 2 (from below, as the
  response is approximate)."""
  policy, _ = train_best_response(
      env, opponent, config, steps=max_steps, num_envs=num_envs,
      eval_every=check_steps, seed=seed, checkpoint_path=checkpoint_path,
      stop=plateaued(min_gain))
  player = (opponents_lib.deterministic(policy.apply, policy.params)
            if getattr(env, "continuous", False) else policy.as_opponent())
  return mean_return(env, player, opponent, steps=eval_steps,
                     num_envs=num_envs, seed=seed)


def mean_return(env: Any, player: opponents_lib.Opponent,
                opponent: opponents_lib.Opponent, *, steps: int,
                num_envs: int = 64, seed: int = 0) -> float:
  """`player`'s mean return per game against `opponent` over `steps`
  batched steps of `num_envs` games (seats alternating over the batch), on
  a JAX engine made with `auto_reset=True`."""
  versus = versus_lib.VersusEnv(env, opponent)

  def one_step(carry, _):
    state, key = carry
    key, act_key = jax.random.split(key)
    observation = versus.observation(state)
    actions = player.act(player.params, observation, versus.legal_mask(state),
                         jnp.zeros(num_envs, jnp.int32), act_key)
    state, reward, done = versus.play(state, actions, opponent.params,
                                      opponent.weights)
    return (state, key), (reward.sum(), done.sum())

  @jax.jit
  def play(key):
    state = versus.init(key, num_envs)
    _, (rewards, games) = jax.lax.scan(one_step, (state, key), None,
                                       length=steps)
    return rewards.sum(), games.sum()

  total, games = play(jax.random.PRNGKey(seed))
  if int(games) == 0:
    raise ValueError(f"no game ended in {steps} batched steps; give more "
                     "steps")
  return float(total) / int(games)
