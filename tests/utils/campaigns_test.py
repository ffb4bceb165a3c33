"""Campaign stages: which are left to run, and the flags' checks."""

import json

import pytest

from open_spiel_ext.utils import campaigns


def test_stages_end_at_the_snapshots_below_the_budget_then_the_budget():
  assert campaigns.stage_ends([30, 90, 180, 360], 120) == [30, 90, 120]
  assert campaigns.stage_ends([30, 90], 90) == [30, 90]


def test_only_stages_without_a_snapshot_are_pending(tmp_path):
  (tmp_path / "snapshots").mkdir()
  (tmp_path / "snapshots" / "model_30min.npz").write_text("done")
  pending = list(campaigns.pending(str(tmp_path / "snapshots"), [30, 90],
                                   120, "model_{}min.npz"))
  assert pending == [(90, str(tmp_path / "snapshots" / "model_90min.npz")),
                     (120, str(tmp_path / "snapshots" / "model_120min.npz"))]


def test_records_are_appended(tmp_path):
  campaigns.record(str(tmp_path), {"minutes": 30})
  campaigns.record(str(tmp_path), {"minutes": 90})
  lines = (tmp_path / campaigns.RECORDS).read_text().splitlines()
  assert [json.loads(line)["minutes"] for line in lines] == [30, 90]


@pytest.mark.parametrize("minutes,snapshots,match", [
    (["360"], ["30"], "one value per run"),
    (["360", "x"], ["30"], "take numbers"),
    (["360", "0"], ["30"], "must be positive"),
    (["360", "360"], ["-30"], "must be positive"),
])
def test_budgets_that_do_not_fit_are_refused(minutes, snapshots, match):
  with pytest.raises(ValueError, match=match):
    campaigns.budgets(minutes, snapshots, ["rules", "strong"])
