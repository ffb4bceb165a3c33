"""The example binaries end a user's mistake in one line and exit code 2.

Each example runs in a subprocess, as a user runs it: a bad game string, a
bad flag value or a state that cannot exist ends with `<program>: error:
...` on one line of stderr, no traceback, and exit code 2; normal ends exit
0 and a search that finds nothing exits 1.
"""

import subprocess
import sys

from absl import app
from absl import flags
import pytest

import open_spiel_ext
from open_spiel_ext.algorithms import p2sro
from open_spiel_ext.utils import cli


@pytest.fixture(autouse=True)
def _in_a_scratch_folder(tmp_path, monkeypatch):
  """Examples make their default output folder before a bad flag stops
  them: in a scratch folder, not in the checkout."""
  monkeypatch.chdir(tmp_path)


def run_example(name: str, *flags: str,
                stdin: str = "") -> subprocess.CompletedProcess:
  return subprocess.run(
      [sys.executable, "-m", f"open_spiel_ext.examples.{name}", *flags],
      input=stdin, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("name,flags,says", [
    ("xdo", ["--game=kuhn_poker(players=3)"],
     "--game: The tree engine needs a 2-player game"),
    ("xdo", ["--game=kuhn_poker(players=3"], "Missing closing bracket"),
    ("xdo", ["--max_iterations=abc"], "flag --max_iterations=abc"),
    ("psro", ["--game=leduc_poker", "stray"], "Unexpected arguments"),
    ("cfr", ["--game=leduc_poker(foo=1)"], "Unknown parameter 'foo'"),
    ("games_tour", ["--games=k_gmp(k=0)"], "k=0"),
    ("capi", ["--game=kuhn_poker"], "not a 2-player common-payoff game"),
    ("tiny_hanabi_baselines", ["--algorithms=foo"], "got 'foo'"),
    ("tiny_hanabi_baselines", ["--executor=dask"], "flag --executor=dask"),
    ("tiny_hanabi_baselines", ["--workers=0"], "flag --workers=0"),
    ("capi", ["--game=tiny_hanabi_a", "--ray_address=auto"],
     "--executor=process: address='auto' is for the ray executor"),
    ("deepcubea_solve", ["--puzzle=rubiks_cube", "--size=2",
                         "--state=UUUR/RRRU/FFFF/DDDD/LLLL/BBBB"],
     "--state: rubiks_cube: state='UUUR/RRRU/FFFF/DDDD/LLLL/BBBB' is not a "
     "position of a real cube"),
    ("deepcubea_solve", ["--model=/nonexistent/model.npz"], "--model"),
    ("deepcubea_train", ["--size=99"],
     "--size: sliding_puzzle: parameter size must be in [3, 7], got size=99"),
    ("puzzle_test_set", ["--puzzle=rubiks_cube", "--size=5"], "size=5"),
    ("generate_sokoban_levels", ["--boxes=40", "--num_levels=1"],
     "boxes=40"),
    ("play_stratego", ["--human=2"], "flag --human=2"),
])
def test_a_user_error_is_one_line_and_exit_code_2(name, flags, says):
  result = run_example(name, *flags)
  assert result.returncode == cli.USAGE_ERROR_EXIT_CODE, result.stderr
  assert "Traceback" not in result.stderr
  lines = result.stderr.strip().splitlines()
  assert len(lines) == 1, result.stderr
  assert lines[0].startswith(f"{name}: error: ")
  assert says in lines[0]


def test_an_unknown_game_lists_the_plugins_games_once():
  result = run_example("xdo", "--game=xdo_clone_leduk(clones=2)")
  assert result.returncode == cli.USAGE_ERROR_EXIT_CODE
  message = result.stderr.strip()
  assert len(message.splitlines()) == 1 and len(message) < 1000
  assert "unknown game 'xdo_clone_leduk'" in message
  assert "did you mean xdo_clone_leduc" in message
  assert "open_spiel_ext.registered_games()" in message
  for game in open_spiel_ext.registered_games():
    assert message.count(game) >= 1
  assert "2048" not in message  # Not pyspiel's list of every game.


def test_game_lists_keep_the_commas_inside_parameters():
  assert cli.split_games("kuhn_poker, loss_game(dims=16,bins=2),"
                         "a(b=c(d=1,e=2),f=3)") == [
                             "kuhn_poker", "loss_game(dims=16,bins=2)",
                             "a(b=c(d=1,e=2),f=3)"]
  assert cli.split_games("") == []


def test_load_game_names_an_unknown_game_nested_or_not():
  with pytest.raises(ValueError, match="unknown game 'nope'"):
    open_spiel_ext.load_game("cached_tree(game=nope())")
  with pytest.raises(ValueError, match="clones must be >= 1, got clones=0"):
    open_spiel_ext.load_game("xdo_clone_leduc(clones=0)")
  game = open_spiel_ext.load_game("cached_tree(game=kuhn_poker())")
  assert game.num_players() == 2


def test_parse_flag_errors_name_the_flag_and_its_value():
  with pytest.raises(app.UsageError, match="--games=nope: unknown game"):
    cli.parse_flag("games", "nope", open_spiel_ext.load_game)
  with pytest.raises(app.UsageError, match="--size=-1: bad size"):
    cli.parse_flag("size", -1, _refuse_negative)
  assert cli.parse_flag("size", 3, _refuse_negative) == 3


def _refuse_negative(value: int) -> int:
  if value < 0:
    raise ValueError("bad size")
  return value


def test_a_failed_search_exits_1_after_progress_lines():
  result = run_example("deepcubea_solve", "--puzzle=rubiks_cube", "--size=2",
                       "--scramble=30", "--max_nodes=3000",
                       "--progress_seconds=0")
  assert result.returncode == 1, result.stderr
  assert "no solution: node budget reached" in result.stdout
  progress = [line for line in result.stdout.splitlines()
              if " nodes (" in line and "open" in line]
  assert progress and "best f" in progress[-1] and "GiB" in progress[-1]


def test_a_solve_prints_no_backend_probe_and_exits_0():
  result = run_example("deepcubea_solve", "--puzzle=rubiks_cube", "--size=2",
                       "--scramble=6", "--seed=1")
  assert result.returncode == 0, result.stderr
  assert "solution: " in result.stdout
  assert "Unable to initialize backend" not in result.stderr
  assert "Traceback" not in result.stderr


def test_config_flags_change_only_what_a_command_line_gives():
  recipe = p2sro.Config(learners=2, plateau_gain=0.02, warm_start=True)
  values = flags.FlagValues()
  holders = cli.define_config_flags(recipe, {
      "learners": "Learners.", "plateau_gain": "Gain.",
      "warm_start": "Warm."}, values)
  values(["program", "--plateau_gain=0.5", "--nowarm_start"])
  assert cli.given(holders) == {"plateau_gain": 0.5, "warm_start": False}
  assert values.learners == 2  # The recipe's value, not given.
  with pytest.raises(flags.IllegalFlagValueError):
    values(["program", "--learners=two"])


def test_a_choice_list_refuses_an_item_by_name():
  values = flags.FlagValues()
  parts = cli.define_choice_list("parts", ("plateau", "precision"),
                                 ["plateau"], "Parts.", values)
  values(["program", "--parts=precision,plateau"])
  assert parts.value == ["precision", "plateau"]
  with pytest.raises(flags.IllegalFlagValueError,
                     match=r"unknown \['hold'\]; the choices are plateau"):
    values(["program", "--parts=plateau,hold"])
