"""Checkpoints of training runs: any pytree with its config, RNG key and step.

`save` writes atomically (a partial file renamed into place), so an
interrupted save leaves the previous checkpoint intact. `restore` refuses a
checkpoint made with another configuration, naming the settings that
differ, so that a rerun of the same command resumes its own run and no
other. Arrays come back as JAX arrays on the default device. A record
class that was a NamedTuple in older checkpoints and is a frozen dataclass
now (the log entries, issue 72) says so with `reads_former_tuples`, and
those checkpoints still load.

`train_until` is the loop of the budgeted trainers (DAVI, the free-label
puzzle trainers): steps until an iteration count or a time budget, a
checkpoint every few minutes, at the end and on a stop signal.

Stop signals: SIGINT (Ctrl-C), SIGTERM (`timeout`, `docker stop`, a batch
scheduler, a pre-empted machine) and SIGHUP (a closed terminal) all stop a
run the same way. `raise_interrupted`, the handler `cli.run` installs for
SIGTERM and SIGHUP, raises `Interrupted`, a KeyboardInterrupt that knows its
signal, so that whatever unwinds and keeps its work on Ctrl-C does so on the
others; `interrupts_held` holds all three back until a loop's state is
whole, and `Interrupts.stop` then raises the same exception. The program
exits with 128 + the signal's number (130, 143, 129).
"""

import contextlib
import dataclasses
import functools
import os
import pickle
import signal
import threading
import time
from typing import (Any, Callable, Iterator, NamedTuple, NoReturn, Optional,
                    Protocol)

import jax
import numpy as np

PARTIAL_SUFFIX = ".partial"
PROGRESS_SUFFIX = ".progress"  # Of an output file still being written.


class Checkpoint(NamedTuple):
  """What `restore` returns."""
  tree: Any
  key: Optional[jax.Array]
  step: int
  extra: dict[str, Any]


def _as_plain(config: Any) -> dict[str, Any]:
  """A dataclass or mapping as a dict of plain values (tuples for lists)."""
  fields = (dataclasses.asdict(config) if dataclasses.is_dataclass(config)
            else dict(config))
  return {name: tuple(value) if isinstance(value, list) else value
          for name, value in fields.items()}


def save(path: str, tree: Any, config: Any, key: Optional[jax.Array] = None,
         step: int = 0, extra: Optional[dict[str, Any]] = None) -> None:
  """Writes `tree` with the run's config, RNG key, step and extra values."""
  payload = {"config": _as_plain(config), "tree": jax.device_get(tree),
             "key": None if key is None else np.asarray(key),
             "step": int(step), "extra": dict(extra or {})}
  os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
  partial = path + PARTIAL_SUFFIX
  with open(partial, "wb") as f:
    pickle.dump(payload, f)
  os.replace(partial, path)


# (module, name) a class was pickled under when it was a NamedTuple -> the
# dataclass it is now.
_FORMER_TUPLES: dict[tuple[str, str], type] = {}


def reads_former_tuples(*former_paths: str) -> Callable[[type], type]:
  """Class decorator: checkpoints that pickled the class as a NamedTuple
  (under its own path or a former one, `module.Name`) load it as the
  dataclass it now is, its fields in the same order."""

  def register(cls: type) -> type:
    for path in (f"{cls.__module__}.{cls.__qualname__}",) + former_paths:
      module, name = path.rsplit(".", 1)
      _FORMER_TUPLES[(module, name)] = cls
    return cls

  return register


@functools.lru_cache(maxsize=None)
def _tuple_reader(cls: type) -> type:
  """What a pickle builds `cls` with: a NamedTuple's values positionally,
  a dataclass's fields (no values, then its state) as pickle always does."""

  class Reader:

    def __new__(cls_, *values):  # pylint: disable=bad-classmethod-argument
      del cls_
      return cls(*values) if values else object.__new__(cls)

  return Reader


class _Unpickler(pickle.Unpickler):

  def find_class(self, module: str, name: str) -> Any:
    former = _FORMER_TUPLES.get((module, name))
    if former is not None:
      return _tuple_reader(former)
    return super().find_class(module, name)


class CheckpointError(ValueError):
  """A checkpoint that cannot be resumed: unreadable, or another run's. Its
  message names the file; `cli.run` prints it as a one-line error."""


def _read(path: str) -> dict[str, Any]:
  """The payload `save` wrote to `path`.

  Raises:
    ValueError: the file is empty, truncated or not a checkpoint, naming it.
  """
  try:
    with open(path, "rb") as f:
      payload = _Unpickler(f).load()
  except (pickle.UnpicklingError, EOFError, AttributeError, ImportError,
          IndexError, TypeError, ValueError, MemoryError) as error:
    raise CheckpointError(
        f"checkpoint {path} cannot be read ({type(error).__name__}: "
        f"{error or 'no data'}): it is empty, truncated or not a checkpoint; "
        "delete it to start the run over") from None
  if not isinstance(payload, dict) or not {"config", "tree"} <= set(payload):
    raise CheckpointError(f"checkpoint {path} is not a checkpoint of this "
                     "package (no config and tree in it)")
  return payload


def saved_config(path: str) -> dict[str, Any]:
  """The configuration the checkpoint at `path` was saved with (ValueError
  naming it if it cannot be read)."""
  return _read(path)["config"]


def restore(path: str, config: Any,
            may_differ: Callable[[str], bool] = lambda name: False,
            added: Optional[dict[str, Any]] = None) -> Checkpoint:
  """The checkpoint at `path`, which must have been saved with `config`
  (but for the settings `may_differ` names: a run forked from another).
  `added` holds settings introduced after some checkpoints were made, with
  the value that stands for how those runs behaved (the setting's default):
  a checkpoint without one of them counts as saved with that value.

  Raises:
    CheckpointError: the checkpoint was made with another configuration,
      or cannot be read (empty, truncated, not a checkpoint).
  """
  payload = _read(path)
  saved, wanted = {**(added or {}), **payload["config"]}, _as_plain(config)
  differing = [name for name in sorted(set(saved) | set(wanted))
               if saved.get(name) != wanted.get(name) and not may_differ(name)]
  if differing:
    differences = "; ".join(
        f"{name}={wanted.get(name, '(unset)')!r} here, "
        f"{saved.get(name, '(unset)')!r} in the checkpoint"
        for name in differing)
    raise CheckpointError(
        f"checkpoint {path} belongs to another run: {differences}; use "
        "another output directory or the same settings")
  key = payload["key"]
  return Checkpoint(jax.device_put(payload["tree"]),
                    None if key is None else jax.numpy.asarray(key),
                    payload["step"], payload["extra"])


def output_progress(output: str, settings: Any) -> dict[str, Any]:
  """What a run interrupted while producing the file `output` saved with
  `save_output_progress` ({} if nothing), so that the same command goes on
  from there.

  Raises:
    CheckpointError: the progress belongs to a run of other settings, or
      cannot be read.
  """
  path = output + PROGRESS_SUFFIX
  return restore(path, settings).extra if os.path.exists(path) else {}


def save_output_progress(output: str, settings: Any,
                         progress: dict[str, Any]) -> None:
  """Saves `progress` (plain values) towards the file `output` atomically,
  beside it, for `output_progress` to take back."""
  save(output + PROGRESS_SUFFIX, (), settings, extra=progress)


def finish_output(output: str, text: str) -> None:
  """Writes the finished file `output` atomically and removes its
  progress."""
  partial = output + PARTIAL_SUFFIX
  with open(partial, "w", encoding="utf-8") as f:
    f.write(text)
  os.replace(partial, output)
  if os.path.exists(output + PROGRESS_SUFFIX):
    os.remove(output + PROGRESS_SUFFIX)


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Interrupted(KeyboardInterrupt):
  """A run stopped by one of the `STOP_SIGNALS`.

  Attributes:
    signum: the signal's number.
  """

  def __init__(self, signum: int = signal.SIGINT):
    super().__init__(signal.Signals(signum).name)
    self.signum = signum


def stop_signal(error: KeyboardInterrupt) -> signal.Signals:
  """The signal that stopped a run: an `Interrupted`'s own, else SIGINT
  (Python's own handler raises a plain KeyboardInterrupt)."""
  return signal.Signals(getattr(error, "signum", signal.SIGINT))


def raise_interrupted(signum: int, frame: Any) -> NoReturn:
  """A signal handler that stops the run as Ctrl-C does (`Interrupted`)."""
  del frame
  raise Interrupted(signum)


class Interrupts:
  """Stop signals held back until a training loop reaches a point where
  its state is whole: `requested` says whether one came, so the loop can
  checkpoint and then call `stop`."""

  def __init__(self):
    self.signum: Optional[int] = None

  @property
  def requested(self) -> bool:
    return self.signum is not None

  def stop(self) -> NoReturn:
    """Raises the `Interrupted` of the signal that came."""
    raise Interrupted(self.signum or signal.SIGINT)

  def _hold(self, signum: int, frame: Any) -> None:
    del frame
    self.signum = self.signum or signum


@contextlib.contextmanager
def interrupts_held() -> Iterator[Interrupts]:
  """Within the block, a stop signal (`STOP_SIGNALS`) sets
  `Interrupts.requested` instead of raising (in the main thread; elsewhere
  nothing is held); the handlers before it come back afterwards."""
  interrupts = Interrupts()
  if threading.current_thread() is not threading.main_thread():
    yield interrupts
    return
  previous = {signum: signal.signal(signum, interrupts._hold)  # pylint: disable=protected-access
              for signum in STOP_SIGNALS}
  try:
    yield interrupts
  finally:
    for signum, handler in previous.items():
      signal.signal(signum, handler)


class Budget(Protocol):
  """What `train_until` reads of a run's settings (a trainer's RunConfig).

  Attributes:
    iterations: stop after this many iterations in all (resumed ones too).
    max_seconds: also stop after this long (this process's share).
    max_training_seconds: also stop once the run's training time (resumed
      sessions included) reaches this: a budget that survives restarts.
    checkpoint_seconds: wall time between checkpoints.
  """
  iterations: int
  max_seconds: float
  max_training_seconds: float
  checkpoint_seconds: float


class TrainingClock:
  """A run's training time: what earlier sessions trained plus this one."""

  def __init__(self, seconds_before: float):
    self._began = time.perf_counter()
    self._seconds_before = seconds_before

  def session_seconds(self) -> float:
    return time.perf_counter() - self._began

  def training_seconds(self) -> float:
    return self._seconds_before + self.session_seconds()


def train_until(budget: Budget, iteration: int, seconds_before: float,
                step: Callable[[TrainingClock], int],
                save: Callable[[float], None],
                log: Callable[[str], None] = print) -> int:
  """Runs `step` until `budget` says stop; returns the iterations done.

  `step(clock)` does one unit of work (logging and evaluating as it sees
  fit) and returns the run's iteration count after it. `save(training
  seconds)` checkpoints: every `budget.checkpoint_seconds` of wall time, at
  the end, and on a stop signal, which waits for the step to end and is
  raised as `Interrupted` once saved.
  """
  clock = TrainingClock(seconds_before)
  saved_at = time.perf_counter()
  with interrupts_held() as interrupts:
    while (iteration < budget.iterations and
           clock.session_seconds() < budget.max_seconds and
           clock.training_seconds() < budget.max_training_seconds):
      iteration = step(clock)
      if time.perf_counter() - saved_at >= budget.checkpoint_seconds:
        save(clock.training_seconds())
        saved_at = time.perf_counter()
      if interrupts.requested:
        save(clock.training_seconds())
        log(f"interrupted at iteration {iteration}: checkpointed")
        interrupts.stop()
  save(clock.training_seconds())
  return iteration
