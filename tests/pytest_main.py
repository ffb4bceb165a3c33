"""Runs test files under pytest: the entry point of the Bazel py_test rules."""

import sys

import pytest

if __name__ == "__main__":
  sys.exit(pytest.main(sys.argv[1:]))
