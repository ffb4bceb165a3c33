"""The commands the README, the docs/ pages and the modules' docstrings give
for the examples and benchmarks: each parses with the module's own flags
(names, types, choices, bounds), so a reader who copies one is not refused
at the door. Placeholders (`<dir>`) are checked by name only; a value
`a|b` stands for each of a and b. A `bash` command's script exists and
parses (`bash -n`), and every row of the README's results table has one of
these commands."""

import collections
import glob
import json
import os
import re
import subprocess
import sys

import pytest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_MODULE = re.compile(r"python (-m open_spiel_ext\.examples\.([a-z0-9_]+)\b|"
                     r"((?:benchmarks|examples)/[a-z0-9_]+\.py))")
# A shell script a command runs: `bash runs/learned_puzzle_solvers.sh`.
_SCRIPT = re.compile(r"\bbash ((?:benchmarks|runs)/[\w./-]+\.sh)\b")
# Where a shell command ends: an operator, a redirection or a comment.
_END = re.compile(r"\s(?:&&|\|\||;|&|>>?|2>|<|#)")


def _sources() -> list[str]:
  pages = glob.glob(os.path.join(REPO_ROOT, "docs", "**", "*.md"),
                    recursive=True)
  modules = [path for folder in ("benchmarks", "examples")
             for path in glob.glob(os.path.join(REPO_ROOT, folder, "*.py"))]
  return [os.path.join(REPO_ROOT, "README.md")] + sorted(pages + modules)


def _command_text(text: str, match: re.Match) -> str:
  """The command's text after the module: to the closing backtick of an
  inline code span, else to the end of its line and the lines its trailing
  backslashes continue."""
  rest = text[match.end():]
  if text[match.start() - 1] == "`":
    return rest.split("`", 1)[0]
  lines = []
  for line in rest.split("\n"):
    stripped = line.rstrip()
    lines.append(stripped.rstrip("\\"))
    if not stripped.endswith("\\"):
      break
  return " ".join(lines)


def _argvs(arguments: str) -> list[list[str]]:
  """The flag arguments, one list per combination of `a|b` alternatives;
  placeholders kept as names only."""
  arguments = _END.split(" " + arguments, maxsplit=1)[0]
  argvs = [[]]
  for token in arguments.split():
    if not token.startswith("--"):
      continue
    name, equals, value = token.partition("=")
    if "<" in value or "…" in value or "..." in value:
      argvs = [argv + [f"{name}?"] for argv in argvs]
    elif "|" in value and equals:
      argvs = [argv + [f"{name}={choice}"] for argv in argvs
               for choice in value.split("|")]
    else:
      argvs = [argv + [token] for argv in argvs]
  return argvs


def _documented() -> dict[str, list[tuple[str, list[str]]]]:
  """Per module (an importable name or a script's path): where each command
  is given, and its arguments."""
  commands = collections.defaultdict(list)
  for path in _sources():
    with open(path, encoding="utf-8") as f:
      text = f.read()
    for match in _MODULE.finditer(text):
      module = (f"open_spiel_ext.examples.{match.group(2)}" if match.group(2)
                else match.group(3))
      where = os.path.relpath(path, REPO_ROOT)
      for argv in _argvs(_command_text(text, match)):
        commands[module].append((where, argv))
  return commands


def _documented_scripts() -> dict[str, list[str]]:
  """Per shell script a `bash` command runs: where each command is given."""
  scripts = collections.defaultdict(list)
  for path in _sources():
    with open(path, encoding="utf-8") as f:
      text = f.read()
    for match in _SCRIPT.finditer(text):
      scripts[match.group(1)].append(os.path.relpath(path, REPO_ROOT))
  return scripts


def _readme_results() -> tuple[list[str], list[tuple[str, str]]]:
  """The README's results at a glance: each table row's label (the text of
  its first link), and each command of the code block below the table with
  the comment above it, less a note in parentheses (the setup lines before
  the first comment aside)."""
  with open(os.path.join(REPO_ROOT, "README.md"), encoding="utf-8") as f:
    text = f.read()
  section = text.split("\n## Results at a glance\n", 1)[1]
  section = section.split("\n## ", 1)[0]
  labels = re.findall(r"^\| \[([^\]]+)\]", section, flags=re.M)
  block = re.search(r"^```sh\n(.*?)^```", section, flags=re.S | re.M)
  commands, comment, seen_comment = [], None, False
  for line in block.group(1).replace("\\\n", " ").splitlines():
    if line.startswith("# "):
      comment, seen_comment = line[2:].split(" (", 1)[0], True
    elif line.strip() and seen_comment:
      commands.append((comment, line))
      comment = None
  return labels, commands


# Run in a fresh process per module (its flags are global): defines the
# module's flags without running it, then parses each command's arguments
# (a placeholder of a string flag as a word, of another flag by name only).
# Prints the commands refused, or the optional dependency the module lacks.
_CHECK = r"""
import importlib, json, runpy, sys
from absl import flags
module, commands = sys.argv[1], json.loads(sys.argv[2])
try:
  if module.endswith(".py"):
    runpy.run_path(module, run_name="doc_commands_test")
  else:
    importlib.import_module(module)
except ModuleNotFoundError as error:
  print(json.dumps({"missing": error.name}))
  sys.exit()
FLAGS = flags.FLAGS
refused = []
for where, argv in commands:
  given, unknown = [], []
  for argument in argv:
    name = argument[2:].rstrip("?")
    if not argument.endswith("?"):
      given.append(argument)
    elif name not in FLAGS:
      unknown.append(name)
    elif FLAGS[name].flag_type() == "string":
      given.append(f"--{name}=placeholder")
  try:
    FLAGS.unparse_flags()
    FLAGS(["prog"] + given)
    problem = f"unknown flags {unknown}" if unknown else None
  except flags.Error as error:
    problem = str(error)
  if problem:
    refused.append(f"{where}: {' '.join(argv)}: {problem}")
print(json.dumps({"refused": refused}))
"""


_COMMANDS = _documented()


def test_the_docs_give_commands_of_many_modules():
  assert len(_COMMANDS) >= 30
  assert "benchmarks/lbs_paper.py" in _COMMANDS


def test_documented_scripts_exist_and_parse():
  scripts = _documented_scripts()
  assert "runs/learned_puzzle_solvers.sh" in scripts
  problems = []
  for script, wheres in sorted(scripts.items()):
    path = os.path.join(REPO_ROOT, script)
    if not os.path.isfile(path):
      problems.append(f"{sorted(set(wheres))}: no {script}")
      continue
    result = subprocess.run(["bash", "-n", path], capture_output=True,
                            text=True, timeout=60, check=False)
    if result.returncode:
      problems.append(f"{script}: {result.stderr.strip()}")
  assert not problems, "\n".join(problems)


def test_every_readme_result_has_a_checked_command():
  labels, commands = _readme_results()
  assert len(labels) >= 9
  assert [comment for comment, _ in commands] == labels, (
      "each row of the README's results table needs its command, in order, "
      "under a comment that repeats the row's link text")
  scripts = _documented_scripts()
  for label, command in commands:
    python, bash = _MODULE.search(command), _SCRIPT.search(command)
    assert python or bash, f"{label}: {command!r} is not a command checked here"
    if python:
      module = (f"open_spiel_ext.examples.{python.group(2)}"
                if python.group(2) else python.group(3))
      assert ("README.md" in
              [where for where, _ in _COMMANDS.get(module, [])]), module
    else:
      assert "README.md" in scripts[bash.group(1)], bash.group(1)


@pytest.mark.slow
@pytest.mark.parametrize("module", sorted(_COMMANDS))
def test_documented_commands_parse(module):
  result = subprocess.run(
      [sys.executable, "-c", _CHECK, module, json.dumps(_COMMANDS[module])],
      cwd=REPO_ROOT, capture_output=True, text=True, timeout=300, check=False)
  assert result.returncode == 0, result.stderr[-2000:]
  outcome = json.loads(result.stdout.strip().splitlines()[-1])
  if "missing" in outcome:  # A benchmark's baseline (the benchmarks extra).
    pytest.skip(f"{module} needs {outcome['missing']}, not installed")
  assert not outcome["refused"], "\n".join(outcome["refused"])
