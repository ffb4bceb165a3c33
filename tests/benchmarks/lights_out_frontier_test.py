"""The Lights Out frontier benchmark measures what a pressed-set model gets
right: a 3×3 model that solves every board greedily scores top-1 precision 1
at every solution size and solves every benchmark board."""

import json
import shutil

from open_spiel_ext.algorithms.deepcubea import free_labels
from open_spiel_ext.experiments import puzzle_recipes


def _three_by_three_snapshot(tmp_path):
  config = puzzle_recipes.replace(
      puzzle_recipes.free_label_config("lights_out", 3), walks=200,
      hidden_sizes=(128,), num_blocks=1)
  free_labels.train(config, free_labels.RunConfig(
      iterations=300, output_dir=str(tmp_path / "train"), log_every=0,
      eval_every=0), log=lambda line: None)
  snapshots = tmp_path / "snapshots"
  snapshots.mkdir()
  shutil.copy(tmp_path / "train" / free_labels.MODEL,
              snapshots / "lights_out_3_pressed_0.5min.npz")
  return snapshots


def test_a_model_that_solves_every_board_is_measured_as_such(run_python,
                                                             tmp_path):
  snapshots = _three_by_three_snapshot(tmp_path)
  output = run_python("benchmarks/lights_out_frontier.py",
                      f"--snapshots={snapshots}/*min.npz", "--samples=50",
                      "--count=20", "--beam_widths=4", "--beam_count=5",
                      f"--output_dir={tmp_path / 'out'}")
  (row,) = json.loads((tmp_path / "out" / "lights_out_frontier.json")
                      .read_text())
  assert row["minutes"] == 0.5 and row["size"] == 3
  assert row["precision"] == [1.0] * 9
  assert row["greedy"] == 1.0 and row["beam 4"] == 1.0
  assert (tmp_path / "out" / "lights_out_frontier.png").exists()
  assert "| 0.5 " in output and "100%" in output
