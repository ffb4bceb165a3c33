"""The example binaries run as a user runs them and print what they promise."""

import json
import subprocess
import sys

import numpy as np
import pytest

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel.python.algorithms import exploitability
from open_spiel_ext.algorithms.stratego import agents
from open_spiel_ext.utils import reporting
import pyspiel

try:
  import ray  # pylint: disable=g-import-not-at-top
except ImportError:
  ray = None


def test_games_tour_describes_and_plays_each_game():
  result = subprocess.run(
      [sys.executable, "-m", "open_spiel_ext.examples.games_tour",
       "--games=xdo_clone_leduc(clones=3)", "--games=tiny_hanabi_f",
       "--seed=5"],
      capture_output=True, text=True, check=True, timeout=120)
  output = result.stdout
  assert "=== xdo_clone_leduc(clones=3)" in output
  assert "9 distinct actions" in output
  assert "=== tiny_hanabi_f()" in output
  assert output.count("Returns: [") == 2


def _run_example(name: str, *flags: str) -> str:
  result = subprocess.run(
      [sys.executable, "-m", f"open_spiel_ext.examples.{name}", *flags],
      capture_output=True, text=True, check=True, timeout=300)
  return result.stdout


def test_xdo_example_reaches_its_target_and_writes_outputs(tmp_path):
  _run_example("xdo", "--game=kuhn_poker", "--target=0.001",
               f"--output_dir={tmp_path}")
  records = reporting.read_json_lines(str(tmp_path / "metrics.jsonl"))
  assert [r["iteration"] for r in records] == list(
      range(1, len(records) + 1))
  assert records[-1]["exploitability"] <= 0.001 < records[0]["exploitability"]
  policy = json.loads((tmp_path / "policy.json").read_text())
  assert len(policy) == 12  # Kuhn poker's information states.
  for probabilities in policy.values():
    assert sum(probabilities.values()) == pytest.approx(1)
  assert (tmp_path / "xdo.png").stat().st_size > 0


def test_psro_example_reports_each_iteration(tmp_path):
  output = _run_example("psro", "--game=kuhn_poker", "--target=0.001",
                        f"--output_dir={tmp_path}")
  assert "final exploitability 0.0" in output
  assert (tmp_path / "psro.png").stat().st_size > 0


def test_cfr_example_matches_openspiel_cpp_cfr_plus(tmp_path):
  _run_example("cfr", "--game=kuhn_poker", "--iterations=40",
               "--eval_every=20", "--variants=cfr+",
               f"--output_dir={tmp_path}")
  records = [json.loads(line) for line in
             (tmp_path / "metrics.jsonl").read_text().splitlines()]
  ours = {r["iteration"]: r["exploitability"] for r in records
          if r["solver"] == "ours cfr+"}
  cpp = {r["iteration"]: r["exploitability"] for r in records
         if r["solver"] == "OpenSpiel C++ CFR+"}
  assert ours.keys() == cpp.keys() == {20, 40}
  for iteration, value in ours.items():
    assert value == pytest.approx(cpp[iteration], abs=1e-9)


def test_puzzle_test_set_writes_optimal_lengths(tmp_path):
  path = tmp_path / "eight.json"
  _run_example("puzzle_test_set", "--puzzle=sliding_puzzle", "--size=3",
               "--count=4", "--seed=2", f"--output={path}")
  written = json.loads(path.read_text())
  assert len(written["instances"]) == 4
  assert written["puzzle"] == "sliding_puzzle" and written["seed"] == 2
  for instance in written["instances"]:
    state = pyspiel.load_game(
        f"sliding_puzzle(size=3,state={instance['state']})").new_initial_state()
    for move in instance["solution"]:
      state.apply_action(["U", "D", "L", "R"].index(move))
    assert state.is_solved()
    assert state.returns() == [-instance["optimal_length"]]


def test_sokoban_level_generator_writes_boxoban_files(tmp_path):
  path = tmp_path / "levels.txt"
  _run_example("generate_sokoban_levels", "--num_levels=3", "--rows=8",
               "--cols=8", "--boxes=2", "--reverse_steps=100",
               f"--output={path}")
  text = path.read_text()
  assert text.startswith("; 0\n########\n") and text.count("; ") == 3


def test_deepcubea_train_writes_a_model_that_solve_reads(tmp_path):
  _run_example(
      "deepcubea_train", "--puzzle=rubiks_cube", "--size=2",
      "--iterations=20", "--batch_size=64", "--hidden_sizes=32",
      "--num_blocks=1", "--check_every=10", "--loss_threshold=100",
      "--log_every=10", "--eval_every=20", "--eval_states=4",
      f"--output_dir={tmp_path}")
  records = reporting.read_json_lines(str(tmp_path / "metrics.jsonl"))
  assert [(r["kind"], r["iteration"]) for r in records] == [
      ("train", 10), ("train", 20), ("eval", 20)]
  assert len(records[-1]["solved"]) == len(records[-1]["cost_to_go"])
  for name in ("checkpoint.pkl", "model.npz", "metrics.jsonl",
               "training.png"):
    assert (tmp_path / name).exists()
  solved = _run_example("deepcubea_solve", "--puzzle=rubiks_cube", "--size=2",
                        "--scramble=2", "--seed=1",
                        f"--model={tmp_path / 'model.npz'}")
  assert "checked in pyspiel" in solved


def _solve(*flags: str) -> subprocess.CompletedProcess:
  return subprocess.run(
      [sys.executable, "-m", "open_spiel_ext.examples.deepcubea_solve",
       "--puzzle=rubiks_cube", "--size=2", *flags],
      capture_output=True, text=True, timeout=300)


def test_free_label_train_writes_a_model_that_beam_search_solves(tmp_path):
  _run_example(
      "free_label_train", "--puzzle=rubiks_cube", "--size=2",
      "--iterations=30", "--walks=16", "--hidden_sizes=32", "--num_blocks=1",
      "--log_every=10", "--eval_every=30", "--eval_states=4",
      f"--output_dir={tmp_path}")
  records = reporting.read_json_lines(str(tmp_path / "metrics.jsonl"))
  assert [(r["kind"], r["iteration"]) for r in records] == [
      ("train", 10), ("train", 20), ("train", 30), ("eval", 30)]
  for name in ("checkpoint.pkl", "model.npz", "metrics.jsonl",
               "training.png"):
    assert (tmp_path / name).exists()
  model = f"--model={tmp_path / 'model.npz'}"
  solved = _solve("--search=beam", "--beam_width=64", "--scramble=2",
                  "--seed=1", model)
  assert solved.returncode == 0, solved.stderr
  assert "checked in pyspiel" in solved.stdout
  assert "states expanded" in solved.stdout
  assert "children evaluated" in solved.stdout
  failed = _solve("--search=beam", "--beam_width=1", "--max_depth=1",
                  "--scramble=20", model)
  assert failed.returncode == 1, failed.stderr
  assert "no solution: depth limit reached" in failed.stdout
  refused = _solve("--search=bwas", "--scramble=2", model)
  assert refused.returncode == 2 and "use --search=beam" in refused.stderr
  davi_model = "--model=algorithms/deepcubea/models/rubiks_cube_2.npz"
  refused = _solve("--search=greedy", davi_model)
  assert refused.returncode == 2 and "use --search=bwas" in refused.stderr


def test_deepcubea_solve_uses_the_shipped_model():
  output = _run_example("deepcubea_solve", "--puzzle=sliding_puzzle",
                        "--size=4", "--state=1 2 3 4/5 6 7 8/9 10 0 11/"
                        "13 14 15 12")
  assert "solution: R D\n" in output  # The blank moves right, then down.
  assert "length 2," in output


def test_capi_runs_seeds_and_writes_summary_and_plot(tmp_path):
  _run_example(
      "capi", "--game=tiny_hanabi_e", "--seeds=0,1", "--episodes=20",
      "--eval_every=10", "--num_prescriptions=50", "--hidden_sizes=32",
      f"--output_dir={tmp_path}")
  summary = json.loads((tmp_path / "summary.json").read_text())
  assert [run["seed"] for run in summary["runs"]] == [0, 1]
  assert [run["episodes"] for run in summary["runs"]] == [20, 20]
  assert summary["target"] == 10.0
  assert (tmp_path / "capi.png").exists()


def test_capi_stops_a_run_once_it_reaches_the_target(tmp_path):
  _run_example("capi", "--game=tiny_hanabi_a", "--seeds=0", "--episodes=200",
               "--eval_every=5", "--num_prescriptions=50", "--hidden_sizes=32",
               "--target=2.25", "--stop_when_solved",
               f"--output_dir={tmp_path}")
  run, = json.loads((tmp_path / "summary.json").read_text())["runs"]
  assert run["best_value"] == pytest.approx(2.25)  # A's optimum.
  assert run["episodes"] == run["solved_at_episode"] < 200


def test_capi_tiny_bridge_preset_checkpoints_and_refuses_other_settings(
    tmp_path):
  flags = ["--preset=tiny_bridge", "--seeds=0", "--episodes=2",
           "--eval_every=1", "--num_prescriptions=100", "--hidden_sizes=16",
           f"--output_dir={tmp_path}"]
  _run_example("capi", *flags)
  summary = json.loads((tmp_path / "summary.json").read_text())
  assert summary["game"] == "tiny_bridge_2p(abstracted=True)"
  assert summary["target"] == 20.79
  assert summary["config"]["policy"] == "tabular"
  assert summary["config"]["exploration"] == "one_per_episode"
  assert summary["config"]["num_prescriptions"] == 100  # Given: it wins.
  assert (tmp_path / "checkpoint_seed0.pkl").exists()
  refused = subprocess.run(
      [sys.executable, "-m", "open_spiel_ext.examples.capi",
       *flags[:-3], "--num_prescriptions=50", flags[-1]],
      capture_output=True, text=True, timeout=300)
  assert refused.returncode == 2
  assert "num_prescriptions=50 here, 100 in the checkpoint" in refused.stderr
  assert "Traceback" not in refused.stderr
  other_game = subprocess.run(
      [sys.executable, "-m", "open_spiel_ext.examples.capi",
       "--game=tiny_hanabi_c", *flags[1:]],
      capture_output=True, text=True, timeout=300)
  assert other_game.returncode == 2
  assert ("game='tiny_hanabi_c()' here, 'tiny_bridge_2p(abstracted=True)' in "
          "the checkpoint") in other_game.stderr
  twice = subprocess.run(
      [sys.executable, "-m", "open_spiel_ext.examples.capi",
       "--game=tiny_hanabi_a", "--seeds=0,0", f"--output_dir={tmp_path}/2"],
      capture_output=True, text=True, timeout=300)
  assert twice.returncode == 2
  assert "--seeds: seed 0 is given more than once" in twice.stderr


def test_tiny_hanabi_baselines_prints_the_table(tmp_path):
  output = _run_example(
      "tiny_hanabi_baselines", "--games=tiny_hanabi_a,tiny_hanabi_e",
      "--algorithms=iql,pub_mdp_q", "--runs=4", "--episodes=200",
      "--eval_every=100", f"--output_dir={tmp_path}")
  assert "| pub_mdp_q |" in output and "| iql |" in output
  table = json.loads((tmp_path / "table.json").read_text())
  assert table["optimal"] == {"tiny_hanabi_a": 2.25, "tiny_hanabi_e": 10.0}
  assert (tmp_path / "baselines.png").exists()


@pytest.mark.slow
def test_nfsp_example_policy_loads_into_openspiel_with_its_exploitability(
    tmp_path):
  flags = ("--game=kuhn_poker", "--steps=4000", "--eval_every=2000",
           f"--output_dir={tmp_path}")
  output = _run_example("nfsp", *flags)
  records = [json.loads(line) for line in
             (tmp_path / "metrics.jsonl").read_text().splitlines()]
  assert [r["step"] for r in records] == [2000, 4000]
  tabular = reporting.load_policy(str(tmp_path / "policy.json"),
                                  pyspiel.load_game("kuhn_poker"))
  theirs = exploitability.exploitability(pyspiel.load_game("kuhn_poker"),
                                         tabular)
  assert theirs == pytest.approx(records[-1]["exploitability"], abs=1e-9)
  assert f"final exploitability {theirs:.4f}" in output
  assert (tmp_path / "nfsp.png").stat().st_size > 0
  assert "resuming from" in _run_example("nfsp", *flags)


@pytest.mark.slow
def test_best_response_example_reports_exact_values(tmp_path):
  _run_example("best_response", "--game=kuhn_poker", "--opponent=cfr+:20",
               "--steps=2000", "--eval_every=1000", f"--output_dir={tmp_path}")
  records = reporting.read_json_lines(str(tmp_path / "metrics.jsonl"))
  assert [r["step"] for r in records] == [1000, 2000]
  exact = records[-1]["exact"]
  gap = np.mean(np.subtract(exact["best_values"], exact["values"]))
  assert 0 <= gap < 0.05
  policy = json.loads((tmp_path / "policy.json").read_text())
  assert len(policy) == 12
  assert (tmp_path / "best_response.png").stat().st_size > 0


def test_best_response_example_extends_a_finished_run(tmp_path):
  """A larger --steps goes on from a finished run (it was refused), with
  DDQN's learning rate decaying over the steps the run began with."""
  flags = ("--game=kuhn_poker", "--eval_every=100", "--num_envs=8",
           f"--output_dir={tmp_path}")
  _run_example("best_response", "--steps=200", *flags)
  output = _run_example("best_response", "--steps=300", *flags)
  assert "resuming from" in output
  assert "'learning_rate_decay_updates': 200" in output
  records = [json.loads(line) for line in
             (tmp_path / "metrics.jsonl").read_text().splitlines()]
  assert [r["step"] for r in records] == [100, 200, 300]


@pytest.mark.skipif(ray is None, reason="Ray is not installed "
                    "(pip install '.[ray]')")
@pytest.mark.slow
def test_p2sro_example_runs_leduc_end_to_end_on_ray(tmp_path):
  output = _run_example(
      "p2sro", "--game=leduc_poker", "--executor=ray", "--workers=2",
      "--oracle=ddqn",
      "--learners=2", "--num_envs=8", "--chunk_steps=100", "--min_steps=100",
      "--env_steps=3200", f"--output_dir={tmp_path}")
  del output
  records = [json.loads(line) for line in
             (tmp_path / "metrics.jsonl").read_text().splitlines()]
  assert [r["env_steps"] for r in records] == [1600, 3200]
  leduc = pyspiel.load_game("leduc_poker")
  tabular = reporting.load_policy(str(tmp_path / "policy.json"), leduc)
  theirs = exploitability.exploitability(leduc, tabular)
  assert theirs == pytest.approx(records[-1]["exploitability"], abs=1e-6)
  assert (tmp_path / "population" / "state.pkl").exists()
  assert (tmp_path / "p2sro.png").stat().st_size > 0


def test_p2sro_example_with_exact_oracles_is_psro(tmp_path):
  output = _run_example("p2sro", "--game=kuhn_poker", "--oracle=exact",
                        "--meta_solver=lp", f"--output_dir={tmp_path}")
  assert "final exploitability 0.0000" in output


def test_p2sro_example_refuses_an_oracle_the_method_cannot_use():
  result = subprocess.run(
      [sys.executable, "-m", "open_spiel_ext.examples.p2sro",
       "--oracle=exact", "--algorithm=dch"],
      capture_output=True, text=True, timeout=120)
  assert result.returncode == 2
  assert "--algorithm=dch needs a learned oracle" in result.stderr


def test_nxdo_example_solves_kuhn_with_exact_oracles_and_resumes(tmp_path):
  flags = ("--game=kuhn_poker", "--oracle=exact", f"--output_dir={tmp_path}")
  _run_example("nxdo", "--iterations=2", *flags)
  output = _run_example("nxdo", "--iterations=5", *flags)
  assert "resuming after iteration 1" in output
  assert "final exploitability 0.0000" in output
  assert len((tmp_path / "metrics.jsonl").read_text().splitlines()) == 5
  assert len(json.loads((tmp_path / "policy.json").read_text())) == 12
  assert (tmp_path / "nxdo.png").stat().st_size > 0


@pytest.mark.slow
def test_hanabi_play_pairs_search_with_the_blueprint_on_the_same_decks(
    tmp_path):
  flags = ("--preset=small", "--games=2", "--workers=1", "--seed=3")
  _run_example("hanabi_play", *flags, f"--output_dir={tmp_path / 'alone'}")
  output = _run_example("hanabi_play", *flags, "--search=sparta",
                        "--rollouts=200", "--batch=64",
                        f"--output_dir={tmp_path / 'sparta'}")
  # What runs, said before the first game (which can take minutes), then a
  # line per game as it ends (they also say "of the game on beliefs").
  assert output.splitlines()[0].startswith(
      "2 games of small Hanabi, blueprint rules, sparta with 200 rollouts")
  alone, searched = (json.loads((tmp_path / run / "results.json").read_text())
                     for run in ("alone", "sparta"))
  assert ([g["score"] for g in alone["games"]] ==
          [g["blueprint_score"] for g in searched["games"]])
  for game in searched["games"]:
    assert 0 <= game["score"] <= 10 and game["searcher_moves"] > 0
  assert searched["search"]["settings"]["threshold"] == 0.05


def test_stratego_eval_writes_the_win_rate_table(tmp_path):
  output = _run_example("stratego_eval", "--bots=random,heuristic",
                        "--games=4", "--ply_limit=60",
                        f"--output_dir={tmp_path}")
  assert "| row vs column | random | heuristic | mean of the bots |" in output
  assert "| heuristic | " in output
  assert "random vs heuristic: " in output  # Each match as it ends.
  table = json.loads((tmp_path / "stratego_eval.json").read_text())["table"]
  assert {(r["row"], r["column"]) for r in table} == {
      ("random", "heuristic"), ("heuristic", "random")}
  assert (tmp_path / "stratego_eval.png").exists()


@pytest.mark.slow  # A minute and a half, compiling the scout bot.
def test_stratego_eval_against_plays_the_rows_against_the_columns(tmp_path):
  output = _run_example("stratego_eval", "--bots=random",
                        "--against=heuristic,scout", "--games=4",
                        "--ply_limit=60", f"--output_dir={tmp_path}")
  assert "| row vs column | heuristic | scout | mean of the bots |" in output
  table = json.loads((tmp_path / "stratego_eval.json").read_text())["table"]
  # The columns do not play each other.
  assert {(r["row"], r["column"]) for r in table} == {
      ("random", "heuristic"), ("heuristic", "random"), ("random", "scout"),
      ("scout", "random")}


@pytest.mark.slow  # Two minutes, mostly compiling the bots into the learner.
def test_stratego_p2sro_with_anchor_bots_ships_the_networks_part(tmp_path):
  output = _run_example(
      "stratego_p2sro", "--game=barrage_stratego(ply_limit=30)",
      "--max_episodes=16", "--chunk_steps=24", "--min_steps=4",
      "--plateau_gain=10", "--num_envs=4", "--hidden_sizes=4,4",
      "--games_per_entry=4", "--eval_games=2", "--bots=random",
      "--workers=1", "--anchor_bots=scout,probabilistic",
      f"--output_dir={tmp_path}")
  assert "'anchors': ('scout', 'probabilistic')" in output
  measured = reporting.read_json_lines(str(tmp_path / "bots.jsonl"))
  # Populations count the anchors: the first fixing makes 4 rows.
  assert measured and measured[0]["population"] == 4
  assert 0 <= measured[0]["anchors_share"] <= 1
  assert len(measured[0]["meta_nash"]) == 4
  _, meta = agents.load_population(str(tmp_path / "population.npz"))
  assert np.isclose(sum(meta["weights"]), 1) and len(meta["weights"]) <= 2


@pytest.mark.slow
def test_stratego_p2sro_resumes_and_ships_a_population_people_play(tmp_path):
  # Rounds of 24 steps: every game (8 placements, 15 moves at most) ends
  # within a round, so --max_episodes bounds the rounds, however slow.
  mirror = tmp_path / "mirror"
  flags = ("--game=barrage_stratego(ply_limit=30)", "--max_episodes=16",
           "--chunk_steps=24", "--min_steps=4", "--plateau_gain=10",
           "--num_envs=4", "--hidden_sizes=4,4", "--games_per_entry=4",
           "--eval_games=2", "--bots=random,scout", "--workers=1",
           f"--mirror_dir={mirror}")
  first = tmp_path / "first"
  output = _run_example("stratego_p2sro", *flags, f"--output_dir={first}")
  assert "fixed policy 1: payoff" in output and "vs random " in output
  rounds = len((first / "metrics.jsonl").read_text().splitlines())
  measured = reporting.read_json_lines(str(first / "bots.jsonl"))
  assert [r["population"] for r in measured] == list(range(2, rounds + 1))
  for name in ("best_responses.png", "win_rates.png", "population.npz"):
    assert (first / name).exists()
  # The table: a row per population measured, under its two header lines.
  fixings = (first / "fixings.md").read_text().splitlines()
  assert len(fixings) == 2 + len(measured)
  assert fixings[2].startswith("| 2 | ")
  # A new machine: its --output_dir is empty, the mirror holds the run.
  again = tmp_path / "again"
  output = _run_example("stratego_p2sro", *flags[:1], "--max_episodes=40",
                        *flags[2:], f"--output_dir={again}")
  assert "resuming the run mirrored in" in output
  assert len(reporting.read_json_lines(str(again / "bots.jsonl"))) > len(
      measured)
  played = subprocess.run(
      [sys.executable, "-m", "open_spiel_ext.examples.play_stratego",
       f"--bot={again}/population.npz"], input="quit\n",
      capture_output=True, text=True, timeout=300, check=True)
  assert "bye" in played.stdout


@pytest.mark.slow
def test_hanabi_belief_train_writes_a_model_that_lbs_plays_with(tmp_path):
  output = _run_example(
      "hanabi_belief_train", "--preset=small", "--lstm_size=16",
      "--value_layers=16", "--max_updates=80", "--eval_every=40",
      "--eval_games=16", f"--output_dir={tmp_path}")
  # --max_updates counts real updates (it stopped at 92 of 120 when the
  # collections before learning_starts counted too).
  assert [r["updates"] for r in reporting.read_json_lines(
      str(tmp_path / "metrics.jsonl"))] == [40, 80]
  assert (tmp_path / "belief.png").exists()
  output = _run_example(
      "hanabi_play", "--preset=small", "--games=2", "--workers=1",
      "--search=lbs", "--rollout_depth=4", "--rollouts=200", "--batch=64",
      f"--belief_model={tmp_path}/belief.npz",
      f"--output_dir={tmp_path / 'play'}")
  del output
  results = json.loads((tmp_path / "play" / "results.json").read_text())
  assert results["search"]["rollout_depth"] == 4
  assert all(g["searcher_moves"] > 0 for g in results["games"])


@pytest.mark.slow
def test_hanabi_train_writes_weights_that_hanabi_play_reads(tmp_path):
  output = _run_example(
      "hanabi_train", "--preset=small", "--num_envs=8", "--lstm_size=16",
      "--max_moves=640", "--eval_every=320", "--eval_games=20",
      f"--output_dir={tmp_path}")
  del output  # Read from the records, not the wording of progress lines.
  records = reporting.read_json_lines(str(tmp_path / "metrics.jsonl"))
  assert len(records) == 2 and records[-1]["moves"] >= 640
  assert (tmp_path / "strong.npz").exists()
  assert (tmp_path / "scores.png").exists()
  _run_example("hanabi_play", "--preset=small", "--games=2", "--workers=1",
               f"--blueprint={tmp_path}/strong.npz",
               f"--output_dir={tmp_path / 'play'}")
  games = reporting.read_json_lines(str(tmp_path / "play" / "games.jsonl"))
  assert len(games) == 2
  results = json.loads((tmp_path / "play" / "results.json").read_text())
  assert results["blueprint"] == f"{tmp_path}/strong.npz"
