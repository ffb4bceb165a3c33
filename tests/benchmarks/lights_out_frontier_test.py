"""The Lights Out frontier benchmark measures what a pressed-set model gets
right: a 3×3 model that solves every board greedily scores top-1 precision 1
at every solution size and solves every benchmark board."""

import json
import shutil


def test_a_model_that_solves_every_board_is_measured_as_such(
    run_python, lights_out_3_model, tmp_path):
  snapshots = tmp_path / "snapshots"
  snapshots.mkdir()
  shutil.copy(lights_out_3_model,
              snapshots / "lights_out_3_pressed_0.5min.npz")
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
