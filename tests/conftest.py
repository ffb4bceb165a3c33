"""Pytest setup: the tests run against the installed package, never the sources."""

import os
import sys

import open_spiel_ext

_REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

if os.path.abspath(open_spiel_ext.__file__).startswith(
    os.path.join(_REPO_ROOT, "open_spiel_ext")):
  sys.exit("Tests must import the installed open_spiel_ext, not the source "
           "folder: install it with `pip install .` and run `pytest` (not "
           "`python -m pytest`, which puts the repository on sys.path).")
