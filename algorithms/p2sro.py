"""Pipeline PSRO and its rivals with learned best responses, on the
executors (local processes or Ray), checkpointed and resumable.

A population (`rl/population.py`) starts from one random network. Active
learners (any learner of `algorithms/rl`, in the symmetric mode) train in
rounds of `chunk_steps` batched steps each, against a mixture of members
drawn per game.

- `p2sro`: `learners` active levels; level j trains against the meta-Nash
  of the fixed policies and the active ones below it (their parameters as of
  the last round), mixed with uniform by `uniform_mix` as the reference
  does; only the lowest active level can be fixed, once its mean return
  gained less than `plateau_gain` over a round after at least `min_steps`,
  and a new level starts on top.
- `psro`: sequential PSRO, one learner, the same plateau rule.
- `naive`: `learners` learners against the meta-Nash of the fixed policies
  only; any that plateaus is fixed and replaced.
- `dch`: `learners` levels as in P2SRO, never fixed (its population is the
  levels themselves).
- `rectified`: generations; every member in the meta-Nash's support starts
  a learner against the Nash-weighted members it beats or ties; each trains
  until it plateaus, and the generation joins the population together.
- `self_play`: one learner against the newest member; fixed on a plateau.

With `anchors` (p2sro, psro, naive), fixed single policies of other kinds,
such as a game's scripted bots (`make_anchor` makes them from their names),
head the population: rows of its payoff table and members of every mixture
the learners train against, never trained themselves. That is a variant to
report beside a method, not the method.

With `warm_start`, a learner that replaces a fixed one (p2sro, psro, naive,
self_play) starts from the learner state (network, optimiser, buffers) of
the newest learner still active, or of the one just fixed when none is,
with its own games and random stream; otherwise from a new network.

Each round logs the exploitability of the meta-Nash of the population (with
DCH's levels): exact where the game's tree fits (the payoffs exact too), or
from the `evaluator` given (the payoffs then from sampled games), such as
the approximate exploitability on the Loss Game, whose learners act
continuously (a continuous PPO config; members play their actions).

The driver (`Pipeline`) holds the population and its payoff table; each
active learner is a training carry in a checkpoint file. A round submits one
executor task per active learner (`train_chunk`), which loads the carry,
trains against the mixture the driver hands it (the members' parameters and
weights), saves the carry under a new name and returns the learner's
parameters and mean return. The driver fixes what plateaued, extends the
payoff table and saves its own state (`state.pkl`) atomically; only then do
the new carries count. The same command with the same directory resumes
from `state.pkl` (`fork_from` starts a new run from another run's state under
other method settings; `copy_state` keeps a copy a run resumes from, with
`portable` one of megabytes: each task also saves its carry's portable
twin). With `task_opponents`, a round's task trains against that many
members drawn from its mixture rather than the whole mixture (a step then
runs at most that many opponent networks). A task whose worker died (its
executor broken) is started again on a new executor from the carry it
started from, so a run with a killed worker ends exactly as one never
interrupted. The algorithm does not know which executor runs its tasks.
"""

import dataclasses
import importlib
import os
import shutil
import time
from typing import Any, Callable, Mapping, NamedTuple, Optional

import jax
import numpy as np

from open_spiel.python import policy as policy_lib
from open_spiel_ext.algorithms import meta_solvers
from open_spiel_ext.algorithms import normal_form_psro
from open_spiel_ext.algorithms.rl import best_response
from open_spiel_ext.algorithms.rl import learner as learner_lib
from open_spiel_ext.algorithms.rl import opponents
from open_spiel_ext.algorithms.rl import population as population_lib
from open_spiel_ext.algorithms.rl import versus as versus_lib
from open_spiel_ext.games import batched
from open_spiel_ext.games import engines
from open_spiel_ext.utils import checkpoints
from open_spiel_ext.utils import compilation_cache
from open_spiel_ext.utils import executors
import pyspiel

METHODS = normal_form_psro.METHODS
# Mixtures handed to a task are padded with weightless members to a multiple
# of this, so that a growing population recompiles the training rarely.
MEMBER_BLOCK = 8
# Times a task is started again after its worker died, before the run fails.
RESTARTS = 3
STATE_FILE = "state.pkl"
PORTABLE_SUFFIX = ".portable"  # A carry's portable twin (`portable_path`).


@dataclasses.dataclass(frozen=True)
class Config:
  """What the population method does around its learners."""
  method: str = "p2sro"
  learners: int = 3  # Active learners of p2sro, naive and dch.
  chunk_steps: int = 500  # Batched steps per learner per round.
  min_steps: int = 2_000  # Batched steps before a policy can be fixed.
  plateau_gain: float = 0.01  # Mean-return gain per round that is a plateau.
  num_envs: int = 16
  uniform_mix: float = 0.1
  meta_solver: str = "fictitious_play"  # A name of meta_solvers.META_SOLVERS.
  fictitious_play_iterations: int = 20_000  # The P2SRO reference's.
  games_per_entry: int = 20_000  # Per sampled payoff entry (no tree), most.
  # A sampled entry stops once its standard error is at most this (0: it
  # plays games_per_entry games), its games played `entry_batch` at once.
  entry_standard_error: float = 0.0
  entry_batch: int = 1024
  entry_games_per_slot: int = 1  # Games an entry's call deals per slot.
  # Members a learner's round trains against, drawn from its mixture (with
  # replacement, so that each game's opponent is still distributed as the
  # mixture over rounds); 0: the whole mixture, a member drawn per game,
  # every member's network then running on the whole batch each step.
  task_opponents: int = 0
  warm_start: bool = False  # New learners start from the newest one's state.
  seed: int = 0
  # Fixed opponents heading the population (rows 0..k−1 of its table, never
  # trained), named for the Pipeline's `make_anchor`: a variant seeding the
  # population with, say, a game's scripted bots. p2sro, psro and naive.
  anchors: tuple[str, ...] = ()

  def __post_init__(self):
    if self.method not in METHODS:
      raise ValueError(f"method must be one of {METHODS}, got "
                       f"method={self.method!r}")
    if self.meta_solver not in meta_solvers.META_SOLVERS:
      raise ValueError(f"meta_solver must be one of "
                       f"{sorted(meta_solvers.META_SOLVERS)}, got "
                       f"meta_solver={self.meta_solver!r}")
    learner_lib.check_positive(self, "learners", "chunk_steps", "num_envs",
                               "fictitious_play_iterations",
                               "games_per_entry", "entry_batch",
                               "entry_games_per_slot")
    learner_lib.check_non_negative(self, "min_steps", "plateau_gain",
                                   "entry_standard_error", "task_opponents")
    learner_lib.check_unit_interval(self, "uniform_mix")
    object.__setattr__(self, "anchors", tuple(self.anchors))
    if self.anchors and self.method not in ("p2sro", "psro", "naive"):
      raise ValueError(f"anchors are for p2sro, psro and naive, got "
                       f"anchors={self.anchors} with "
                       f"method={self.method!r}")
    if self.warm_start and self.method in ("dch", "rectified"):
      raise ValueError(f"warm_start is for methods that replace a fixed "
                       f"learner, got warm_start=True with "
                       f"method={self.method!r}")

  def solve(self, payoffs: np.ndarray) -> np.ndarray:
    """The meta-Nash weights of a symmetric payoff table."""
    if self.meta_solver == "fictitious_play":
      return meta_solvers.fictitious_play(
          payoffs, self.fictitious_play_iterations)[0]
    return meta_solvers.META_SOLVERS[self.meta_solver](payoffs)[0]


class LogEntry(NamedTuple):
  """What one round left."""
  round: int
  fixed: int  # Policies in the population (its anchors too).
  added: int  # Policies that joined it this round.
  env_steps: int  # Batched steps of every learner so far, times num_envs.
  episodes: int  # Games the learners finished so far.
  # Seconds of rounds so far (resumed runs included; measuring the
  # exploitability not included), and of those, waiting for the tasks.
  wall_time: float
  task_time: float
  mean_returns: tuple[float, ...]  # Of the learners trained this round.
  exploitability: Optional[float]  # Of the meta-Nash, by the evaluator.
  # Of wall_time, the seconds filling payoff entries (the levels' table each
  # round, new members' rows); and the seconds saving the driver's state
  # after the rounds before this one (not in wall_time).
  entry_time: float = 0.0
  checkpoint_time: float = 0.0
  entry_games: int = 0  # Games played for sampled entries so far.
  # Games each learner of mean_returns finished this round (their means'
  # precision: how far a round's gain can be noise).
  task_episodes: tuple[int, ...] = ()


class Task(NamedTuple):
  """One learner's stretch of training, as the driver hands it out."""
  game: str
  learner_config: best_response.AnyConfig
  num_envs: int
  seed: int  # A new learner's seed (when `start` is None).
  start: Optional[str]  # The carry's checkpoint to continue from.
  # A new learner's: the carry whose learner state it starts from.
  warm_from: Optional[str]
  save_to: str
  members: Any  # The opponents' parameters, stacked.
  weights: np.ndarray  # Their mixture.
  steps: int
  compilation_cache: str  # JAX's persistent cache, shared by the workers.
  engine_options: tuple[tuple[str, Any], ...]  # Of `engine`, as items.
  # The anchors' names (members then holds (their parameters, the
  # networks')) and the function that makes them.
  anchors: tuple[str, ...] = ()
  make_anchor: Optional[Callable[[str], opponents.Opponent]] = None


class Trained(NamedTuple):
  """What a task returns."""
  checkpoint: str
  params: Any  # The learner's policy parameters after the task.
  mean_return: float  # In the games that ended during the task.
  episodes: int  # How many games ended during the task.


def stack_mixture(members: list[Any], weights: np.ndarray
                 ) -> tuple[Any, np.ndarray]:
  """A task's opponents: the members' parameters stacked, padded with
  weightless copies to a multiple of MEMBER_BLOCK, and their normalised
  weights (with anchors, `weights` begins with the anchors' and goes on
  with the members': the padding follows)."""
  padding = -len(members) % MEMBER_BLOCK
  weights = np.asarray(weights, np.float64)
  return (jax.tree.map(lambda *x: np.stack(x),
                       *members, *[members[0]] * padding),
          np.concatenate([weights / weights.sum(), np.zeros(padding)]))


class SavedRun(NamedTuple):
  """What a run saved in a directory was started with."""
  game: str
  learner_config: best_response.AnyConfig
  config: Config
  engine_options: dict[str, Any]


def saved_run(directory: str) -> SavedRun:
  """The game, learners' and method's settings and engine options of the
  run saved in `directory` (so that another run can fork from it)."""
  record = checkpoints.saved_config(os.path.join(directory, STATE_FILE))
  learner_class = importlib.import_module(record["learner"]).Config
  learner_fields = {f.name for f in dataclasses.fields(learner_class)}
  return SavedRun(
      record["game"],
      learner_class(**{k: v for k, v in record.items()
                       if k in learner_fields}),
      Config(**{k[len("run_"):]: v for k, v in record.items()
                if k.startswith("run_")}),
      {k[len("engine_"):]: v for k, v in record.items()
       if k.startswith("engine_")})


class LearnerHistory(NamedTuple):
  """One learner's rounds in a run's log, in order."""
  rounds: list[int]
  levels: list[int]  # Its level in each (0: the lowest, the next fixed).
  mean_returns: list[float]
  # Its games of each round (None where an older log did not keep them).
  episodes: list[Optional[int]]
  fixed_at: Optional[int]  # The round it joined the population, if any.


def learner_histories(log: list[LogEntry],
                      config: Config) -> list[LearnerHistory]:
  """Every learner of a p2sro or psro run's `log`, in the order they
  started: a round's returns are its levels' from the lowest up, and the
  lowest `added` learners joined the population at its end.

  Raises:
    ValueError: another method, whose levels the log cannot tell apart.
  """
  if config.method not in ("p2sro", "psro"):
    raise ValueError(f"learner histories need method p2sro or psro, got "
                     f"method={config.method!r}")
  histories: list[LearnerHistory] = []
  active: list[int] = []  # Indices into histories, lowest level first.
  for entry in log:
    while len(active) < len(entry.mean_returns):
      active.append(len(histories))
      histories.append(LearnerHistory([], [], [], [], None))
    for level, (index, mean_return) in enumerate(
        zip(active, entry.mean_returns)):
      history = histories[index]
      history.rounds.append(entry.round)
      history.levels.append(level)
      history.mean_returns.append(mean_return)
      history.episodes.append(entry.task_episodes[level]
                              if entry.task_episodes else None)
    for index in active[:entry.added]:
      histories[index] = histories[index]._replace(fixed_at=entry.round)
    active = active[entry.added:]
  return histories


def engine(game: pyspiel.Game, config: Any = None, **options: Any) -> Any:
  """The JAX engine learners of `game` train on (auto-reset; continuous
  actions for a continuous PPO `config`; the engine's `options`).

  Raises:
    ValueError: no JAX engine plays `game`, so no learned oracle can, or
      not with these options.
  """
  if is_continuous(config):
    options["continuous"] = True
  return engines.make(game, auto_reset=True, **options)


def is_continuous(config: Any) -> bool:
  """Whether the learners `config` configures act continuously."""
  return bool(getattr(config, "continuous", False))


def carry_bytes(game: pyspiel.Game, learner_config: best_response.AnyConfig,
                config: Config,
                engine_options: Optional[Mapping[str, Any]] = None) -> int:
  """A lower bound of the bytes a learner's carry takes
  (`best_response.carry_bytes`), which the driver allocates to start each
  learner from and each task to train one."""
  env = engine(game, learner_config, **dict(engine_options or {}))
  return best_response.carry_bytes(env, learner_config, config.num_envs)


def entry_bytes(game: pyspiel.Game, learner_config: best_response.AnyConfig,
                config: Config,
                engine_options: Optional[Mapping[str, Any]] = None) -> int:
  """A lower bound of the bytes the driver allocates to sample a payoff
  entry (where payoffs are not exact): the games it plays at once
  (`batched.games_bytes`)."""
  env = engine(game, learner_config, **dict(engine_options or {}))
  return batched.games_bytes(env, population_lib.entry_slots(
      config.games_per_entry, config.entry_games_per_slot,
      config.entry_batch))


class _Trainer:
  """A worker's learner and jitted training for one game and config."""

  def __init__(self, game: str, config: best_response.AnyConfig,
               num_envs: int, engine_options: tuple[tuple[str, Any], ...],
               anchors: tuple[str, ...] = (),
               make_anchor: Optional[Callable[[str], opponents.Opponent]]
               = None):
    self.env = engine(pyspiel.load_game(game), config, **dict(engine_options))
    probe = best_response.make_learner(
        config, versus_lib.VersusEnv(self.env, opponents.uniform()),
        num_envs)
    first = probe.played(probe.init(jax.random.PRNGKey(0)))
    self.apply = first.apply
    self.anchors = [make_anchor(name) for name in anchors]
    networks = opponents.of_networks(first.apply, first.params,
                                     continuous=is_continuous(config))
    self.versus = versus_lib.VersusEnv(self.env, opponents.anchored(
        self.anchors, networks, np.full(len(anchors) + 1, 1 / (
            len(anchors) + 1))) if anchors else networks)
    self.learner = best_response.make_learner(config, self.versus, num_envs)
    self.train_steps = learner_lib.make_train_steps(self.learner, self.versus)
    self.num_envs = num_envs
    self.record = {"game": game, "num_envs": num_envs,
                   **dataclasses.asdict(config)}

  def new_carry(self, seed: int) -> learner_lib.Carry:
    return learner_lib.init_carry(self.learner, self.versus,
                                  jax.random.PRNGKey(seed), self.num_envs)

  def compact(self, carry: learner_lib.Carry) -> learner_lib.Carry:
    return learner_lib.compact_carry(self.learner, carry)

  def portable(self, carry: learner_lib.Carry) -> learner_lib.Carry:
    return learner_lib.portable_carry(self.learner, carry)

  def whole(self, carry: learner_lib.Carry) -> learner_lib.Carry:
    return learner_lib.whole_carry(self.learner, self.versus, carry,
                                   self.num_envs)

  def params(self, carry: learner_lib.Carry) -> Any:
    return jax.device_get(self.learner.played(carry.learner).params)

  def new_params(self, seed: int) -> Any:
    """The parameters a learner started from `seed` plays at first."""
    return self.params(self.new_carry(seed))


def portable_path(carry_path: str) -> str:
  """Where a task keeps the portable twin of the carry it saved at
  `carry_path` (`learner.portable_carry`: no games in progress, no PPO
  rollout; megabytes where the carry can be a gigabyte)."""
  return carry_path + PORTABLE_SUFFIX


# Settings added to Config while runs were under way, with the defaults
# that keep those runs' behaviour: their checkpoints resume.
_ADDED_SETTINGS = {"run_entry_games_per_slot": 1, "run_anchors": ()}


_TRAINERS: dict[Any, _Trainer] = {}  # The two last used, by what they train.


def _trainer(game: str, config: best_response.AnyConfig, num_envs: int,
             engine_options: tuple[tuple[str, Any], ...] = (),
             anchors: tuple[str, ...] = (),
             make_anchor: Optional[Callable[[str], opponents.Opponent]] = None
            ) -> _Trainer:
  """The worker's trainer for these settings, made once (the anchors named
  alike are alike, whatever `make_anchor` object a task brought)."""
  key = (game, config, num_envs, engine_options, anchors)
  if key not in _TRAINERS:
    if len(_TRAINERS) == 2:
      del _TRAINERS[next(iter(_TRAINERS))]
    _TRAINERS[key] = _Trainer(game, config, num_envs, engine_options, anchors,
                              make_anchor)
  _TRAINERS[key] = _TRAINERS.pop(key)  # The newest used last.
  return _TRAINERS[key]


def train_chunk(task: Task) -> Trained:
  """The executor task: trains one learner for `task.steps` batched steps."""
  compilation_cache.enable(task.compilation_cache)
  trainer = _trainer(task.game, task.learner_config, task.num_envs,
                     task.engine_options, task.anchors, task.make_anchor)
  if task.start is not None:
    carry = trainer.whole(checkpoints.restore(task.start,
                                              trainer.record).tree)
  else:
    carry = trainer.new_carry(task.seed)
    if task.warm_from is not None:
      carry = carry._replace(learner=trainer.whole(checkpoints.restore(
          task.warm_from, trainer.record).tree).learner)
  carry, metrics = trainer.train_steps(carry, task.members,
                                       np.asarray(task.weights, np.float32),
                                       task.steps)
  checkpoints.save(task.save_to, trainer.compact(carry), trainer.record)
  checkpoints.save(portable_path(task.save_to), trainer.portable(carry),
                   trainer.record)
  episodes = int(metrics.episodes)
  return Trained(task.save_to, trainer.params(carry),
                 float(metrics.return_sum) / max(episodes, 1), episodes)


@dataclasses.dataclass
class _Active:
  """An active learner as the driver keeps it."""
  name: str
  seed: int
  params: Any  # Its policy's parameters as of its last task.
  checkpoint: Optional[str] = None  # None until its first task.
  warm_from: Optional[str] = None  # Until then, the carry it starts from.
  steps: int = 0
  last_return: Optional[float] = None
  opponents: Optional[tuple[list[int], np.ndarray]] = None  # Rectified's.
  done: bool = False  # Rectified: plateaued, waiting for its generation.


class Pipeline:
  """One of METHODS with learned best responses (module docstring).

  Args:
    game: the game (one a JAX engine plays).
    learner_config: the learners' config (`dqn.Config`, `ppo.Config`,
      `sac.Config`).
    config: the method's config.
    directory: where the state and the learners' checkpoints live; a run
      found there with the same game and configs is resumed.
    make_executor: () -> an executor for the learners' tasks (a new one
      replaces an executor whose worker died).
    evaluator: best_response.EXACT: payoffs and the meta-Nash's
      exploitability from the tree engine (ValueError if the game's tree
      does not fit); otherwise
      payoffs from sampled games and the exploitability from
      `evaluator(meta-Nash opponent)` (say the approximate exploitability;
      called again only when the meta-Nash changes), or none with None.
    engine_options: options of the game's engine the learners train on
      (`engines.make`), such as how Stratego's learners see it.
    fork_from: a new run (none yet in `directory`) starts from the state of
      the run in this directory instead (its population, log and learners'
      carries, copied), under this `config`: the game, learners and
      evaluator must be the same, the method's settings may differ. So a
      change is measured against the unchanged method from one checkpoint
      (a fork adding `config.anchors` fills their entries first).
    make_anchor: name -> the opponent `config.anchors` names (a function
      the executors' workers can import).
  """

  def __init__(self, game: pyspiel.Game,
               learner_config: best_response.AnyConfig, config: Config,
               directory: str,
               make_executor: Callable[[], executors.Executor],
               evaluator: Any = best_response.EXACT,
               engine_options: Optional[Mapping[str, Any]] = None,
               fork_from: Optional[str] = None,
               make_anchor: Optional[Callable[[str], opponents.Opponent]]
               = None):
    if config.anchors and make_anchor is None:
      raise ValueError(f"anchors={config.anchors} need a make_anchor")
    self._engine_options = tuple(sorted((engine_options or {}).items()))
    self._make_anchor = make_anchor if config.anchors else None
    # Refuses a game no learner can play, naming it.
    engine(game, learner_config, **dict(self._engine_options))
    self.game, self.learner_config, self.config = game, learner_config, config
    self.directory = directory
    self._make_executor = make_executor
    self._record = {"game": str(game),
                    "learner": type(learner_config).__module__,
                    **dataclasses.asdict(learner_config),
                    **{f"run_{k}": v for k, v in
                       dataclasses.asdict(config).items()},
                    "exact_payoffs": evaluator == best_response.EXACT,
                    **{f"engine_{name}": value
                       for name, value in self._engine_options}}
    self._trainer = _trainer(str(game), learner_config, config.num_envs,
                             self._engine_options, config.anchors,
                             self._make_anchor)
    self._evaluator = evaluator
    self._evaluated = (None, None)  # (meta-Nash, the evaluator's value).
    self.population = population_lib.Population(
        game, self._trainer.apply, self._trainer.env,
        config.games_per_entry, exact=evaluator == best_response.EXACT,
        seed=config.seed, entry_standard_error=config.entry_standard_error,
        entry_batch=config.entry_batch,
        entry_games_per_slot=config.entry_games_per_slot,
        anchors=self._trainer.anchors)
    self.log: list[LogEntry] = []
    self._wall_time = 0.0
    self._task_time = 0.0
    self._entry_time = 0.0
    self._checkpoint_time = 0.0
    self._env_steps = 0
    self._episodes = 0
    self._next_seed = config.seed * 1_000_003  # Learners' seeds count up.
    if os.path.exists(self._state_path):
      self._restore(checkpoints.restore(self._state_path, self._record,
                                        added=_ADDED_SETTINGS))
      for active in self.active:
        self._replace_missing_carry(active)
    elif fork_from is not None:
      self._fork(fork_from)
    else:
      self.population.add(self._trainer.new_params(self._take_seed()))
      self.active: list[_Active] = []
      self._start_learners()
    self._executor = make_executor()  # Refuses a bad executor config now.

  @property
  def _state_path(self) -> str:
    return os.path.join(self.directory, STATE_FILE)

  # Which learners run, and against what.

  def _take_seed(self) -> int:
    self._next_seed += 1
    return self._next_seed - 1

  def _new_active(self, source: Optional[_Active] = None) -> _Active:
    """A new learner: from a new network, or from `source`'s state."""
    seed = self._take_seed()
    warm_from = source and (source.checkpoint or source.warm_from)
    if not warm_from:  # Also when `source` has not trained yet.
      return _Active(f"learner_{seed}", seed, self._trainer.new_params(seed))
    return _Active(f"learner_{seed}", seed, source.params,
                   warm_from=warm_from)

  def _start_learners(self, fixed: Optional[_Active] = None) -> None:
    """Fills the active levels (a new generation, for rectified); with
    warm_start, from the newest active learner, else `fixed`."""
    method = self.config.method
    if method == "rectified":
      payoffs = self.population.payoffs
      weights = self.config.solve(payoffs)
      for index in np.flatnonzero(
          weights > normal_form_psro.SUPPORT_THRESHOLD):
        beaten = np.flatnonzero(payoffs[index] >= 0)
        active = self._new_active()
        active.opponents = (beaten.tolist(),
                            weights[beaten] / weights[beaten].sum())
        self.active.append(active)
      return
    count = {"psro": 1, "self_play": 1}.get(method, self.config.learners)
    while len(self.active) < count:
      source = self.active[-1] if self.active else fixed
      self.active.append(self._new_active(
          source if self.config.warm_start else None))

  def _levels_table(self) -> np.ndarray:
    """The payoff table of the population and the active levels that any
    level trains against (all but the top one, for p2sro, psro and dch),
    filled once a round; level j's is its leading corner."""
    if self.config.method not in ("p2sro", "psro", "dch"):
      return self.population.payoffs
    return self.population.payoffs_with([a.params for a in self.active[:-1]])

  def _opponents(self, level: int,
                 table: np.ndarray) -> tuple[list[Any], np.ndarray]:
    """The networks (parameters) level `level` trains against, and the
    mixture's weights: over the anchors first, then those networks; `table`
    is `_levels_table()`."""
    method, members = self.config.method, list(self.population.members)
    if method == "rectified":
      indices, weights = self.active[level].opponents
      return [members[i] for i in indices], weights
    if method == "self_play":
      return members[-1:], np.ones(1)
    below = ([a.params for a in self.active[:level]]
             if method in ("p2sro", "psro", "dch") else [])
    size = len(self.population) + len(below)
    weights = self.config.solve(table[:size, :size])
    mix = self.config.uniform_mix
    return members + below, (1 - mix) * weights + mix / size

  def _task(self, level: int, table: np.ndarray) -> Task:
    active = self.active[level]
    members, weights = self._opponents(level, table)
    if self.config.task_opponents:
      members, weights = self._drawn(members, weights, level)
    anchors = len(self.config.anchors)
    if not members:  # Only anchors drawn: a weightless network for shape.
      members, weights = self.population.members[:1], np.append(weights, 0.0)
    stacked, weights = stack_mixture(members, weights)
    if anchors:
      stacked = (tuple(a.params for a in self._trainer.anchors), stacked)
    return Task(str(self.game), self.learner_config, self.config.num_envs,
                active.seed, active.checkpoint, active.warm_from,
                self._carry_path(
                    f"{active.name}.round_{len(self.log) + 1}.pkl"),
                stacked, weights, self.config.chunk_steps,
                os.path.join(self.directory, "compilation_cache"),
                self._engine_options, self.config.anchors, self._make_anchor)

  def _drawn(self, members: list[Any], weights: np.ndarray,
             level: int) -> tuple[list[Any], np.ndarray]:
    """`task_opponents` draws from the mixture (keyed by the round and
    level, so a resumed run draws the same): the members drawn, weighted by
    how often (the anchors keep their places, weightless if not drawn)."""
    rng = np.random.default_rng(
        (self.config.seed, len(self.log) + 1, level))
    drawn = rng.choice(len(weights), self.config.task_opponents,
                       p=weights / weights.sum())
    indices, counts = np.unique(drawn, return_counts=True)
    anchors = len(self.config.anchors)
    anchor_counts = np.zeros(anchors)
    anchor_counts[indices[indices < anchors]] = counts[indices < anchors]
    kept = indices >= anchors
    return ([members[i - anchors] for i in indices[kept]],
            np.concatenate([anchor_counts, counts[kept]]) / counts.sum())

  # Running the tasks.

  def _run_tasks(self, tasks: list[Task]) -> list[Trained]:
    """The tasks' results; tasks whose worker died run again on a new
    executor."""
    results: list[Optional[Trained]] = [None] * len(tasks)
    for attempt in range(RESTARTS + 1):
      if self._executor is None:
        self._executor = self._make_executor()
      futures = {i: self._executor.submit(train_chunk, task)
                 for i, task in enumerate(tasks) if results[i] is None}
      broken = None
      for i, future in futures.items():
        try:
          results[i] = future.result()
        except executors.WorkerLost as error:
          broken = error
      if broken is None:
        return results
      print(f"p2sro: a worker died ({type(broken).__name__}: {broken}); "
            f"starting its task again from its checkpoint "
            f"({attempt + 1} of {RESTARTS})", flush=True)
      self._executor.shutdown(cancel=True)
      self._executor = None
    raise RuntimeError(f"a task's worker died {RESTARTS + 1} times") from broken

  def close(self) -> None:
    """Ends the executor's workers."""
    if self._executor is not None:
      self._executor.shutdown(cancel=True)
      self._executor = None

  def __enter__(self) -> "Pipeline":
    return self

  def __exit__(self, *exc_info) -> None:
    self.close()

  # A round.

  def step(self) -> LogEntry:
    """One round: every active learner trains, plateaus are fixed."""
    started = time.perf_counter()
    training = [i for i, a in enumerate(self.active) if not a.done]
    table = self._levels_table()
    self._entry_time += time.perf_counter() - started
    tasks = [self._task(i, table) for i in training]
    submitted = time.perf_counter()
    results = self._run_tasks(tasks)
    self._task_time += time.perf_counter() - submitted
    for level, trained in zip(training, results):
      active = self.active[level]
      previous = active.last_return
      active.checkpoint, active.params = trained.checkpoint, trained.params
      active.last_return = trained.mean_return
      active.steps += self.config.chunk_steps
      active.done = (active.steps >= self.config.min_steps and
                     previous is not None and
                     trained.mean_return - previous <
                     self.config.plateau_gain)
    self._env_steps += (len(training) * self.config.chunk_steps *
                        self.config.num_envs)
    self._episodes += sum(trained.episodes for trained in results)
    fixing = time.perf_counter()
    added = self._fix_plateaued()
    self._entry_time += time.perf_counter() - fixing
    self._wall_time += time.perf_counter() - started
    self.log.append(LogEntry(
        len(self.log) + 1, len(self.population), added, self._env_steps,
        self._episodes,
        self._wall_time, self._task_time,
        tuple(r.mean_return for r in results), self.exploitability(),
        self._entry_time, self._checkpoint_time,
        self.population.entry_games,
        tuple(trained.episodes for trained in results)))
    saving = time.perf_counter()
    self._save()
    self._checkpoint_time += time.perf_counter() - saving
    return self.log[-1]

  def _fix_plateaued(self) -> int:
    """Moves the learners that may join into the population; how many."""
    method = self.config.method
    if method == "dch":
      joining = []
    elif method == "rectified":
      joining = list(self.active) if all(a.done for a in self.active) else []
    elif method == "naive":
      joining = [a for a in self.active if a.done]
    else:
      joining = self.active[:1] if self.active[0].done else []
    for active in joining:
      self.population.add(active.params)
      self.active.remove(active)
    if joining:
      self._start_learners(fixed=joining[-1])
    for active in self.active:
      active.done = active.done and method == "rectified"
    return len(joining)

  def _meta_nash(self) -> tuple[np.ndarray, list[Any]]:
    """The meta-Nash weights over the population (then DCH's levels, which
    are its population), and those levels' parameters."""
    extra = ([a.params for a in self.active]
             if self.config.method == "dch" else [])
    return self.config.solve(self.population.payoffs_with(extra)), extra

  def exploitability(self) -> Optional[float]:
    """The meta-Nash's exploitability: exact, or the evaluator's."""
    if self._evaluator == best_response.EXACT:
      return self.population.exploitability(*self._meta_nash())
    if self._evaluator is None:
      return None
    weights, extra = self._meta_nash()
    # A meta-Nash met before (no policy fixed since) is not measured again;
    # DCH's levels change every round.
    key = (len(self.population), tuple(np.round(weights, 6)),
           len(self.log) if extra else None)
    if self._evaluated[0] != key:
      self._evaluated = (key, self._evaluator(
          self.population.opponent(weights, extra)))
    return self._evaluated[1]

  def tabular_policy(self) -> policy_lib.TabularPolicy:
    """The meta-Nash as an OpenSpiel TabularPolicy (of Leduc poker for
    m-Clone Leduc, whose tree the tree engine walks)."""
    return self.population.tabular_policy(*self._meta_nash())

  # Checkpoints.

  def _save(self) -> None:
    """Writes the driver's state atomically, then removes the carries it no
    longer names."""
    checkpoints.save(self._state_path, None, self._record, extra={
        "log": self.log, "wall_time": self._wall_time,
        "task_time": self._task_time, "entry_time": self._entry_time,
        "checkpoint_time": self._checkpoint_time,
        "env_steps": self._env_steps,
        "episodes": self._episodes, "active": self.active,
        "next_seed": self._next_seed,
        "population": self.population.state()})
    self._remove_carries_but_named(self.directory)

  def _named_carries(self) -> set[str]:
    """The file names of the carries the state names."""
    return {os.path.basename(a.checkpoint or a.warm_from)
            for a in self.active if a.checkpoint or a.warm_from}

  def _kept_files(self) -> set[str]:
    """The named carries and their portable twins."""
    named = self._named_carries()
    return named | {portable_path(name) for name in named}

  def _remove_carries_but_named(self, directory: str) -> None:
    learners = os.path.join(directory, "learners")
    for name in set(os.listdir(learners)) - self._kept_files():
      os.remove(os.path.join(learners, name))

  def copy_state(self, directory: str, portable: bool = False) -> None:
    """Copies the run's state and the carries it names into `directory`, in
    this run's layout (a Pipeline there resumes from it), and removes the
    carries it no longer names there: a copy kept off a machine whose disk
    goes away with it. Call it between rounds. With `portable`, the carries
    are their portable twins (`portable_path`): the copy is megabytes, and a
    run resumed from it starts its learners on fresh games (the games in
    progress and PPO's partial rollouts are lost, nothing learned is)."""
    os.makedirs(os.path.join(directory, "learners"), exist_ok=True)
    for name in self._named_carries():
      destination = os.path.join(directory, "learners", name)
      if portable:
        self._copy_portable(self._carry_path(name), destination)
      else:
        _copy_atomically(self._carry_path(name), destination)
    _copy_atomically(self._state_path, os.path.join(directory, STATE_FILE))
    self._remove_carries_but_named(directory)

  def _copy_portable(self, carry_path: str, destination: str) -> None:
    """The twin a task wrote beside the carry, or (a carry from before
    twins, or one that is portable itself) the carry made portable here."""
    if os.path.exists(portable_path(carry_path)):
      _copy_atomically(portable_path(carry_path), destination)
      return
    carry = checkpoints.restore(carry_path, self._trainer.record).tree
    checkpoints.save(destination, self._trainer.portable(carry),
                     self._trainer.record)

  def _fork(self, parent: str) -> None:
    """Starts from the state of the run in `parent` (ValueError if its game,
    learners or evaluator differ), its learners' carries copied here."""
    parent_anchors = tuple(checkpoints.saved_config(
        os.path.join(parent, STATE_FILE)).get("run_anchors", ()))
    if parent_anchors and parent_anchors != self.config.anchors:
      raise ValueError(f"the run in {parent} has anchors {parent_anchors}; "
                       f"a fork keeps them, got anchors={self.config.anchors}")
    state = checkpoints.restore(
        os.path.join(parent, STATE_FILE), self._record,
        may_differ=lambda name: name.startswith("run_"))
    os.makedirs(os.path.join(self.directory, "learners"), exist_ok=True)
    anchors, members = len(self.config.anchors), len(
        state.extra["population"]["members"])
    adding_anchors = anchors and not state.extra["population"].get("anchors")
    if adding_anchors:
      print(f"p2sro: forking {parent}: the anchors' payoff entries against "
            f"its {members} members and each other "
            f"({anchors * members + anchors * (anchors - 1) // 2} entries) "
            "first", flush=True)
    self._copy_carries_from(parent, state.extra["active"])
    restoring = time.perf_counter()
    self._restore(state)  # Fills the anchors' entries, if added.
    if adding_anchors:  # Populations count the anchors, put first.
      self.log = [entry._replace(fixed=entry.fixed + anchors)
                  for entry in self.log]
      filling = time.perf_counter() - restoring  # The fork's first work.
      self._entry_time += filling
      self._wall_time += filling
    for active in self.active:
      self._replace_missing_carry(active)
    self._save()

  def _copy_carries_from(self, parent: str, active: list[_Active]) -> None:
    """Copies the carries (and portable twins) `active` names from the run
    in `parent`; one missing there is replaced after the restore."""
    for learner in active:
      for path in (learner.checkpoint, learner.warm_from):
        if path is None:
          continue
        name = os.path.basename(path)
        for file_name in (name, portable_path(name)):
          source = os.path.join(parent, "learners", file_name)
          if os.path.exists(source):
            shutil.copyfile(source, self._carry_path(file_name))

  def _carry_path(self, name: str) -> str:
    return os.path.join(self.directory, "learners", name)

  def _restore(self, checkpoint: checkpoints.Checkpoint) -> None:
    """Takes back the state `_save` wrote."""
    state = checkpoint.extra
    self.log, self.active = state["log"], state["active"]
    self._wall_time, self._env_steps = state["wall_time"], state["env_steps"]
    self._episodes = state["episodes"]
    self._task_time = state["task_time"]
    self._entry_time = state.get("entry_time", 0.0)
    self._checkpoint_time = state.get("checkpoint_time", 0.0)
    self._next_seed = state["next_seed"]
    self.population.restore(state["population"])
    for active in self.active:  # This directory's, wherever it was saved.
      for field in ("checkpoint", "warm_from"):
        if getattr(active, field) is not None:
          setattr(active, field,
                  self._carry_path(os.path.basename(getattr(active, field))))

  def _replace_missing_carry(self, active: _Active) -> None:
    """A learner whose carry is gone (deleted as unreadable, as its error
    says) resumes from the carry's portable twin, if there is one, or else
    starts over; the population and the other learners resume as saved."""
    for field in ("checkpoint", "warm_from"):
      path = getattr(active, field)
      if path is None or os.path.exists(path):
        continue
      if os.path.exists(portable_path(path)):
        _copy_atomically(portable_path(path), path)
        print(f"p2sro: {path} is missing: {active.name} resumes from its "
              "portable twin (games in progress start afresh)", flush=True)
        continue
      print(f"p2sro: {path} is missing: {active.name} starts over from a "
            "new network; the population and the other learners resume",
            flush=True)
      active.checkpoint = active.warm_from = None
      active.steps, active.last_return = 0, None
      return


def _copy_atomically(source: str, destination: str) -> None:
  partial = destination + checkpoints.PARTIAL_SUFFIX
  shutil.copyfile(source, partial)
  os.replace(partial, destination)
