"""The NXDO thesis's neural experiments: NXDO, NXDO-VA, PSRO and NFSP,
exploitability against episodes, on poker and on the Loss Game.

For each game of --games, runs every method of --methods the game takes for
--seeds seeds, each until --minutes of training (evaluations not counted)
and, with --episodes, at least that many episodes:

- NXDO and NXDO-VA (`algorithms/nxdo/`): best responses stopped at a
  plateau and NFSP solving the restricted game, as `examples/nxdo.py` runs
  them;
- PSRO (`algorithms/p2sro/`, method "psro"): one learner at a time, fixed
  at its plateau, fictitious play as the meta-solver;
- NFSP (`algorithms/rl/nfsp.py`) on the whole game;
- on poker, NXDO with one part swapped for its exact counterpart, to see
  which part limits it (not run unless named in --methods):
  nxdo_exact_responses (exact best responses from the tree engine, NFSP on
  the restricted game) and nxdo_exact_solve (learned best responses, CFR+
  on the restricted game's tree).

NFSP solves each restricted game until the meta-NE's exploitability within
it falls below the schedule's threshold, measured as --signal says: exactly
on the tree (poker's default), or by NFSP's own estimate as the reference
did (--signal=nfsp_estimate; its runs go to their own directories).

Poker (Kuhn, Leduc, m-Clone Leduc; default 20-Clone Leduc): DDQN best
responses, NFSP on the reference's 20-Clone Leduc schedule, exact
exploitability. The Loss Game (`loss_game(...)`, 2-D, or 16-D as
`loss_game(dims=16,bins=2)`): continuous PPO best responses, NFSP on the
restricted game for a budget growing by 1.5 after 5 warm-start iterations,
NFSP on the whole game binned (`bins`, 10×10 by default; not in 16-D, whose
grid is too large); no NXDO-VA (its mask is over discrete actions); and the
approximate exploitability (`best_response.approximate_exploitability`, a
continuous PPO best response) of every method's policy, NFSP's binned one
included. A best response of that budget may under-exploit some policies
more than others, so once every run of a Loss Game is done each run's last
policy is measured again by one of ten times the budget
(--final_eval_steps), from the checkpoint the run left.

Episodes are the games every learner of a method played (best responses
and NFSP alike; exact best responses play none). Prints per game the exploitability of each method at the
episodes all its runs reached (mean ± standard error over seeds), at the
end (and by the stronger best response), and the minutes per run; writes
nxdo_<game>.png (exploitability against episodes and against wall time, one
line per run),
nxdo_<game>_iterations.png (NXDO's and PSRO's against double-oracle
iterations, the thesis's Fig. 4.11; not for NFSP alone) and
nxdo_<game>.json. Runs checkpoint
under --output_dir/runs/<game>/: the same command resumes them, and a
finished run leaves its log as <method>_seed<k>.jsonl (and its stronger
measurements as <method>_seed<k>_final.jsonl, one per budget), read back
instead of running it again.

  python benchmarks/nxdo_thesis.py --output_dir=/tmp/nxdo_thesis
  python benchmarks/nxdo_thesis.py --games=kuhn_poker,leduc_poker --minutes=10
  python benchmarks/nxdo_thesis.py --games="loss_game,loss_game(dims=16,bins=2)"
"""

import functools
import json
import os
import re
from typing import Any, Callable, NamedTuple, Optional, Sequence

from absl import app
from absl import flags
import numpy as np

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel_ext.algorithms.nxdo import driver as nxdo_driver
from open_spiel_ext.algorithms.nxdo import oracles
from open_spiel_ext.algorithms.nxdo import solvers
from open_spiel_ext.algorithms import p2sro
from open_spiel_ext.algorithms.rl import best_response
from open_spiel_ext.algorithms.rl import nfsp
from open_spiel_ext.experiments import nxdo_recipes
from open_spiel_ext.games import batched_loss_game
from open_spiel_ext.games import engines
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import executors
from open_spiel_ext.utils import reporting
import pyspiel


RIVALS = ("nxdo", "nxdo_va", "psro", "nfsp")
# NXDO with its best responses or its restricted-game solve exact (poker).
SWAPS = {"nxdo_exact_responses": "responses", "nxdo_exact_solve": "solve"}
METHODS = RIVALS + tuple(SWAPS)
_GAMES = cli.define_game_list("games", ["xdo_clone_leduc(clones=20)"],
                              "Poker games or Loss Games.")
_METHODS = flags.DEFINE_list("methods", list(RIVALS), "Of " +
                             ", ".join(METHODS) + ".")
_SEEDS = flags.DEFINE_integer("seeds", 3, "Seeds per method.", lower_bound=1)
_MINUTES = flags.DEFINE_float("minutes", 30.0,
                              "Training minutes per run, at least.")
_EPISODES = flags.DEFINE_integer(
    "episodes", 0, "Episodes per run, at least (0: --minutes alone).",
    lower_bound=0)
_AT_EPISODES = flags.DEFINE_list(
    "at_episodes", ["1000000", "2000000", "4000000"], "The table also "
    "compares the methods at each of these episodes that every run reached "
    "(the thesis's ordering on 20-Clone Leduc holds from 2 M on).")
_SIGNAL = flags.DEFINE_enum(
    "signal", "exact", list(solvers.SIGNALS), "What stops NFSP on a "
    "restricted game (poker): its exact exploitability there, or NFSP's own "
    "estimate (the reference's).")
_NUM_ENVS = flags.DEFINE_integer("num_envs", 64, "Games played at once.")
_NFSP_EVAL_EVERY = flags.DEFINE_integer(
    "nfsp_eval_every", 10_000, "NFSP's batched steps between evaluations.")
_FINAL_EVAL_STEPS = flags.DEFINE_integer(
    "final_eval_steps", 156_250, "Loss Game: the most batched steps of the "
    "stronger best response that measures each run's last policy again "
    "(ten times the evaluations' along the way; 0: not measured again).",
    lower_bound=0)
_OUTPUT_DIR = flags.DEFINE_string("output_dir", "benchmark_results",
                                  "Where the PNGs, JSONs and runs go.")


def _record(episodes: int, wall_time: float, exploitability: float,
            **extra: float) -> dict:
  return {"episodes": int(episodes), "wall_time": float(wall_time),
          "exploitability": float(exploitability), **extra}


def _seconds() -> float:
  return 60 * _MINUTES.value


def _done(episodes: int, wall_time: float) -> bool:
  """Whether a run has had its budget: --minutes and --episodes."""
  return wall_time >= _seconds() and episodes >= _EPISODES.value


class Setup(NamedTuple):
  """How the methods learn and are measured on one game."""
  # NXDO's settings; PSRO learns with the same oracle.
  recipe: nxdo_recipes.Recipe
  nfsp_env: Any  # NFSP's engine (the Loss Game binned).
  # NFSP's average policy as a policy of the game the others play (the
  # Loss Game's binned actions as continuous ones); None on poker.
  nfsp_policy: Optional[Callable[[Any], Any]]

  @property
  def exact(self) -> bool:
    """Whether exploitability is exact (on the tree) rather than a best
    response's approximation."""
    return self.recipe.evaluator == best_response.EXACT

  @property
  def measure(self) -> str:
    return ("exact exploitability" if self.exact else
            "approximate exploitability (a PPO best response)")

  @property
  def nfsp_exploitability(self) -> Optional[Callable[[Any], float]]:
    """The average policy's exploitability (None: exact on the tree)."""
    if self.nfsp_policy is None:
      return None
    return lambda policy: self.recipe.evaluator(self.nfsp_policy(policy))


def _setup(game: pyspiel.Game) -> Setup:
  """NXDO's recipe for `game`; NFSP plays the game, but the Loss Game's
  continuous actions binned (its `bins` per dimension).

  Raises:
    ValueError: no JAX engine plays `game`.
  """
  recipe = nxdo_recipes.recipe(game, _NUM_ENVS.value, _SIGNAL.value)
  if game.get_type().short_name != "loss_game":
    return Setup(recipe, recipe.env, None)
  params = game.get_parameters()
  return Setup(recipe, engines.make(game, auto_reset=True),
               lambda policy: batched_loss_game.binned_opponent(
                   policy.as_opponent(), params["bins"], params["dims"]))


def _nxdo(game: pyspiel.Game, setup: Setup, method: str, seed: int,
          directory: str, evaluator: Any) -> nxdo_driver.NXDO:
  """The run of an NXDO method in `directory` (resumed if it is there)."""
  recipe, num_envs = setup.recipe, _NUM_ENVS.value
  oracle, solver = recipe.oracle(num_envs, seed), recipe.solver(num_envs, seed)
  swapped = SWAPS.get(method)
  if swapped == "responses":
    oracle = oracles.ExactOracle(game)
  elif swapped == "solve":
    solver = solvers.ExactSolver(game)
  variant = "nxdo" if swapped else method
  return nxdo_driver.NXDO(game, recipe.env, oracle, solver, variant,
                          directory, evaluator)


def _nxdo_run(game: pyspiel.Game, setup: Setup, method: str, seed: int,
              directory: str) -> list[dict]:
  run = _nxdo(game, setup, method, seed, directory, setup.recipe.evaluator)
  while not run.log or not _done(run.log[-1].episodes,
                                 run.log[-1].wall_time):
    entry = run.step()
    print(f"  {method} seed {seed}: iteration {entry.iteration}, "
          f"{entry.episodes:,d} episodes, {entry.wall_time:.0f} s, "
          f"exploitability {entry.exploitability:.3f}"
          + ("" if entry.restricted_exploitability is None else
             f" ({entry.restricted_exploitability:.3f} in the restricted "
             "game)"), flush=True)
  return [_record(e.episodes, e.wall_time, e.exploitability,
                  **({} if e.restricted_exploitability is None else
                     {"restricted": e.restricted_exploitability,
                      "nfsp_estimate": e.solver_estimate}))
          for e in run.log]


def _psro(game: pyspiel.Game, setup: Setup, seed: int, directory: str,
          evaluator: Any) -> p2sro.Pipeline:
  """The PSRO run in `directory` (resumed if it is there)."""
  recipe = setup.recipe
  config = p2sro.Config(method="psro", learners=1, seed=seed,
                        num_envs=_NUM_ENVS.value,
                        chunk_steps=recipe.check_steps,
                        min_steps=recipe.check_steps)
  return p2sro.Pipeline(game, recipe.oracle_config, config, directory,
                        lambda: executors.make_executor("process", 1),
                        evaluator)


def _psro_run(game: pyspiel.Game, setup: Setup, seed: int,
              directory: str) -> list[dict]:
  with _psro(game, setup, seed, directory, setup.recipe.evaluator) as run:
    while not run.log or not _done(run.log[-1].episodes,
                                   run.log[-1].wall_time):
      entry = run.step()
      if entry.added:
        print(f"  psro seed {seed}: round {entry.round}, {entry.fixed} "
              f"policies, {entry.episodes:,d} episodes, "
              f"{entry.wall_time:.0f} s, exploitability "
              f"{entry.exploitability:.3f}", flush=True)
    return [_record(e.episodes, e.wall_time, e.exploitability,
                    policies=e.fixed) for e in run.log]


def _nfsp(setup: Setup, seed: int, directory: str,
          **options: Any) -> tuple[Any, list[nfsp.LogEntry]]:
  """Trains (resumes) the NFSP run in `directory` as `options` say."""
  return nfsp.train_nfsp(
      setup.nfsp_env, nfsp.Config(), steps=10**9, num_envs=_NUM_ENVS.value,
      eval_every=_NFSP_EVAL_EVERY.value, seed=seed,
      checkpoint_path=os.path.join(directory, "nfsp.ckpt"), **options)


def _nfsp_run(game: pyspiel.Game, setup: Setup, seed: int,
              directory: str) -> list[dict]:
  _, log = _nfsp(
      setup, seed, directory, exploitability=setup.nfsp_exploitability,
      on_entry=lambda e: print(
          f"  nfsp seed {seed}: {e.episodes:,d} episodes, "
          f"{e.wall_time:.0f} s, exploitability {e.exploitability:.3f}",
          flush=True),
      stop=lambda log: _done(log[-1].episodes, log[-1].wall_time))
  return [_record(e.episodes, e.wall_time, e.exploitability) for e in log]


def _stronger_evaluator(setup: Setup, seed: int) -> Callable[[Any], float]:
  """The approximate exploitability by a best response of ten times the
  budget, checked for a plateau over a tenth of it, played out 4× longer."""
  steps = _FINAL_EVAL_STEPS.value
  return functools.partial(
      best_response.approximate_exploitability, setup.recipe.env,
      config=setup.recipe.oracle_config, check_steps=steps // 10,
      max_steps=steps, num_envs=_NUM_ENVS.value, eval_steps=2_000, seed=seed)


def _final_exploitability(game: pyspiel.Game, method: str, seed: int,
                          directory: str) -> float:
  """The finished run's last policy, measured by `_stronger_evaluator`."""
  setup = _setup(game)
  evaluate = _stronger_evaluator(setup, seed)
  if method == "nfsp":
    policy, _ = _nfsp(setup, seed, directory, stop=lambda log: True)
    return evaluate(setup.nfsp_policy(policy))
  if method == "psro":
    with _psro(game, setup, seed, directory, evaluate) as run:
      return run.exploitability()
  return evaluate(_nxdo(game, setup, method, seed, directory,
                        evaluate).meta_ne())


def _final(game: pyspiel.Game, method: str, seed: int) -> float:
  """`_final_exploitability` of a finished run, saved beside its log (one
  record per --final_eval_steps it was measured with)."""
  directory = _directory(game, method, seed)
  path = f"{directory}_final.jsonl"
  saved = [record["exploitability"]
           for record in reporting.read_json_lines(path)
           if record["max_steps"] == _FINAL_EVAL_STEPS.value]
  if saved:
    return saved[-1]
  if not os.path.isdir(directory):
    raise FileNotFoundError(
        f"{directory}: the run's checkpoints are not there to measure its "
        "last policy again (--final_eval_steps=0 skips this)")
  print(f"{game}: {method}, seed {seed}: the final policy against a "
        "stronger best response", flush=True)
  value = _final_exploitability(game, method, seed, directory)
  writer = reporting.JsonLinesWriter(path, append=True)
  writer.write({"exploitability": value, "max_steps": _FINAL_EVAL_STEPS.value})
  writer.close()
  return value


def _directory(game: pyspiel.Game, method: str, seed: int) -> str:
  signal = ("" if method in ("psro", "nfsp") or _SIGNAL.value == "exact"
            else f"_{_SIGNAL.value}")
  return os.path.join(_OUTPUT_DIR.value, "runs", _slug(str(game)),
                      f"{method}{signal}_seed{seed}")


def _run(game: pyspiel.Game, method: str, seed: int) -> list[dict]:
  """One run's log, from its JSON lines if it had its budget, else run
  (resumed from its checkpoints, a finished run's too: a larger budget
  extends it)."""
  directory = _directory(game, method, seed)
  if os.path.exists(directory + ".jsonl"):
    log = reporting.read_json_lines(directory + ".jsonl")
    if _done(log[-1]["episodes"], log[-1]["wall_time"]):
      return log
  print(f"{game}: {method}, seed {seed}", flush=True)
  setup = _setup(game)
  if method == "psro":
    log = _psro_run(game, setup, seed, directory)
  elif method == "nfsp":
    log = _nfsp_run(game, setup, seed, directory)
  else:
    log = _nxdo_run(game, setup, method, seed, directory)
  reporting.write_log(log, directory + ".jsonl")
  return log


def _methods(game: pyspiel.Game, setup: Setup) -> list[str]:
  """--methods, less those `game` does not take: where NFSP plays a binned
  copy (the Loss Game's), the actions are continuous, which NXDO-VA cannot
  mask, and in 16 dimensions the copy has too many actions; nor has it
  a tree for the exact swaps."""
  methods = list(_METHODS.value)
  if setup.nfsp_policy is not None:
    skipped = ["nxdo_va", *SWAPS] + (
        ["nfsp"] if game.num_distinct_actions() > 10_000 else [])
    for method in set(skipped) & set(methods):
      print(f"{game}: no {method} (see the module docstring)")
    methods = [m for m in methods if m not in skipped]
  return methods


def _slug(text: str) -> str:
  return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_")


def _at(log: list[dict], budget: float, key: str = "episodes") -> float:
  """The exploitability of the last evaluation at or before `budget` (of
  episodes, or seconds with key "wall_time")."""
  reached = [e["exploitability"] for e in log if e[key] <= budget]
  return reached[-1] if reached else float("nan")


def at_episodes() -> list[int]:
  """--at_episodes as numbers; ValueError names a value that is not a
  positive whole number."""
  try:
    parsed = [int(text) for text in _AT_EPISODES.value]
  except ValueError as error:
    raise ValueError(f"--at_episodes takes whole numbers: {error}") from None
  if any(value <= 0 for value in parsed):
    raise ValueError(f"--at_episodes must be positive, got {parsed}")
  return parsed


def report(game: pyspiel.Game, measure: str,
           results: dict[str, list[list[dict]]],
           finals: dict[str, list[float]]) -> None:
  """Prints the table: per method, the exploitability at each of
  --at_episodes below the episodes every run reached, at those, at
  --minutes of training and at the end (with `finals`, also the last
  policies' by a stronger best response), mean ± standard error over
  seeds. Exact best responses play no games, so nxdo_exact_responses
  counts only NFSP's and does not set the episodes compared at."""
  ends = {method: [log[-1]["episodes"] for log in logs]
          for method, logs in results.items()}
  common = min(sum((v for m, v in ends.items()
                    if SWAPS.get(m) != "responses"), []) or
               sum(ends.values(), []))
  print(f"\n{game}: {measure}, {_SEEDS.value} seeds, at least "
        f"{_MINUTES.value:g} training minutes"
        + (f" and {_EPISODES.value:,d} episodes" if _EPISODES.value else "")
        + " per run")
  milestones = [m for m in at_episodes() if m < common]
  columns = [f"at {m:,d} episodes" for m in milestones]
  columns += [f"at {common:,d} episodes", f"at {_MINUTES.value:g} min",
              "at the end"]
  columns += ["end, stronger BR"] if finals else []
  print(f"{'method':22s}" + "".join(f" {c:>22s}" for c in columns) +
        f"{'episodes at the end':>20s} {'min/run':>8s}")
  mean_error = lambda x: (f" {np.mean(x):13.3f} ± "
                          f"{reporting.standard_error(np.array(x)):6.3f}")
  for method, logs in results.items():
    values = [[_at(log, m) for log in logs] for m in milestones]
    values += [[_at(log, common) for log in logs],
              [_at(log, _seconds(), "wall_time") for log in logs],
              [log[-1]["exploitability"] for log in logs]]
    values += [finals[method]] if finals else []
    episodes = np.mean([log[-1]["episodes"] for log in logs])
    minutes = np.mean([log[-1]["wall_time"] for log in logs]) / 60
    print(f"{method:22s}" + "".join(mean_error(v) for v in values) +
          f"{episodes:20,.0f} {minutes:8.1f}")


def _by_iterations(results: dict[str, list[list[dict]]]
                  ) -> dict[str, list[list[dict]]]:
  """The double-oracle methods' logs with their iteration counts: NXDO adds
  one member an iteration (its i-th entry is iteration i + 1), PSRO's
  rounds count the policies fixed so far (the thesis's Fig. 4.11)."""
  counted = {}
  for method, logs in results.items():
    if method == "psro":
      counted[method] = [[{**e, "iterations": e["policies"]} for e in log]
                         for log in logs]
    elif method != "nfsp":
      counted[method] = [[{**e, "iterations": i + 1}
                          for i, e in enumerate(log)] for log in logs]
  return counted


def plot(game: pyspiel.Game, measure: str,
         results: dict[str, list[list[dict]]], path: str) -> None:
  reporting.plot_runs(
      path, results, [("episodes", 1e6, "episodes (millions)"),
                      ("wall_time", 60, "wall time (minutes)")],
      measure.replace(" (", "\n("),
      f"{game}: {', '.join(results)}, {_SEEDS.value} seeds")


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  for method in _METHODS.value:
    if method not in METHODS:
      raise app.UsageError(f"--methods: unknown method {method!r}; the "
                           f"methods are {', '.join(METHODS)}")
  with cli.user_input("at_episodes"):
    at_episodes()
  for game_string in _GAMES.value:
    game = cli.parse_flag("games", game_string, open_spiel_ext.load_game)
    with cli.user_input("games"):
      setup = _setup(game)
    methods = _methods(game, setup)
    results = {method: [] for method in methods}
    for seed in range(_SEEDS.value):
      for method in methods:
        results[method].append(_run(game, method, seed))
    finals = {}
    if not setup.exact and _FINAL_EVAL_STEPS.value:
      finals = {method: [_final(game, method, seed)
                         for seed in range(_SEEDS.value)]
                for method in methods}
    report(game, setup.measure, results, finals)
    name = f"nxdo_{_slug(str(game))}"
    os.makedirs(_OUTPUT_DIR.value, exist_ok=True)
    with open(os.path.join(_OUTPUT_DIR.value, f"{name}.json"), "w",
              encoding="utf-8") as f:
      json.dump({"runs": results, "final_stronger_br": finals}, f)
    path = os.path.join(_OUTPUT_DIR.value, f"{name}.png")
    plot(game, setup.measure, results, path)
    written = [path, f"{name}.json"]
    by_iterations = _by_iterations(results)
    if by_iterations:  # NFSP alone has no iterations.
      reporting.plot_runs(
          os.path.join(_OUTPUT_DIR.value, f"{name}_iterations.png"),
          by_iterations, [("iterations", 1, "double-oracle iterations")],
          setup.measure,
          f"{game}: exploitability against double-oracle iterations")
      written.insert(1, f"{name}_iterations.png")
    print(f"wrote {', '.join(written[:-1])} and {written[-1]}")


if __name__ == "__main__":
  cli.run(main)
