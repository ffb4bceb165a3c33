"""Each stop signal, sent to each resumable example, loses nothing.

SIGTERM (`timeout`, `docker stop`, a batch scheduler, a pre-empted machine)
and SIGHUP (a closed terminal) used to end `deepcubea_train` and
`hanabi_train` with no checkpoint, and their rerun started over. Here each
example runs as a chain: stopped by SIGTERM just after its first save, the
same command resumed and stopped by SIGHUP, resumed and stopped by SIGINT,
and resumed to the end. Each stop must exit with 128 + the signal without a
traceback; the chain must end with the records of a run never stopped (wall
times aside), its metrics written once each, in order, and do no more work
than that run (counted in calls of the function after which the signal
comes), but for what a run that checkpoints every few steps does again.
"""

import json
import pathlib
import signal
import subprocess
import sys
from typing import Any, NamedTuple, Optional

import pytest

from open_spiel_ext.utils import reporting

_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)

# The example run with a signal sent to itself just after the `at`-th call
# of `module.attribute` (a function, or a class's method) returns, or, where
# the work is done in executor workers, once the file `watch` has been
# written `at` times; at exit, the number of calls is added to the file
# `calls`.
_STOPPED_RUN = """
import atexit, functools, importlib, os, sys, threading, time
owner = importlib.import_module({module!r})
*path, name = {attribute!r}.split(".")
for part in path:
  owner = getattr(owner, part)
original = getattr(owner, name)
calls = 0
@functools.wraps(original)
def stopping(*args, **kwargs):
  global calls
  result = original(*args, **kwargs)
  calls += 1
  if calls == {hook_at}:
    os.kill(os.getpid(), {signum})
  return result
setattr(owner, name, stopping)
def watch_writes(path, at, signum):
  def stamp():
    try:
      return os.stat(path).st_mtime_ns
    except FileNotFoundError:
      return None
  last, writes = stamp(), 0
  while writes < at:
    time.sleep(0.02)
    now = stamp()
    if now is not None and now != last:
      last, writes = now, writes + 1
  os.kill(os.getpid(), signum)
if {watch!r} and {signum}:
  threading.Thread(target=watch_writes, args=({watch!r}, {at}, {signum}),
                   daemon=True).start()
def count():
  with open({calls!r}, "a") as f:
    f.write(f"{{calls}}\\n")
atexit.register(count)
from open_spiel_ext.utils import cli
example = importlib.import_module("open_spiel_ext.examples." + {example!r})
sys.argv = [{example!r}, *{flags!r}]
cli.run(example.main)
"""
_CHECKPOINT_SAVE = ("open_spiel_ext.utils.checkpoints", "save")
_RECORD_WRITE = ("open_spiel_ext.utils.reporting", "JsonLinesWriter.write")
_GAME_PLAYED = ("open_spiel_ext.algorithms.hanabi.selfplay", "describe")


class Resumable(NamedTuple):
  """An example that resumes, in a run of a few seconds."""
  example: str
  flags: tuple[str, ...]
  # The JSON-lines file (or JSON file) a finished run leaves; "": the file
  # --output names.
  records: str
  # Its field that grows record by record (of each "kind" of record).
  counter: Optional[str] = None
  hook: tuple[str, str] = _RECORD_WRITE
  at: int = 1  # The signal comes after this call of the hook.
  # Where the work runs in executor workers: the file (in the output folder)
  # whose `at`-th write brings the signal instead.
  watch: str = ""
  redone: int = 0  # Calls of the hook a stop may cost (done again).
  output_flag: str = "output_dir"
  output_suffix: str = ""  # With output_flag "output": the file's ending.
  # Whether a resumed run ends as one never stopped; else (a checkpoint that
  # leaves out a replay buffer, refilled with new games on resume) only the
  # records' counters must agree.
  exact: bool = True


_FAST = [
    Resumable("deepcubea_train",
              ("--puzzle=rubiks_cube", "--size=2", "--iterations=30",
               "--batch_size=64", "--hidden_sizes=32", "--num_blocks=1",
               "--check_every=5", "--loss_threshold=100", "--log_every=5",
               "--eval_every=30", "--eval_states=4"),
              "metrics.jsonl", "iteration"),
    Resumable("puzzle_test_set",
              ("--puzzle=sliding_puzzle", "--size=3", "--count=6",
               "--seed=2"), "", hook=_CHECKPOINT_SAVE, output_flag="output",
              output_suffix=".json"),
]
_SLOW = [
    Resumable("free_label_train",
              ("--puzzle=rubiks_cube", "--size=2", "--iterations=30",
               "--walks=16", "--hidden_sizes=32", "--num_blocks=1",
               "--log_every=5", "--eval_every=30", "--eval_states=4"),
              "metrics.jsonl", "iteration"),
    Resumable("hanabi_train",
              ("--preset=small", "--max_moves=4096", "--eval_every=1024",
               "--eval_games=8", "--num_envs=16", "--lstm_size=16"),
              "metrics.jsonl", "moves"),
    Resumable("generate_sokoban_levels",
              ("--num_levels=6", "--rows=8", "--cols=8", "--boxes=2",
               "--reverse_steps=100", "--seed=4"), "",
              hook=("open_spiel_ext.games.puzzles.sokoban_generator",
                    "generate_level"), output_flag="output",
              output_suffix=".txt"),
    Resumable("stratego_eval",
              ("--bots=random,heuristic,scout", "--games=4",
               "--ply_limit=40"), "stratego_eval.json", hook=_RECORD_WRITE),
    Resumable("hanabi_play",
              ("--preset=small", "--games=4", "--workers=1", "--seed=3"),
              "games.jsonl", hook=_GAME_PLAYED),
    Resumable("nfsp",
              ("--game=kuhn_poker", "--steps=4000", "--eval_every=1000"),
              "metrics.jsonl", "step", hook=_CHECKPOINT_SAVE),
    Resumable("best_response",
              ("--game=kuhn_poker", "--opponent=cfr+:20", "--steps=4000",
               "--eval_every=1000"), "metrics.jsonl", "step",
              hook=_CHECKPOINT_SAVE),
    Resumable("capi",
              ("--game=tiny_hanabi_a", "--seeds=0", "--episodes=40",
               "--eval_every=10", "--num_prescriptions=50",
               "--hidden_sizes=32"), "metrics_seed0.jsonl", "episode",
              watch="checkpoint_seed0.pkl"),
    Resumable("nxdo",
              ("--game=kuhn_poker", "--oracle=exact", "--iterations=5"),
              "metrics.jsonl", "iteration", hook=_CHECKPOINT_SAVE),
    Resumable("p2sro",
              ("--game=kuhn_poker", "--oracle=ddqn", "--learners=2",
               "--num_envs=8", "--chunk_steps=100", "--min_steps=100",
               "--env_steps=6400", "--workers=1"),
              "metrics.jsonl", "round", hook=_CHECKPOINT_SAVE),
    Resumable("hanabi_belief_train",
              ("--preset=small", "--lstm_size=16", "--value_layers=16",
               "--max_updates=80", "--eval_every=20", "--eval_games=16"),
              "metrics.jsonl", "updates", hook=_CHECKPOINT_SAVE,
              exact=False),
]
_TIMES = ("wall_time", "seconds", "time", "elapsed", "seconds_by_part",
          "task_time", "entry_time", "checkpoint_time")


def _command(case: Resumable, output: pathlib.Path) -> list[str]:
  return [*case.flags, f"--{case.output_flag}={output}"]


def _run(case: Resumable, output: pathlib.Path, calls: pathlib.Path,
         signum: int = 0) -> subprocess.CompletedProcess:
  """Runs `case`, stopped by `signum` after the hook's `at`-th call (0:
  never), counting the hook's calls in the file `calls`."""
  module, attribute = case.hook
  code = _STOPPED_RUN.format(
      module=module, attribute=attribute,
      hook_at=case.at if signum and not case.watch else -1, at=case.at,
      signum=int(signum), calls=str(calls),
      watch=str(output / case.watch) if case.watch else "",
      example=case.example,
      flags=[*case.flags, f"--{case.output_flag}={output}"])
  return subprocess.run([sys.executable, "-c", code], capture_output=True,
                        text=True, timeout=600)


def _calls(path: pathlib.Path) -> int:
  return sum(int(line) for line in path.read_text().split())


def _without_times(value: Any) -> Any:
  if isinstance(value, dict):
    return {key: _without_times(item) for key, item in value.items()
            if key not in _TIMES}
  if isinstance(value, list):
    return [_without_times(item) for item in value]
  return value


def _records(case: Resumable, output: pathlib.Path) -> Any:
  path = output / case.records if case.records else output
  if path.suffix == ".jsonl":
    return reporting.read_json_lines(str(path))
  return json.loads(path.read_text()) if path.suffix == ".json" else (
      path.read_text())


def _check_chain(case: Resumable, tmp_path: pathlib.Path) -> None:
  suffix = case.output_suffix
  chained, never_stopped = (tmp_path / f"chained{suffix}",
                            tmp_path / f"never_stopped{suffix}")
  chained_calls, never_stopped_calls = (tmp_path / "chained_calls",
                                        tmp_path / "never_stopped_calls")
  for signum in _SIGNALS:
    stopped = _run(case, chained, chained_calls, signum)
    assert stopped.returncode == 128 + signum, (signum, stopped.stderr[-3000:])
    assert "Traceback" not in stopped.stderr, stopped.stderr[-3000:]
  finished = _run(case, chained, chained_calls)
  assert finished.returncode == 0, finished.stderr[-3000:]
  reference = _run(case, never_stopped, never_stopped_calls)
  assert reference.returncode == 0, reference.stderr[-3000:]
  records, reference_records = (_records(case, chained),
                                _records(case, never_stopped))
  if case.exact:
    assert _without_times(records) == _without_times(reference_records)
  else:
    assert [r[case.counter] for r in records] == [
        r[case.counter] for r in reference_records]
  if case.counter:  # Each record once, in order, kind by kind.
    for kind in {record.get("kind") for record in records}:
      counts = [record[case.counter] for record in records
                if record.get("kind") == kind]
      assert counts == sorted(set(counts)), (kind, counts)
  assert _calls(chained_calls) <= (_calls(never_stopped_calls) +
                                   case.redone * len(_SIGNALS))


@pytest.mark.parametrize("case", _FAST, ids=lambda case: case.example)
def test_every_stop_signal_resumes_with_nothing_lost(case, tmp_path):
  _check_chain(case, tmp_path)


def _slow_chains(cases: list[Resumable]) -> type:
  """A class of slow chains: two such classes let pytest-xdist's --dist
  loadscope give the slow chains to both workers (a module's own tests go
  to one)."""

  @pytest.mark.slow
  class Chains:

    @pytest.mark.parametrize("case", cases, ids=lambda case: case.example)
    def test_resumes_with_nothing_lost(self, case, tmp_path):
      _check_chain(case, tmp_path)

  return Chains


TestEverySignalFirstHalf = _slow_chains(_SLOW[::2])
TestEverySignalSecondHalf = _slow_chains(_SLOW[1::2])
