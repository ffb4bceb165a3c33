"""Installs the open_spiel_ext distribution.

`games/`, `algorithms/`, `utils/` and `examples/` sit at the top of the
repository, as in
OpenSpiel, and are installed under the `open_spiel_ext.` namespace so that
nothing called plain `games` or `algorithms` lands in site-packages.
"""

import pathlib

import setuptools

_SUBPACKAGES = ("games", "algorithms", "utils", "examples")

setuptools.setup(
    name="open_spiel_ext",
    version="0.1.0",
    description=("OpenSpiel plugin: double-oracle games and algorithms, "
                 "DeepCubeA puzzles, cooperative belief-space methods."),
    long_description=(pathlib.Path(__file__).parent /
                      "README.md").read_text(encoding="utf-8"),
    long_description_content_type="text/markdown",
    license="Apache 2.0",
    python_requires=">=3.11",
    packages=["open_spiel_ext"] + [
        f"open_spiel_ext.{nested}"
        for nested in setuptools.find_packages(where="open_spiel_ext")
    ] + [
        f"open_spiel_ext.{name}.{nested}" if nested else
        f"open_spiel_ext.{name}" for name in _SUBPACKAGES
        for nested in [""] + setuptools.find_packages(where=name)
    ],
    package_data={"open_spiel_ext.games.puzzles": ["data/*.txt"],
                  "open_spiel_ext.algorithms.deepcubea": ["models/*.npz"],
                  "open_spiel_ext.algorithms.hanabi": ["weights/*.npz"],
                  "open_spiel_ext.algorithms.stratego": ["weights/*.npz"]},
    package_dir={"open_spiel_ext": "open_spiel_ext"} |
    {f"open_spiel_ext.{name}": name for name in _SUBPACKAGES},
    # Lower bounds the default suite passed with (a fresh environment with
    # exactly these versions, jaxlib as jax); constraints.txt pins the
    # versions CI installs.
    install_requires=[
        "open_spiel==2.0.2",
        "jax>=0.9.0",
        "dm-haiku>=0.0.15",
        "optax>=0.2.4",
        "numpy>=2.0.2",
        "absl-py>=2.1.0",
        "scipy>=1.13.1",
        "matplotlib>=3.8.4",
    ],
    extras_require={
        # Ray too, so that CI runs the Ray executor's tests (about 20 s);
        # pytest-xdist runs the suite on both cores of a CI machine.
        "test": ["pytest", "pytest-xdist", "ray"],
        # OpenSpiel's JaxCFR and JAX NFSP baselines import the first four;
        # kociemba is the classical 3×3×3 solver DeepCubeA is compared with;
        # jaxmarl's Hanabi is the JAX peer hanabi_speed.py runs beside ours;
        # cayleypy (torch) is the free-label cube solver that
        # learned_puzzle_solvers.py compares ours with.
        "benchmarks": ["chex", "flax", "orbax-checkpoint", "etils",
                       "kociemba", "jaxmarl", "cayleypy"],
        "ray": ["ray"],
    },
)
