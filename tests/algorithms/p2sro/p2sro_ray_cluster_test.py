"""P2SRO across a two-node Ray cluster (two raylets of one CPU each on this
machine, as `ray start` would make on two), one node lost midway: the run
ends exactly as one never interrupted."""

import contextlib
import dataclasses
import glob
import os
import signal
import threading
import time

import jax
import numpy as np
import pytest

from open_spiel_ext.algorithms import p2sro
from open_spiel_ext.algorithms.p2sro import tasks
from open_spiel_ext.algorithms.rl import dqn
from open_spiel_ext.utils import executors
import pyspiel

try:
  import ray  # pylint: disable=g-import-not-at-top
  from ray import cluster_utils  # pylint: disable=g-import-not-at-top
except ImportError:
  ray = None

KUHN = pyspiel.load_game("kuhn_poker")
DQN = dqn.Config(hidden_sizes=(32,), learning_starts=500,
                 epsilon_decay_steps=1000)
CONFIG = p2sro.Config(learners=2, chunk_steps=500, min_steps=1000,
                      num_envs=16)
ROUNDS = 2


def _run(directory, make_executor):
  pipeline = p2sro.Pipeline(KUHN, DQN, CONFIG, str(directory), make_executor)
  with pipeline:
    list(pipeline.run(max_rounds=ROUNDS))
  return pipeline


def _timeless(log):
  return [dataclasses.replace(entry, wall_time=0.0, task_time=0.0,
                              entry_time=0.0, checkpoint_time=0.0)
          for entry in log]


def _children(pid: int) -> list[int]:
  """The processes `pid` started (Linux's /proc), theirs included."""
  found = []
  for listing in glob.glob(f"/proc/{pid}/task/*/children"):
    with open(listing) as f:
      for child in map(int, f.read().split()):
        found += [child] + _children(child)
  return found


def _title(pid: int) -> str:
  """A process's title (Ray names a worker `ray::<task>` while it runs one),
  or "" if it has ended."""
  try:
    with open(f"/proc/{pid}/cmdline", "rb") as f:
      return f.read().split(b"\0")[0].decode(errors="replace")
  except OSError:
    return ""


def _lose_once_training(cluster, node, done: threading.Event) -> None:
  """Loses `node` as a machine is lost once one of its workers runs a
  learner's chunk: its raylet's processes are killed at once, then the
  raylet. (`remove_node` alone stops the raylet, and a busy worker may
  finish its task before it notices; a worker killed before its task runs
  only has the task run elsewhere.)"""
  raylet = node.all_processes["raylet"][0].process.pid
  while not done.is_set():
    processes = _children(raylet)
    if any(_title(pid) == "ray::" + tasks.train_chunk.__qualname__
           for pid in processes):
      for pid in processes:
        with contextlib.suppress(ProcessLookupError):  # Ended meanwhile.
          os.kill(pid, signal.SIGKILL)
      cluster.remove_node(node, allow_graceful=False)
      return
    time.sleep(0.05)


@pytest.mark.slow
@pytest.mark.skipif(ray is None, reason="Ray is not installed "
                    "(pip install '.[ray]')")
def test_losing_a_node_midway_ends_as_the_uninterrupted_run(tmp_path,
                                                           capsys):
  with executors.make_executor("process", 2) as pool:
    reference = _run(tmp_path / "reference", lambda: pool)
  cluster = cluster_utils.Cluster(
      initialize_head=True, head_node_args={"num_cpus": 1})
  node = cluster.add_node(num_cpus=1)
  cluster.wait_for_nodes()
  ray.init(address=cluster.address, include_dashboard=False)
  done = threading.Event()
  remover = threading.Thread(target=_lose_once_training,
                             args=(cluster, node, done))
  remover.start()
  try:
    run = _run(tmp_path / "cluster", lambda: executors.make_executor(
        "ray", workers=2, address=cluster.address))
  finally:
    done.set()
    remover.join()
    ray.shutdown()
    cluster.shutdown()
  assert "a worker died" in capsys.readouterr().out
  assert _timeless(run.log) == _timeless(reference.log)
  jax.tree.map(np.testing.assert_array_equal, run.population.members,
               reference.population.members)
  np.testing.assert_array_equal(run.population.payoffs,
                                reference.population.payoffs)
