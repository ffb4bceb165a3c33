"""The terminal Stratego game, driven through a pipe and through tmux."""

import os
import shutil
import subprocess
import sys
import time

import pytest

COMMAND = [sys.executable, "-m", "open_spiel_ext.examples.play_stratego",
           "--seed=0"]


def test_illegal_moves_get_reasons_and_a_new_prompt():
  result = subprocess.run(COMMAND, input="c4-c5\ne1-e2\nc4-c7\nc4-a4\nquit\n",
                          capture_output=True, text=True, timeout=120)
  output = result.stdout
  assert "illegal: c5 is a lake" in output
  assert "illegal: a Bomb never moves" in output
  assert "illegal: c5 is a lake" in output.split("a Bomb never moves")[1]
  assert output.count("your move>") == 5
  assert "bot: the opponent moved" in output
  assert " 4 S......S.." in output  # The Scout went c4-a4.


def test_bad_setup_string_is_a_usage_error():
  result = subprocess.run(COMMAND + ["--setup_string=..S..."],
                          capture_output=True, text=True, timeout=120)
  assert result.returncode == 2
  assert "--setup_string" in result.stderr
  assert "Traceback" not in result.stderr


def test_an_unknown_bot_is_a_usage_error():
  result = subprocess.run(COMMAND + ["--bot=nobody"], capture_output=True,
                          text=True, timeout=120)
  assert result.returncode == 2
  assert "unknown Stratego opponent 'nobody'" in result.stderr
  assert "Traceback" not in result.stderr


@pytest.mark.parametrize("typed", ["quit\n", "", "c4-c5\n"])
def test_quit_and_end_of_input_end_normally(typed):
  result = subprocess.run(COMMAND, input=typed, capture_output=True,
                          text=True, timeout=120)
  assert result.returncode == 0, result.stderr
  assert "bye" in result.stdout
  assert "Traceback" not in result.stderr


def _screen(session: str) -> str:
  return subprocess.run(
      ["tmux", "capture-pane", "-p", "-t", session, "-S", "-300"],
      capture_output=True, text=True, check=True).stdout


def _wait_for(session: str, text: str, count: int = 1) -> str:
  deadline = time.time() + 60
  while time.time() < deadline:
    screen = _screen(session)
    if screen.count(text) >= count:
      return screen
    time.sleep(0.2)
  raise AssertionError(f"{text!r} never appeared:\n{_screen(session)}")


def _type(session: str, line: str) -> None:
  subprocess.run(["tmux", "send-keys", "-t", session, line, "Enter"],
                 check=True)


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
def test_a_person_plays_in_tmux():
  session = f"stratego_test_{os.getpid()}"
  subprocess.run(
      ["tmux", "new-session", "-d", "-s", session, "-x", "100", "-y", "60",
       " ".join(COMMAND) + "; sleep 30"], check=True)
  try:
    _wait_for(session, "your move>")
    _type(session, "h4-h6")
    _wait_for(session, "illegal: h5 is a lake")
    _type(session, "Sc h3-h4")
    _wait_for(session, "illegal: the piece on h3 is a Marshal (Ma), not Sc")
    _type(session, "h4-j4")
    # The board after the bot's reply is printed a line at a time after the
    # "bot:" line, so wait for the row that shows the Scout on j4.
    screen = _wait_for(session, " 4 ..S......S")
    assert "bot: the opponent moved" in screen
    _wait_for(session, "your move>", count=4)
    _type(session, "quit")
    _wait_for(session, "bye")
  finally:
    subprocess.run(["tmux", "kill-session", "-t", session], check=False)


def test_the_shipped_population_answers_as_the_p2sro_bot():
  result = subprocess.run(COMMAND + ["--bot=p2sro", "--human=1"],
                          input="quit\n", capture_output=True, text=True,
                          timeout=120)
  assert result.returncode == 0, result.stderr
  assert "the p2sro bot is player 0" in result.stdout
  assert "bot: " in result.stdout  # It moved first.
  assert "bye" in result.stdout
