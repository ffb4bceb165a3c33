"""Parallel work behind one interface: local spawned processes, or Ray.

  with executors.make_executor("process", workers=4) as executor:
    futures = [executor.submit(train, config, seed) for seed in seeds]
    for future in executors.as_completed(futures):
      keep(future.result())

A task is a top-level function with picklable arguments. `submit` returns a
`concurrent.futures.Future`; `as_completed` yields futures as their tasks
finish, `results` gives the results in submission order. `future.cancel()`
cancels a task that has not started (a running one is left to finish), as
`concurrent.futures` does; at most `workers` tasks run at once.

A task whose worker process died (killed, out of memory) fails with
`WorkerLost`, whatever the backend (Ray's own retries are off, so that both
behave alike). The process pool is then broken (its other running tasks
fail with it too); a caller that wants the work done shuts the executor
down and submits again to a new one.

Leaving the `with` block normally waits for every task. Leaving it by an
exception (KeyboardInterrupt on Ctrl-C, and on SIGTERM or SIGHUP where
`cli.run` runs the program) calls `shutdown(cancel=True)`: pending tasks are
cancelled, running ones are stopped at once (their futures raise
`concurrent.futures.BrokenExecutor`) and every worker exits. Futures that had
finished keep their results.

Backends (`make_executor(name, ...)`; code that submits tasks never needs to
know which one runs them):

- `process` (the default): a `ProcessPoolExecutor` of spawned processes (JAX
  does not fork well). A worker starts with SIGINT and SIGHUP blocked, so a
  Ctrl-C at the terminal or the terminal's closing, which reach the whole
  process group, stop only the parent and no worker prints a traceback; a
  thread in each worker waits on a pipe that only the parent holds open, and
  ends the worker the moment the parent closes it (`shutdown(cancel=True)`)
  or dies, SIGKILL included.
- `ray` (`pip install ".[ray]"`; Ray is imported only here): starts a local
  Ray instance of `workers` CPUs, or joins the cluster at `address` ("auto":
  the one `ray start` began), unless this process has already initialised
  Ray, whose instance it then uses and leaves running; shuts down only what
  it started. Ray blocks SIGINT in its workers and ends them with the
  program; a task is stopped by `ray.cancel(force=True)`. A program killed
  outright (SIGKILL) after starting a local instance leaves Ray's dashboard
  and runtime-env agents running (Ray's own processes, no task in them; Ray
  2.60, ray-project/ray#52385).
"""

import abc
import collections
import concurrent.futures
from concurrent.futures import process as process_pool
import logging
import multiprocessing
from multiprocessing import connection
from multiprocessing import resource_tracker
import os
import queue
import signal
import threading
from typing import (Any, Callable, Iterable, Iterator, NamedTuple, Optional,
                    TypeVar)

T = TypeVar("T")
Future = concurrent.futures.Future

# Exit code of a worker ended because its parent stopped the pool or died.
_STOPPED_EXIT_CODE = 1
_RAY_INSTALL = ('pip install "open_spiel_ext[ray]" (or pip install ".[ray]" '
                "in a checkout)")


class WorkerLost(concurrent.futures.BrokenExecutor):
  """A task's worker process died before the task finished."""


class _Work(NamedTuple):
  future: Future
  fn: Callable[..., Any]
  args: tuple[Any, ...]
  kwargs: dict[str, Any]


class Executor(abc.ABC):
  """Runs tasks in worker processes; see the module docstring.

  A dispatcher thread holds the tasks and hands one to the backend whenever
  fewer than `workers` run, so that a task no worker has taken can always be
  cancelled. It blocks SIGINT and SIGHUP, which the workers it starts
  inherit.
  """

  def __init__(self, workers: int):
    if workers < 1:
      raise ValueError(f"workers must be at least 1, got {workers}")
    self.workers = workers
    self._open()
    self._closed = False
    self._unfinished: set[Future] = set()
    self._inbox: queue.SimpleQueue = queue.SimpleQueue()
    self._dispatcher = threading.Thread(target=self._dispatch, daemon=True,
                                        name=type(self).__name__)
    self._dispatcher.start()

  def submit(self, fn: Callable[..., T], /, *args: Any,
             **kwargs: Any) -> "Future[T]":
    """Schedules `fn(*args, **kwargs)`; returns its future."""
    if self._closed:
      raise RuntimeError("cannot submit tasks after shutdown")
    future = Future()
    self._unfinished.add(future)
    future.add_done_callback(self._unfinished.discard)
    self._inbox.put(_Work(future, fn, args, kwargs))
    return future

  def shutdown(self, cancel: bool = False) -> None:
    """Waits for every task, or with `cancel` (or when an interrupt ends the
    wait) cancels those not started and stops those running; then ends the
    workers. Once is enough."""
    if self._closed:
      return
    self._closed = True
    finished = False
    try:
      if not cancel:
        concurrent.futures.wait(list(self._unfinished))
        finished = True
    finally:
      self._inbox.put(None)
      self._dispatcher.join()
      self._close(stop_running=not finished)

  def __enter__(self) -> "Executor":
    return self

  def __exit__(self, exc_type, exc_value, traceback) -> None:
    self.shutdown(cancel=exc_type is not None)

  def _dispatch(self) -> None:
    """Moves tasks to the backend and results back, until it reads None."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGHUP})
    waiting = collections.deque()
    running = {}  # The backend's future of each running task -> ours.
    while (message := self._inbox.get()) is not None:
      if isinstance(message, _Work):
        waiting.append(message)
      else:
        self._copy_outcome(message, running.pop(message))
      while waiting and len(running) < self.workers:
        self._launch(waiting.popleft(), running)
    for work in waiting:
      work.future.cancel()
    for future in running.values():
      future.set_exception(concurrent.futures.BrokenExecutor(
          "the task was stopped by shutdown(cancel=True)"))

  def _launch(self, work: _Work, running: dict[Future, Future]) -> None:
    """Starts `work` unless it was cancelled; if the backend refuses it (an
    argument Ray cannot pickle, a broken pool), its future fails at once."""
    if not work.future.set_running_or_notify_cancel():
      return
    try:
      task = self._start(work.fn, work.args, work.kwargs)
    except Exception as error:  # pylint: disable=broad-except
      work.future.set_exception(self._as_reported(error))
      return
    task.add_done_callback(self._inbox.put)
    running[task] = work.future

  def _copy_outcome(self, source: Future, target: Future) -> None:
    error = source.exception()
    if error is None:
      target.set_result(source.result())
    else:
      target.set_exception(self._as_reported(error))

  def _as_reported(self, error: BaseException) -> BaseException:
    """The backend's `error`, or WorkerLost if it says a worker died."""
    if not self._is_worker_lost(error):
      return error
    lost = WorkerLost(f"the task's worker died: {error}")
    lost.__cause__ = error
    return lost

  @abc.abstractmethod
  def _is_worker_lost(self, error: BaseException) -> bool:
    """Whether the backend's `error` says the task's worker died."""

  @abc.abstractmethod
  def _open(self) -> None:
    """Starts the backend for `self.workers` tasks at once."""

  @abc.abstractmethod
  def _start(self, fn: Callable[..., Any], args: tuple[Any, ...],
             kwargs: dict[str, Any]) -> Future:
    """Runs fn(*args, **kwargs) on a free worker; returns the backend's
    future."""

  @abc.abstractmethod
  def _close(self, stop_running: bool) -> None:
    """Ends the workers: at once if `stop_running`, else once idle."""


def in_fresh_process(fn: Callable[..., T], *args: Any) -> T:
  """`fn(*args)` in a new spawned process (a measurement whose time and peak
  memory are its own), waited for."""
  with multiprocessing.get_context("spawn").Pool(1) as pool:
    return pool.apply(fn, args)


def as_completed(futures: Iterable[Future]) -> Iterator[Future]:
  """Yields each future once its task has finished, first finished first."""
  return concurrent.futures.as_completed(futures)


def results(futures: Iterable[Future]) -> list[Any]:
  """The tasks' results in submission order; raises the first task's error."""
  return [future.result() for future in futures]


def _exit_when_closed(stop: connection.Connection) -> None:
  stop.poll(None)  # Readable only at end of file: no writer is left.
  os._exit(_STOPPED_EXIT_CODE)  # pylint: disable=protected-access


def _start_watchdog(stop: connection.Connection) -> None:
  """Worker initializer: the worker ends once no process holds the write end
  of `stop` (the parent closed it, or died)."""
  threading.Thread(target=_exit_when_closed, args=(stop,), daemon=True,
                   name="exit-with-parent").start()


class ProcessExecutor(Executor):
  """A pool of `workers` spawned processes on this machine."""

  def _open(self) -> None:
    context = multiprocessing.get_context("spawn")  # JAX does not fork well.
    # Multiprocessing's resource tracker, started with SIGHUP blocked, lives
    # through a hang-up to clean up after the pool (else it dies, a new one
    # starts, and the pool's shutdown prints its KeyErrors).
    hangup_mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGHUP})
    try:
      resource_tracker.ensure_running()
    finally:
      signal.pthread_sigmask(signal.SIG_SETMASK, hangup_mask)
    self._stop, self._stop_writer = context.Pipe(duplex=False)
    self._pool = concurrent.futures.ProcessPoolExecutor(
        self.workers, mp_context=context, initializer=_start_watchdog,
        initargs=(self._stop,))

  def _start(self, fn, args, kwargs) -> Future:
    return self._pool.submit(fn, *args, **kwargs)

  def _is_worker_lost(self, error: BaseException) -> bool:
    return isinstance(error, process_pool.BrokenProcessPool)

  def _close(self, stop_running: bool) -> None:
    if not stop_running:
      self._pool.shutdown()  # The workers finish and exit on their own.
    self._stop_writer.close()  # Ends every worker left, at once.
    self._pool.shutdown()
    self._stop.close()


def _call(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
  return fn(*args, **kwargs)


def _import_ray():
  try:
    import ray  # pylint: disable=g-import-not-at-top
  except ImportError:
    raise ImportError(
        f"the ray executor needs Ray, which is not installed: {_RAY_INSTALL}"
        ) from None
  return ray


class RayExecutor(Executor):
  """Tasks on Ray: a local instance of `workers` CPUs, or a cluster."""

  def __init__(self, workers: int, address: Optional[str] = None):
    self._ray = _import_ray()
    self._address = address
    super().__init__(workers)

  def _open(self) -> None:
    self._owns_ray = not self._ray.is_initialized()
    if self._owns_ray:
      where = ({"address": self._address} if self._address else
               {"address": "local", "num_cpus": self.workers})
      on_sigterm = signal.getsignal(signal.SIGTERM)
      self._ray.init(**where, include_dashboard=False,
                     logging_level=logging.WARNING)
      if (callable(on_sigterm) and
          signal.getsignal(signal.SIGTERM) is not on_sigterm):
        signal.signal(signal.SIGTERM, on_sigterm)  # ray.init replaced it.
    self._remote_call = self._ray.remote(_call)
    self._references = {}  # The Ray future of each running task -> its ref.

  def _start(self, fn, args, kwargs) -> Future:
    reference = self._remote_call.options(
        name=fn.__qualname__, max_retries=0).remote(fn, *args, **kwargs)
    task = reference.future()
    self._references[task] = reference
    task.add_done_callback(self._references.pop)
    return task

  def _is_worker_lost(self, error: BaseException) -> bool:
    lost = self._ray.exceptions
    return isinstance(error, (lost.WorkerCrashedError, lost.NodeDiedError,
                              lost.LocalRayletDiedError))

  def _close(self, stop_running: bool) -> None:
    del stop_running  # A task still running now is one to stop.
    for reference in list(self._references.values()):
      self._ray.cancel(reference, force=True)
    if self._owns_ray:
      self._ray.shutdown()


_BACKENDS = {"process": ProcessExecutor, "ray": RayExecutor}
EXECUTORS = tuple(_BACKENDS)


def make_executor(name: str = "process", workers: Optional[int] = None,
                  address: Optional[str] = None) -> Executor:
  """The executor called `name` (one of EXECUTORS).

  Args:
    name: "process" or "ray".
    workers: tasks run at once (default: the machine's CPU count).
    address: ray only: the Ray cluster to join (default: a new local
      instance).

  Raises:
    ValueError: an unknown name, fewer than one worker, or an address for
      the process executor.
    ImportError: ray, where Ray is not installed (the message says how to
      install it).
  """
  if name not in _BACKENDS:
    raise ValueError(f"unknown executor {name!r}; the executors are "
                     f"{', '.join(EXECUTORS)}")
  workers = (os.cpu_count() or 1) if workers is None else workers
  if name == "ray":
    return RayExecutor(workers, address)
  if address is not None:
    raise ValueError(f"address={address!r} is for the ray executor; the "
                     "process executor runs on this machine")
  return ProcessExecutor(workers)
