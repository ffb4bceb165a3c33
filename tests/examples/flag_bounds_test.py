"""Every numeric flag of every example has the bounds its meaning allows
(absl's `lower_bound` and `upper_bound`, checked as the flags are read), so
that a nonsense number is one line, `<example>: error: flag --x=...: ...`,
and exit code 2, before any work and with nothing written; where it ran
forever, wrote empty files, or ended in a traceback (issue 48 item 4)."""

import glob
import json
import os
import re
import subprocess
import sys
import textwrap

from absl import flags
import pytest

from open_spiel_ext.algorithms import p2sro
from open_spiel_ext.utils import cli

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
EXAMPLES = sorted(
    os.path.basename(path)[:-3]
    for path in glob.glob(os.path.join(REPO_ROOT, "examples", "*.py"))
    if os.path.basename(path) != "__init__.py")
# Numeric flags whose every value means something, so that no bound fits.
UNBOUNDED = {
    # The search value a run counts as solved at: a payoff of the game,
    # which may be negative.
    ("capi", "target"),
}
# Prints {name: [lower_bound, upper_bound]} of the integer and float flags
# that importing the example sys.argv[1] defines (itself or through the
# plugin's helpers, e.g. `cli.define_executor_flags`; not absl's own). A
# process per example: two examples' flags collide in absl's global FLAGS.
_LIST_NUMERIC_FLAGS = textwrap.dedent("""
    import importlib
    import json
    import sys
    from absl import flags
    importlib.import_module("open_spiel_ext.examples." + sys.argv[1])
    modules = {flag.name: module for module, defined in
               flags.FLAGS.flags_by_module_dict().items() for flag in defined}
    numeric = {}
    for name in flags.FLAGS:
      flag = flags.FLAGS[name]
      if (name == flag.name and
          modules.get(name, "").startswith("open_spiel_ext.") and
          isinstance(flag.parser, (flags.IntegerParser, flags.FloatParser))):
        numeric[name] = [flag.parser.lower_bound, flag.parser.upper_bound]
    print(json.dumps(numeric))
""")
# (example, flag, value): the nonsense issue 48 reported, then more of the
# kinds of bound there are (an exclusive bound, a helper's flag, a seed).
BAD_INPUTS = [
    ("cfr", "eval_every", "0"),  # Never stopped, filling metrics.jsonl.
    ("cfr", "eval_every", "-1"),
    ("cfr", "iterations", "-5"),
    ("xdo", "max_iterations", "0"),
    ("psro", "max_iterations", "0"),
    ("deepcubea_train", "iterations", "-3"),  # Wrote an untrained model.
    ("puzzle_test_set", "count", "-1"),  # Wrote an empty file.
    ("generate_sokoban_levels", "num_levels", "-1"),
    ("xdo", "time_limit", "-5"),
    ("stratego_p2sro", "max_minutes", "-1"),  # Started a round.
    ("xdo", "epsilon_decay", "5"),
    ("tiny_hanabi_baselines", "runs", "-1"),
    ("best_response", "steps", "0"),  # Blamed learning_rate_decay_updates.
    ("xdo", "epsilon_decay", "0"),  # (0, 1]: a validator excludes 0.
    ("xdo", "epsilon", "nan"),  # NaN passes bounds: cli refuses it.
    ("stratego_p2sro", "max_minutes", "nan"),  # Would never stop on time.
    ("nfsp", "br_learning_rate", "0"),  # Was named learning_rate.
    ("nfsp", "anticipatory", "1.5"),
    ("capi", "learning_rate", "-1e-4"),
    ("capi", "workers", "0"),  # cli.define_executor_flags.
    ("capi", "seeds", "-1"),  # A list: checked in main, a traceback before.
    ("stratego_p2sro", "learners", "0"),  # cli.define_config_flags.
    ("stratego_p2sro", "entry_standard_error", "-0.5"),
    ("psro", "seed", "-1"),
    ("psro", "seed", str(2**32)),  # Beyond numpy's RandomState.
    ("deepcubea_solve", "size", "1"),
    ("deepcubea_train", "lr_decay", "0"),
    ("hanabi_belief_train", "decoded_share", "0"),
    ("hanabi_play", "min_acceptance", "1"),  # [0, 1).
    ("hanabi_train", "eval_games", "0"),
    ("play_stratego", "human", "2"),
]


def _source(example: str) -> str:
  with open(os.path.join(REPO_ROOT, "examples", f"{example}.py"),
            encoding="utf-8") as source:
    return source.read()


def _has_string_flag(example: str, flag: str) -> bool:
  return bool(re.search(r'DEFINE_string\(\s*"' + flag + '"',
                        _source(example)))


def _numeric_flags(example: str) -> dict[str, list[float]]:
  result = subprocess.run(
      [sys.executable, "-c", _LIST_NUMERIC_FLAGS, example],
      capture_output=True, text=True, timeout=180, cwd=REPO_ROOT)
  assert result.returncode == 0, result.stderr
  return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("example", EXAMPLES)
def test_every_numeric_flag_has_a_lower_bound(example):
  numeric = _numeric_flags(example)
  unbounded = sorted(name for name, (lower, _) in numeric.items()
                     if lower is None and (example, name) not in UNBOUNDED)
  assert not unbounded, f"{example}: flags without a lower bound: {unbounded}"
  for allowed_example, name in UNBOUNDED:  # The allowlist is not stale.
    if allowed_example == example:
      assert name in numeric


def test_the_flags_are_listed():
  numeric = _numeric_flags("stratego_p2sro")
  assert numeric["workers"] == [1, None]  # cli.define_executor_flags.
  assert numeric["learners"] == [1, None]  # cli.define_config_flags.
  assert numeric["max_minutes"] == [0.0, None]
  assert "test_random_seed" not in numeric  # absltest's, not the example's.


@pytest.mark.parametrize("example,flag,value", BAD_INPUTS,
                         ids=[f"{e}--{f}={v}" for e, f, v in BAD_INPUTS])
def test_a_bad_number_is_one_line_before_any_work(example, flag, value,
                                                  tmp_path):
  out = tmp_path / "out"
  arguments = [f"--{flag}={value}"]
  if _has_string_flag(example, cli.OUTPUT_DIR_FLAG):
    arguments.append(f"--{cli.OUTPUT_DIR_FLAG}={out}")
  if _has_string_flag(example, cli.OUTPUT_FILE_FLAG):
    arguments.append(f"--{cli.OUTPUT_FILE_FLAG}={out / 'output.txt'}")
  result = subprocess.run(
      [sys.executable, "-m", f"open_spiel_ext.examples.{example}",
       *arguments], capture_output=True, text=True, timeout=180,
      stdin=subprocess.DEVNULL, cwd=tmp_path)
  assert result.returncode == cli.USAGE_ERROR_EXIT_CODE, result.stderr
  assert "Traceback" not in result.stderr
  lines = result.stderr.strip().splitlines()
  assert len(lines) == 1, result.stderr
  assert lines[0].startswith(f"{example}: error: "), lines[0]
  assert f"--{flag}" in lines[0], lines[0]
  written = [path for path in out.rglob("*") if path.is_file()]
  assert not written  # cli.run may have made the folder, nothing in it.


def test_config_flags_take_bounds():
  values = flags.FlagValues()
  cli.define_config_flags(
      p2sro.Config(), {"learners": "Learners.", "plateau_gain": "Gain.",
                       "uniform_mix": "Mix.", "warm_start": "Warm."},
      values, bounds={"learners": (1, None), "uniform_mix": (0.0, 1.0)})
  values(["program", "--learners=1", "--uniform_mix=1", "--plateau_gain=-1"])
  for argument in ("--learners=0", "--uniform_mix=1.5"):
    values.unparse_flags()
    with pytest.raises(flags.IllegalFlagValueError):
      values(["program", argument])
