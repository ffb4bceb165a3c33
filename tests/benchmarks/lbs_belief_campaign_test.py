"""The belief models' CPU campaign goes on from its mirror on a new machine:
stages done stay done, and training continues from the mirrored
checkpoint."""

import json
import shutil

import pytest


@pytest.mark.slow
def test_a_new_machine_goes_on_from_the_mirror(run_python, tmp_path):
  output, mirror = tmp_path / "run_state", tmp_path / "mirror"

  def campaign(minutes):
    return run_python(
        "benchmarks/lbs_belief_campaign.py", "--preset=small",
        "--blueprints=rules", f"--minutes={minutes}", "--snapshots=0.1",
        "--eval_every=20", f"--output_dir={output}",
        f"--mirror_dir={mirror}")

  campaign(0.2)
  assert sorted(p.name for p in (mirror / "rules" / "snapshots").iterdir()
                ) == ["belief_0.1min.npz", "belief_0.2min.npz"]
  before = (mirror / "rules" / "metrics.jsonl").read_text().splitlines()
  shutil.rmtree(output)  # The machine goes away with its disk.
  campaign(0.6)
  records = [json.loads(line) for line in
             (mirror / "campaign.jsonl").read_text().splitlines()]
  assert [r["minutes"] for r in records] == [0.1, 0.2, 0.6]
  assert records[2]["updates"] > records[1]["updates"] > 0
  # The log went on from the mirrored checkpoint's, not from scratch.
  after = (mirror / "rules" / "metrics.jsonl").read_text().splitlines()
  assert after[:len(before)] == before and len(after) > len(before)
