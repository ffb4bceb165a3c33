"""benchmarks/nxdo_thesis.py's table and plots from finished runs' logs,
which it reads back instead of running them again."""

import json
import re


def _write_log(path, points):
  """A finished run's log: (episodes, wall-time seconds, exploitability)."""
  with open(path, "w", encoding="utf-8") as f:
    for episodes, seconds, value in points:
      f.write(json.dumps({"episodes": episodes, "wall_time": seconds,
                          "exploitability": value}) + "\n")


def _report(run_python, output_dir, methods):
  output = run_python("benchmarks/nxdo_thesis.py", "--games=kuhn_poker",
                      f"--methods={methods}", "--seeds=1", "--minutes=1",
                      "--at_episodes=1000000", f"--output_dir={output_dir}")
  assert ", seed 0" not in output  # Read back, not run again.
  return output.splitlines()


def test_the_table_and_plots_come_from_the_finished_runs(run_python,
                                                        tmp_path):
  runs = tmp_path / "runs" / "kuhn_poker"
  runs.mkdir(parents=True)
  _write_log(runs / "nxdo_seed0.jsonl",
             [(0, 10.0, 0.9), (800_000, 40.0, 0.7), (12_000_000, 70.0, 0.5)])
  _write_log(runs / "nfsp_seed0.jsonl",
             [(0, 10.0, 0.8), (40_000_000, 65.0, 0.2)])
  _report(run_python, tmp_path, "nfsp")
  assert not (tmp_path / "nxdo_kuhn_poker_iterations.png").exists()
  lines = _report(run_python, tmp_path, "nxdo,nfsp")
  header = next(line for line in lines if line.startswith("method"))
  # Every column its own, a space at least between them (a label of 22
  # characters filled its column).
  assert re.findall(r"at [\d,]+ episodes", header) == [
      "at 1,000,000 episodes", "at 12,000,000 episodes"]
  assert "episodes at" in header and "episodesat" not in header
  nxdo = next(line for line in lines if line.startswith("nxdo "))
  # The last evaluation by 1 M episodes, then by the 12 M all runs reached.
  assert [float(v) for v in re.findall(r"(\d+\.\d+) ±", nxdo)[:2]] == [
      0.7, 0.5]
  for name in ("nxdo_kuhn_poker.png", "nxdo_kuhn_poker_iterations.png",
               "nxdo_kuhn_poker.json"):
    assert (tmp_path / name).exists()
