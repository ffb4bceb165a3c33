"""The package registers its games under their documented names, setup.py
installs every package and data file of the source tree, and the installed
dependencies are the versions constraints.txt pins, within setup.py's
bounds."""

import glob
from importlib import metadata
import os
import re
import runpy
from unittest import mock

from packaging import requirements
import setuptools

import open_spiel_ext
import pyspiel

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUBPACKAGES = ("games", "algorithms", "utils", "examples")

PLUGIN_GAMES = [
    "barrage_stratego", "clone_gmp", "k_gmp", "lights_out", "loss_game",
    "perturbed_k_gmp",
    "rps_choice", "rubiks_cube", "sliding_puzzle", "sokoban", "stratego", "tiny_hanabi_a", "tiny_hanabi_b",
    "tiny_hanabi_c", "tiny_hanabi_d", "tiny_hanabi_e", "tiny_hanabi_f",
    "xdo_clone_leduc", "xdo_oshi_zumo"
]


def test_registered_games():
  assert open_spiel_ext.registered_games() == PLUGIN_GAMES
  assert set(PLUGIN_GAMES) <= set(pyspiel.registered_names())


def _setup_arguments() -> dict:
  """The keyword arguments setup.py passes to `setuptools.setup`."""
  captured = {}
  with mock.patch.object(setuptools, "setup", captured.update):
    runpy.run_path(os.path.join(REPO_ROOT, "setup.py"))
  return captured


def _source_packages() -> dict[str, str]:
  """Every package folder of the source tree, by its installed name."""
  found = {}
  for top in ("open_spiel_ext", *SUBPACKAGES):
    name = "open_spiel_ext" if top == "open_spiel_ext" else (
        f"open_spiel_ext.{top}")
    for folder, _, files in os.walk(os.path.join(REPO_ROOT, top)):
      if "__init__.py" in files and "__pycache__" not in folder:
        relative = os.path.relpath(folder, os.path.join(REPO_ROOT, top))
        nested = "" if relative == "." else "." + relative.replace(os.sep, ".")
        found[name + nested] = folder
  return found


def test_setup_installs_every_package_from_its_folder():
  arguments = _setup_arguments()
  packages = _source_packages()
  assert set(arguments["packages"]) == set(packages)
  for name, folder in packages.items():
    root = max((prefix for prefix in arguments["package_dir"]
                if name == prefix or name.startswith(prefix + ".")), key=len)
    mapped = os.path.join(REPO_ROOT, arguments["package_dir"][root],
                          *name[len(root):].split(".")[1:])
    assert os.path.samefile(mapped, folder), name


def test_setup_ships_every_data_file():
  arguments = _setup_arguments()
  packages = _source_packages()
  shipped = set()
  for name, patterns in arguments["package_data"].items():
    for pattern in patterns:
      shipped.update(os.path.abspath(path) for path in glob.glob(
          os.path.join(packages[name], pattern)))
  data = {os.path.abspath(os.path.join(folder, file))
          for top in ("open_spiel_ext", *SUBPACKAGES)
          for folder, _, files in os.walk(os.path.join(REPO_ROOT, top))
          if "__pycache__" not in folder for file in files
          if not file.endswith((".py", ".pyc"))}
  assert data == shipped


def _pins() -> dict[str, str]:
  """constraints.txt's versions by normalised distribution name."""
  pins = {}
  with open(os.path.join(REPO_ROOT, "constraints.txt"),
            encoding="utf-8") as f:
    for line in f:
      line = line.split("#")[0].strip()
      if line:
        name, version = line.split("==")
        pins[_normalised(name)] = version
  return pins


def _normalised(name: str) -> str:
  return re.sub(r"[-_.]+", "-", name).lower()


def test_the_installed_dependencies_are_the_pinned_versions():
  """Every pinned distribution that is installed is at its pin, and the
  core dependencies are installed (the README installs with
  -c constraints.txt)."""
  pins = _pins()
  wrong = {}
  for name, version in pins.items():
    try:
      installed = metadata.version(name)
    except metadata.PackageNotFoundError:
      continue
    if installed != version:
      wrong[name] = f"{installed} installed, {version} pinned"
  assert not wrong, (f"versions differ from constraints.txt: {wrong}; "
                     "install with -c constraints.txt")
  for requirement in _setup_arguments()["install_requires"]:
    assert _normalised(requirements.Requirement(requirement).name) in pins


def test_the_pins_meet_setups_bounds():
  pins = _pins()
  for text in _setup_arguments()["install_requires"]:
    requirement = requirements.Requirement(text)
    pinned = pins[_normalised(requirement.name)]
    assert requirement.specifier.contains(pinned), (text, pinned)
