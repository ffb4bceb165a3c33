"""The executors: both backends run the same tasks to the same results, cancel
and shut down alike, and a stopped example leaves no worker behind."""

import concurrent.futures
import math
import os
import signal
import subprocess
import sys
import threading
import time
import uuid

import pytest

from open_spiel_ext.utils import executors

try:
  import ray  # pylint: disable=g-import-not-at-top
except ImportError:
  ray = None

_NEEDS_RAY = pytest.mark.skipif(
    ray is None, reason="Ray is not installed (pip install '.[ray]')")
BACKENDS = ["process", pytest.param("ray", marks=_NEEDS_RAY)]
# Set in an example's environment, so every process it starts carries it.
_MARKER = "OPEN_SPIEL_EXT_TEST_MARKER"
# Seconds an interrupted example may take to exit (Ray's shutdown included).
_PROMPTLY = 15


@pytest.fixture(name="ray_instance", scope="module")
def ray_instance_fixture():
  ray.init(address="local", num_cpus=2, include_dashboard=False)
  yield
  ray.shutdown()


@pytest.fixture(name="executor", params=BACKENDS)
def executor_fixture(request):
  if request.param == "ray":
    request.getfixturevalue("ray_instance")
  with executors.make_executor(request.param, workers=2) as executor:
    yield executor


def _wait_until(condition, seconds: float = 60) -> None:
  deadline = time.monotonic() + seconds
  while not condition():
    assert time.monotonic() < deadline, "timed out"
    time.sleep(0.05)


def test_both_backends_return_the_same_results(executor):
  futures = [executor.submit(math.factorial, n) for n in range(8)]
  futures.append(executor.submit(int, "ff", base=16))
  assert set(executors.as_completed(futures)) == set(futures)
  assert executors.results(futures) == [math.factorial(n)
                                        for n in range(8)] + [255]


def test_as_completed_yields_the_first_finished_first(executor):
  slow = executor.submit(time.sleep, 60)
  fast = executor.submit(time.sleep, 0)
  assert next(executors.as_completed([slow, fast])) is fast
  executor.shutdown(cancel=True)


def test_a_task_error_reaches_the_caller(executor):
  with pytest.raises(ValueError, match="negative"):
    executor.submit(math.factorial, -1).result()


def test_a_task_whose_worker_dies_fails_with_worker_lost(executor):
  # os.abort ends the worker running it at once (SIGABRT); a builtin, so
  # that a Ray worker can unpickle it without this test module.
  with pytest.raises(executors.WorkerLost, match="worker died"):
    executor.submit(os.abort).result()


def test_cancel_stops_only_tasks_not_started(executor):
  running = [executor.submit(time.sleep, 60) for _ in range(2)]
  waiting = executor.submit(math.factorial, 3)
  _wait_until(lambda: all(future.running() for future in running))
  assert waiting.cancel() and waiting.cancelled()
  assert not running[0].cancel()
  executor.shutdown(cancel=True)


def test_shutdown_waits_for_every_task_then_refuses_more(executor):
  futures = [executor.submit(time.sleep, 0.2) for _ in range(3)]
  executor.shutdown()
  assert all(future.done() and future.exception() is None
             for future in futures)
  with pytest.raises(RuntimeError, match="after shutdown"):
    executor.submit(math.factorial, 3)


def test_shutdown_with_cancel_stops_at_once_and_keeps_results(executor):
  finished = executor.submit(math.factorial, 10)
  assert finished.result() == 3_628_800
  running = [executor.submit(time.sleep, 60) for _ in range(2)]
  waiting = executor.submit(time.sleep, 60)
  _wait_until(lambda: all(future.running() for future in running))
  start = time.monotonic()
  executor.shutdown(cancel=True)
  assert time.monotonic() - start < 10
  assert finished.result() == 3_628_800
  assert waiting.cancelled()
  for future in running:
    with pytest.raises(concurrent.futures.BrokenExecutor):
      future.result(timeout=0)


@pytest.fixture(name="ctrl_c_raises")
def ctrl_c_raises_fixture():
  """Python's own SIGINT handler for the test, also where this process came
  in ignoring SIGINT (a shell's background job)."""
  previous = signal.signal(signal.SIGINT, signal.default_int_handler)
  yield
  signal.signal(signal.SIGINT, previous)


@pytest.mark.usefixtures("ctrl_c_raises")
def test_an_interrupt_while_shutdown_waits_stops_the_tasks(executor):
  running = executor.submit(time.sleep, 60)
  _wait_until(running.running)
  threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
  start = time.monotonic()
  with pytest.raises(KeyboardInterrupt):
    executor.shutdown()
  assert time.monotonic() - start < 10
  with pytest.raises(concurrent.futures.BrokenExecutor):
    running.result(timeout=0)


def test_leaving_the_block_by_an_exception_ends_the_workers():
  with pytest.raises(KeyboardInterrupt):
    with executors.make_executor("process", workers=2) as executor:
      pids = set(executors.results([executor.submit(os.getpid)
                                    for _ in range(2)]))
      executor.submit(time.sleep, 60)
      raise KeyboardInterrupt
  assert not pids & set(_live_processes())


@_NEEDS_RAY
def test_ray_leaves_an_instance_it_did_not_start_running(ray_instance):
  del ray_instance
  with executors.make_executor("ray", workers=2) as executor:
    assert executor.submit(math.factorial, 4).result() == 24
  assert ray.is_initialized()


@pytest.mark.parametrize("name, options, message", [
    ("dask", {}, "unknown executor 'dask'; the executors are process, ray"),
    ("process", {"workers": 0}, "workers must be at least 1, got 0"),
    ("process", {"address": "auto"},
     "address='auto' is for the ray executor"),
])
def test_bad_arguments_say_what_is_wrong(name, options, message):
  with pytest.raises(ValueError, match=message):
    executors.make_executor(name, **options)


def test_ray_not_installed_says_how_to_install_it(monkeypatch):
  monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` fails.
  with pytest.raises(ImportError, match=r'pip install "open_spiel_ext\[ray\]"'):
    executors.make_executor("ray", workers=1)


def _live_processes(token: str = "") -> dict[int, str]:
  """The command line of each live process (whose environment holds the
  marker `token`)."""
  marker = f"{_MARKER}={token}".encode()
  found = {}
  for entry in os.listdir("/proc"):
    if not entry.isdigit():
      continue
    try:
      with open(f"/proc/{entry}/stat", "rb") as f:
        state = f.read().rsplit(b")", 1)[1].split()[0]
      with open(f"/proc/{entry}/environ", "rb") as f:
        environment = f.read().split(b"\0")
      with open(f"/proc/{entry}/cmdline", "rb") as f:
        command = f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:  # Gone meanwhile, or another user's.
      continue
    if state != b"Z" and (not token or marker in environment):
      found[int(entry)] = command
  return found


def _left_after(token: str, seconds: float) -> dict[int, str]:
  """The processes marked `token` still alive after up to `seconds`."""
  deadline = time.monotonic() + seconds
  while (left := _live_processes(token)) and time.monotonic() < deadline:
    time.sleep(0.1)
  return left


def _interruptible() -> None:
  """Lets Ctrl-C reach a child even where this process ignores SIGINT (a
  shell's background job), as it would from a terminal."""
  signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start_example(backend: str, token: str, output_dir) -> tuple[
    subprocess.Popen, list[str]]:
  """The baselines example, two long jobs at once, in a session of its own,
  every process of it marked `token`; its stdout lines as they come."""
  with open(output_dir / "stderr.txt", "w", encoding="utf-8") as stderr:
    process = subprocess.Popen(
        [sys.executable, "-m",
         "open_spiel_ext.examples.tiny_hanabi_baselines",
         "--games=tiny_hanabi_a,tiny_hanabi_b", "--algorithms=iql",
         "--runs=4", "--episodes=100000000", "--eval_every=1000",
         f"--executor={backend}", "--workers=2", f"--output_dir={output_dir}"],
        stdout=subprocess.PIPE, stderr=stderr, text=True, cwd=output_dir,
        env=dict(os.environ, **{_MARKER: token}), start_new_session=True,
        preexec_fn=_interruptible)
  lines = []
  threading.Thread(target=lambda: lines.extend(process.stdout),
                   daemon=True).start()
  return process, lines


def _both_jobs_running(lines: list[str]) -> bool:
  return all(any(f"{game} iql episode" in line for line in lines)
             for game in ("tiny_hanabi_a", "tiny_hanabi_b"))


@pytest.mark.parametrize("backend, signum, exit_code", [
    ("process", signal.SIGINT, 130),
    ("process", signal.SIGTERM, 143),
    ("process", signal.SIGHUP, 129),
    ("process", signal.SIGKILL, -signal.SIGKILL),
    pytest.param("ray", signal.SIGINT, 130, marks=_NEEDS_RAY),
    # SIGTERM unwinds as SIGINT does (cli.run), and ray's workers stopping
    # on the unwinding is the case above; this one costs a quarter of a
    # minute: -m slow.
    pytest.param("ray", signal.SIGTERM, 143,
                 marks=[_NEEDS_RAY, pytest.mark.slow]),
])
def test_stopping_a_running_example_leaves_no_worker(backend, signum,
                                                     exit_code, tmp_path):
  token = str(uuid.uuid4())
  process, lines = _start_example(backend, token, tmp_path)
  try:
    _wait_until(lambda: _both_jobs_running(lines) or
                process.poll() is not None, seconds=180)
    assert process.poll() is None, (tmp_path / "stderr.txt").read_text()
    start = time.monotonic()
    if signum in (signal.SIGINT, signal.SIGHUP):
      # Ctrl-C, or the terminal closing: the terminal signals the group.
      os.killpg(process.pid, signum)
    else:  # kill PID
      process.send_signal(signum)
    assert process.wait(timeout=60) == exit_code
    assert time.monotonic() - start < _PROMPTLY
    assert not _left_after(token, seconds=10)
    assert "Traceback" not in (tmp_path / "stderr.txt").read_text()
  finally:
    for pid in _live_processes(token):
      os.kill(pid, signal.SIGKILL)
    process.wait()


def test_in_fresh_process_runs_elsewhere_and_returns_the_result():
  assert executors.in_fresh_process(math.factorial, 5) == 120
  assert executors.in_fresh_process(os.getpid) != os.getpid()
