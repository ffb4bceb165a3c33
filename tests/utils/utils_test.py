"""The shared helpers: checkpoints, padding and reporting."""

import dataclasses
import json
import math
import os
import signal
import typing

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from open_spiel.python import policy as policy_lib
from open_spiel_ext.algorithms.nn import training
from open_spiel_ext.algorithms.puzzle_solvers import batch_astar
from open_spiel_ext.utils import checkpoints
from open_spiel_ext.utils import mirror
from open_spiel_ext.utils import padding
from open_spiel_ext.utils import reporting
import pyspiel


@dataclasses.dataclass(frozen=True)
class _Config:
  learning_rate: float = 0.01
  hidden_sizes: tuple[int, ...] = (8, 8)


def _state():
  params = {"layer": {"w": jnp.arange(6.0).reshape(2, 3),
                      "b": jnp.zeros(3)}}
  return training.init_train_state(params, {}, optax.adam(0.01),
                                   with_target=True)


def test_a_checkpoint_round_trips_a_pytree_with_key_and_step(tmp_path):
  path = str(tmp_path / "run" / "checkpoint.pkl")
  state = _state()
  key = jax.random.PRNGKey(42)
  checkpoints.save(path, state, _Config(), key=key, step=17,
                   extra={"episodes": [1, 2]})
  restored = checkpoints.restore(path, _Config())
  jax.tree.map(np.testing.assert_array_equal, restored.tree, state)
  assert type(restored.tree) is training.TrainState
  np.testing.assert_array_equal(restored.key, key)
  assert restored.step == 17 and restored.extra == {"episodes": [1, 2]}
  assert not os.path.exists(path + checkpoints.PARTIAL_SUFFIX)


def test_a_checkpoint_of_another_run_is_refused_by_name(tmp_path):
  path = str(tmp_path / "checkpoint.pkl")
  checkpoints.save(path, _state(), _Config())
  with pytest.raises(ValueError, match=r"learning_rate=0\.1 here, 0\.01 in "
                     "the checkpoint"):
    checkpoints.restore(path, _Config(learning_rate=0.1))
  # A list and a tuple of the same values are the same setting.
  checkpoints.restore(path, {"learning_rate": 0.01, "hidden_sizes": [8, 8]})


def test_a_setting_added_since_a_checkpoint_takes_its_stated_value(tmp_path):
  path = str(tmp_path / "checkpoint.pkl")
  checkpoints.save(path, _state(), {"learning_rate": 0.01})
  newer = {"learning_rate": 0.01, "per_slot": 1}
  with pytest.raises(ValueError, match="per_slot=1 here, '\\(unset\\)'"):
    checkpoints.restore(path, newer)
  checkpoints.restore(path, newer, added={"per_slot": 1})
  with pytest.raises(ValueError, match="per_slot=3 here, 1 in"):
    checkpoints.restore(path, {**newer, "per_slot": 3},
                        added={"per_slot": 1})


class _TupleEntry(typing.NamedTuple):  # A log entry as older runs had it.
  step: int
  loss: float


@checkpoints.reads_former_tuples(f"{__name__}._TupleEntry")
@dataclasses.dataclass(frozen=True)
class _Entry:  # The same entry now.
  step: int
  loss: float


def test_entries_pickled_as_named_tuples_load_as_their_dataclass(tmp_path):
  old, new = str(tmp_path / "old.pkl"), str(tmp_path / "new.pkl")
  checkpoints.save(old, (), _Config(), extra={"log": [_TupleEntry(1, 0.5)]})
  checkpoints.save(new, (), _Config(), extra={"log": [_Entry(2, 0.25)]})
  assert checkpoints.restore(old, _Config()).extra["log"] == [_Entry(1, 0.5)]
  assert checkpoints.restore(new, _Config()).extra["log"] == [_Entry(2, 0.25)]


def test_a_failed_save_leaves_the_last_checkpoint(tmp_path):
  path = str(tmp_path / "checkpoint.pkl")
  checkpoints.save(path, {"x": jnp.ones(2)}, _Config(), step=1)
  with pytest.raises(Exception):
    checkpoints.save(path, {"x": lambda: None}, _Config(), step=2)
  assert checkpoints.restore(path, _Config()).step == 1


@dataclasses.dataclass
class _Budget:
  iterations: int = 1_000_000
  max_seconds: float = math.inf
  max_training_seconds: float = math.inf
  checkpoint_seconds: float = math.inf


def test_train_until_stops_at_the_iteration_count_and_saves_at_the_end():
  saves, steps = [], []

  def step(clock):
    steps.append(clock.training_seconds())
    return 3 + len(steps)

  assert checkpoints.train_until(_Budget(iterations=7), 3, 10.0, step,
                                 saves.append) == 7
  assert len(steps) == 4 and min(steps) >= 10.0
  assert len(saves) == 1 and saves[0] >= steps[-1]


def test_train_until_stops_once_the_training_budget_is_spent():
  saves = []
  steps = []

  def step(clock):
    steps.append(1)
    return len(steps)

  # 100 s trained before against a 100 s budget: no step at all.
  assert checkpoints.train_until(_Budget(max_training_seconds=100.0), 0,
                                 100.0, step, saves.append) == 0
  assert not steps and saves[0] >= 100.0


def test_train_until_saves_every_checkpoint_seconds():
  saves = []
  checkpoints.train_until(_Budget(iterations=5, checkpoint_seconds=0.0), 0,
                          0.0, lambda clock: len(saves) + 1, saves.append)
  assert len(saves) == 6  # Each step, then the end.


@pytest.mark.parametrize("signum", checkpoints.STOP_SIGNALS)
def test_train_until_saves_then_raises_on_a_stop_signal(signum):
  saves = []
  handlers = [signal.getsignal(stop) for stop in checkpoints.STOP_SIGNALS]

  def step(clock):
    os.kill(os.getpid(), signum)  # Held until the step ends.
    return 1

  with pytest.raises(checkpoints.Interrupted) as raised:
    checkpoints.train_until(_Budget(), 0, 0.0, step, saves.append,
                            log=lambda line: None)
  assert raised.value.signum == signum
  assert len(saves) == 1
  # The handlers before the loop are back (SIGINT's is ignored where the
  # tests run in a background job).
  assert [signal.getsignal(stop) for stop in checkpoints.STOP_SIGNALS] == (
      handlers)


@pytest.mark.parametrize("n,expected", [(0, 1), (1, 1), (2, 2), (3, 4),
                                        (1000, 1024), (1024, 1024)])
def test_next_power_of_two(n, expected):
  assert padding.next_power_of_two(n) == expected


@pytest.mark.parametrize("n,expected", [(1, 1), (3, 4), (8, 8), (9, 10),
                                        (17, 20), (100, 112), (1025, 1280)])
def test_next_bucket_wastes_at_most_a_quarter(n, expected):
  assert padding.next_bucket(n) == expected
  sizes = {padding.next_bucket(m) for m in range(1, 4097)}
  assert all(padding.next_bucket(m) <= max(8, 1.25 * m) for m in range(1, 4097))
  assert len(sizes) <= 4 * 12 + 4


def test_pad_rows():
  padded = padding.pad_rows(np.ones((3, 2)), 4)
  np.testing.assert_array_equal(padded, [[1, 1], [1, 1], [1, 1], [0, 0]])
  with pytest.raises(ValueError, match="cannot pad 3 rows to 2"):
    padding.pad_rows(np.ones((3, 2)), 2)


def test_standard_error_of_the_mean():
  assert reporting.standard_error([1.0, 2.0, 3.0]) == pytest.approx(
      1.0 / np.sqrt(3))
  assert reporting.standard_error([5.0]) == 0.0
  curves = [[1.0, 5.0], [2.0, 5.0], [3.0, 5.0]]
  np.testing.assert_allclose(reporting.standard_error(curves),
                             [reporting.standard_error([1.0, 2.0, 3.0]), 0.0])
  np.testing.assert_array_equal(reporting.standard_error([[1.0, 2.0]]),
                                [0.0, 0.0])


def test_peak_memory_is_in_megabytes_and_covers_what_is_resident():
  held = np.ones(2**25)  # 256 MB, touched.
  resident = batch_astar.resident_bytes() / 2**20
  assert resident > 256
  # Within a few pages: the kernel counts the two a little differently.
  assert resident - 16 <= reporting.peak_memory_mb() < 100 * resident
  del held


def test_plot_runs_writes_a_figure(tmp_path):
  log = [{"episodes": 1, "exploitability": 1.0},
         {"episodes": 2, "exploitability": 0.5}]
  path = tmp_path / "runs.png"
  reporting.plot_runs(str(path), {"a": [log, log], "b": [log]},
                      [("episodes", 1, "episodes")], "exploitability",
                      "two methods", target=0.7)
  assert path.stat().st_size > 0


def test_json_lines_read_back_but_a_last_line_cut_short(tmp_path):
  path = str(tmp_path / "log.jsonl")
  assert not reporting.read_json_lines(path)
  reporting.write_log([{"game": 0}, {"game": 1}], path)
  with open(path, "a", encoding="utf-8") as f:
    f.write('{"game": 2, "sco')  # A write interrupted mid-line.
  assert reporting.read_json_lines(path) == [{"game": 0}, {"game": 1}]
  with open(path, "w", encoding="utf-8") as f:
    f.write('{"game": 0}\nnot json\n{"game": 1}\n')
  with pytest.raises(ValueError, match="line 2 is not JSON"):
    reporting.read_json_lines(path)


def test_finished_records_belong_to_a_run_of_the_same_settings(tmp_path):
  run = {"seed": 0, "settings": {"rollouts": 100}}
  output_dir = str(tmp_path / "run")
  assert not reporting.finished_records(output_dir, run, "games.jsonl")
  reporting.write_log([{"game": 0}], os.path.join(output_dir, "games.jsonl"))
  assert reporting.finished_records(output_dir, run, "games.jsonl") == [
      {"game": 0}]
  other = {"seed": 1, "settings": {"rollouts": 100}}
  with pytest.raises(ValueError, match="another run .seed=0 there, 1 here"):
    reporting.finished_records(output_dir, other, "games.jsonl")


@pytest.mark.parametrize("probabilities,problem", [
    ({"0": -0.5, "1": 1.5}, "a negative probability"),
    ({"0": float("nan"), "1": 1.0}, "not a finite number"),
    ({"0": 0.0, "1": 0.0}, "summing to 0"),
    ({"0": 0.5, "1": 0.7}, "summing to 1.2"),
])
def test_a_policy_file_must_give_distributions(tmp_path, probabilities,
                                              problem):
  """A policy.json whose information state has no distribution is refused,
  naming the file and the state, where it was read as it stood."""
  game = pyspiel.load_game("kuhn_poker")
  path = str(tmp_path / "policy.json")
  reporting.save_policy(policy_lib.UniformRandomPolicy(game).to_tabular(),
                        path)
  uniform = reporting.load_policy(path, game)
  np.testing.assert_allclose(
      uniform.action_probability_array[uniform.legal_actions_mask > 0], 0.5)
  table = json.loads(open(path, encoding="utf-8").read())
  table["0"] = probabilities
  with open(path, "w", encoding="utf-8") as f:
    json.dump(table, f)
  with pytest.raises(ValueError, match=f"policy.json: information state "
                     f"'0' has .*{problem}"):
    reporting.load_policy(path, game)


@pytest.mark.parametrize("damage", ["truncated", "empty", "garbage"])
def test_a_damaged_checkpoint_is_refused_naming_the_file(tmp_path, damage):
  path = str(tmp_path / "run.pkl")
  checkpoints.save(path, {"x": np.arange(100.0)}, {"a": 1})
  data = open(path, "rb").read()
  damaged = {"truncated": data[:len(data) // 2], "empty": b"",
             "garbage": bytes(range(256)) * 4}[damage]
  with open(path, "wb") as f:
    f.write(damaged)
  for read in (lambda: checkpoints.restore(path, {"a": 1}),
               lambda: checkpoints.saved_config(path)):
    with pytest.raises(ValueError, match=f"checkpoint {path} cannot be read"):
      read()


def test_a_run_resumes_from_its_mirror_only_where_it_has_none(tmp_path):
  kept, output = tmp_path / "mirror", tmp_path / "output"
  (kept / "population").mkdir(parents=True)
  (kept / "population" / "state.pkl").write_text("mirrored")
  (kept / "metrics.jsonl").write_text("{}\n")
  assert mirror.resume_from(str(kept), str(output), "population/state.pkl")
  assert (output / "population" / "state.pkl").read_text() == "mirrored"
  assert (output / "metrics.jsonl").read_text() == "{}\n"
  # A run of its own is never overwritten, and an empty mirror copies none.
  (output / "population" / "state.pkl").write_text("newer")
  assert not mirror.resume_from(str(kept), str(output),
                                "population/state.pkl")
  assert (output / "population" / "state.pkl").read_text() == "newer"
  assert not mirror.resume_from(str(tmp_path / "none"), str(tmp_path / "x"),
                                "population/state.pkl")
