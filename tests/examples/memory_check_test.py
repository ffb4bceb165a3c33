"""A size flag whose run cannot fit in memory is refused before any work: one
line, `<example>: error: --<flag>=<value>: needs at least ... GiB, more than
the ... GiB free here; lower it`, and exit code 2, where it was an XLA abort
after compiling, a jax RESOURCE_EXHAUSTED traceback or a worker killed for
memory (`cli.check_memory`, with each algorithm's lower bound of what a run
allocates)."""

import re
import subprocess
import sys

from absl import app
from absl import flags
import jax
import pytest

import open_spiel_ext
from open_spiel_ext.algorithms.rl import best_response
from open_spiel_ext.algorithms.rl import learner as learner_lib
from open_spiel_ext.algorithms.rl import opponents
from open_spiel_ext.algorithms.rl import versus as versus_lib
from open_spiel_ext.experiments import learner_configs
from open_spiel_ext.games import engines
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import memory

GIB = 2**30
# (example, the size flags set, other flags): each size hundreds of GiB or
# more by the example's own estimate, and below 2**31 (JAX's int32 indices).
HUGE = [
    ("best_response", ["--num_envs=1000000000"], []),
    ("nfsp", ["--num_envs=1000000000"], []),
    ("nxdo", ["--num_envs=1000000000"], []),
    ("p2sro", ["--num_envs=1000000000"], []),
    ("stratego_p2sro", ["--num_envs=100000000"], []),
    ("stratego_p2sro", ["--entry_batch=100000000",
                        "--games_per_entry=100000000"], []),
    ("stratego_p2sro", ["--eval_games=100000000"], []),
    ("deepcubea_train", ["--batch_size=1000000000"], ["--iterations=1"]),
    ("capi", ["--num_prescriptions=10000000000"], ["--seeds=0",
                                                   "--workers=1"]),
    ("tiny_hanabi_baselines", ["--runs=1000000000"], []),
    # The estimate runs R2D2's own `init`, which computes each game's ε with
    # numpy (some 24 bytes a game, allocated): a smaller count keeps it
    # small.
    ("hanabi_train", ["--num_envs=20000000"], []),
    ("hanabi_belief_train", ["--num_envs=100000000"], []),
    ("hanabi_belief_train", ["--batch_size=100000000"], []),
    ("hanabi_play", ["--batch=100000000"], ["--search=sparta"]),
]


@pytest.mark.parametrize("example,sizes,others", HUGE,
                         ids=[f"{e}{''.join(s)}" for e, s, _ in HUGE])
def test_a_size_that_cannot_fit_is_one_line_before_any_work(
    example, sizes, others, tmp_path):
  out = tmp_path / "out"
  result = subprocess.run(
      [sys.executable, "-m", f"open_spiel_ext.examples.{example}", *sizes,
       *others, f"--{cli.OUTPUT_DIR_FLAG}={out}"], capture_output=True,
      text=True, timeout=120, stdin=subprocess.DEVNULL, cwd=tmp_path)
  assert result.returncode == cli.USAGE_ERROR_EXIT_CODE, result.stderr
  assert "Traceback" not in result.stderr
  last = result.stderr.strip().splitlines()[-1]
  named = re.escape(", ".join(sizes))
  assert re.fullmatch(
      rf"{example}: error: {named}: needs at least [\d.]+ GiB, more than "
      r"the [\d.]+ GiB free here; lower (it|them)", last), last
  assert not [path for path in out.rglob("*") if path.is_file()]


def _size_flags(*arguments: str) -> flags.FlagValues:
  values = flags.FlagValues()
  flags.DEFINE_integer("num_envs", 64, "Games.", flag_values=values)
  flags.DEFINE_integer("batch_size", 16, "Rows.", flag_values=values)
  flags.DEFINE_string("ray_address", None, "Ray.", flag_values=values)
  values(["program", *arguments])
  return values


def test_the_check_names_the_flags_given_the_estimate_and_what_is_free(
    monkeypatch):
  monkeypatch.setattr(memory, "available_bytes", lambda: 2 * GIB)
  values = _size_flags("--num_envs=1000")
  cli.check_memory(2 * GIB, ["num_envs"], flag_values=values)  # It fits.
  with pytest.raises(app.UsageError) as refused:
    cli.check_memory(37.25 * GIB, ["num_envs", "batch_size"],
                     flag_values=values)
  assert str(refused.value) == ("--num_envs=1000: needs at least 37.2 GiB, "
                                "more than the 2.0 GiB free here; lower it")
  with pytest.raises(app.UsageError,
                     match=r"^--batch_size=16: .* lower it$"):
    cli.check_memory(3 * GIB, ["batch_size"], flag_values=values)
  with pytest.raises(app.UsageError,  # None given: all of them named.
                     match=r"^--num_envs=64, --batch_size=16: .* them$"):
    cli.check_memory(3 * GIB, ["num_envs", "batch_size"],
                     flag_values=_size_flags())


def test_the_check_on_the_device_reads_the_devices_memory(monkeypatch):
  monkeypatch.setattr(memory, "available_bytes", lambda: 100 * GIB)
  monkeypatch.setattr(memory, "device_available_bytes", lambda: GIB)
  values = _size_flags("--num_envs=1000")
  cli.check_memory(2 * GIB, ["num_envs"], flag_values=values)
  with pytest.raises(app.UsageError, match="than the 1.0 GiB free here"):
    cli.check_memory(2 * GIB, ["num_envs"], on_device=True,
                     flag_values=values)


def test_a_tasks_memory_is_checked_only_where_the_tasks_run(monkeypatch):
  monkeypatch.setattr(memory, "available_bytes", lambda: GIB)
  with pytest.raises(app.UsageError):
    cli.check_task_memory(2 * GIB, ["num_envs"], flag_values=_size_flags())
  cli.check_task_memory(2 * GIB, ["num_envs"], flag_values=_size_flags(
      "--ray_address=auto"))  # A cluster's machines may have more.


def test_the_estimate_of_a_carry_is_the_carry_a_run_makes():
  game = open_spiel_ext.load_game("kuhn_poker")
  env = engines.make(game, auto_reset=True)
  for algorithm in learner_configs.ALGORITHMS:
    config = learner_configs.best_response_config(algorithm, 10)
    versus = versus_lib.VersusEnv(env, opponents.uniform())
    learner = best_response.make_learner(config, versus, 8)
    carry = learner_lib.init_carry(learner, versus, jax.random.PRNGKey(1), 8)
    assert best_response.carry_bytes(env, config, 8) == memory.tree_bytes(
        carry), algorithm
