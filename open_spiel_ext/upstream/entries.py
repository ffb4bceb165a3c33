"""Which plugin games go to OpenSpiel, in which module, with which entry.

Every registered game but Stratego (`DECLINED`) is a candidate. The games
one plugin module registers go together (`family`) into one exported module
(`module_name`): exporting any of k_gmp, perturbed_k_gmp and clone_gmp
writes k_gmp.py, which registers all three (as OpenSpiel's
pokerkit_wrapper.py registers two games), and any game of the Tiny Hanabi
Suite writes tiny_hanabi_suite.py with the six; a module of one game is named
after it. `ENTRIES` holds what OpenSpiel's files say of each game besides its
code: the game string of its playthrough and its row of docs/games.md.
"""

import dataclasses
import functools

import pyspiel

from open_spiel_ext.games import registry

_STRATEGO_REASON = ("OpenSpiel declined Stratego for copyright reasons "
                    "(open_spiel issues #459 and #635)")
DECLINED = {"stratego": _STRATEGO_REASON, "barrage_stratego": _STRATEGO_REASON}

_XDO = ("[McAleer et al. '21, XDO: A Double Oracle Algorithm for "
        "Extensive-Form Games](https://arxiv.org/abs/2103.06426)")
_TINY_HANABI = ("[Sokota et al. '21, Solving Common-Payoff Games with "
                "Approximate Policy Iteration]"
                "(https://arxiv.org/abs/2101.04237)")
_DEEPCUBEA = ("[Agostinelli et al. '19, Solving the Rubik's cube with deep "
              "reinforcement learning and search]"
              "(https://doi.org/10.1038/s42256-019-0070-z)")


@dataclasses.dataclass(frozen=True)
class Entry:
  """What OpenSpiel's files say of one game besides its code.

  Attributes:
    playthrough: the game string its playthrough plays: the defaults, unless
      they make a long file.
    title: its name in the Game column of docs/games.md (Markdown).
    description: the Description column, references included.
  """
  playthrough: str
  title: str
  description: str


def _tiny_hanabi(letter: str, shape: str) -> Entry:
  return Entry(
      f"tiny_hanabi_{letter}", f"Tiny Hanabi Suite game {letter.upper()}",
      f"Game {letter.upper()} of the Tiny Hanabi Suite ({shape}): OpenSpiel's "
      "`tiny_hanabi` with the suite's cards, actions and common payoffs. "
      f"References: {_TINY_HANABI}.")


ENTRIES = {
    "xdo_clone_leduc": Entry(
        "xdo_clone_leduc", "Clone Leduc poker",
        "Leduc poker with every fold/call/raise duplicated `clones` times; "
        "information states are Leduc's, histories grow with every cloned "
        f"decision (PSRO's pure strategies explode). References: {_XDO}."),
    "k_gmp": Entry(
        "k_gmp", "k Generalized Matching Pennies",
        "Chance picks one of `k` generalized matching pennies games (both "
        "players see it), then both move simultaneously (player 1 does not "
        f"see player 0's move). References: {_XDO}."),
    "perturbed_k_gmp": Entry(
        "perturbed_k_gmp", "Perturbed k Generalized Matching Pennies",
        "k Generalized Matching Pennies whose matching payoffs get seeded "
        "perturbations from (−1, 1), so each subgame has its own equilibrium. "
        f"References: {_XDO}."),
    "clone_gmp": Entry(
        "clone_gmp", "(k, m)-Clone Generalized Matching Pennies",
        "k Generalized Matching Pennies with `clones` copies of each of "
        f"`classes` actions; actions match when their classes do. References: "
        f"{_XDO}."),
    "rps_choice": Entry(
        "rps_choice", "Choice of Rock-Paper-Scissors games",
        "Player 0 picks one of `games` rock-paper-scissors games, then both "
        "play it simultaneously; player 1 has 3^`games` pure strategies, hard "
        f"for PSRO. References: {_XDO}."),
    "xdo_oshi_zumo": Entry(
        "xdo_oshi_zumo", "Turn-based Oshi-Zumo (XDO)",
        "OpenSpiel's `oshi_zumo` made turn-based, with an information-state "
        f"tensor and named presets of larger variants. References: {_XDO}."),
    "loss_game": Entry(
        "loss_game(bins=3,moves=2)", "Loss Game",
        "Both players move a point `x` in R^2 (or R^16) at once for `moves` "
        "steps on a grid of `bins` values per coordinate; player 0 earns "
        f"L(x) each step, player 1 −L(x). References: {_XDO} (NXDO)."),
    "tiny_hanabi_a": _tiny_hanabi("a", "2 cards, 2 actions"),
    "tiny_hanabi_b": _tiny_hanabi("b", "2 cards, 2 actions"),
    "tiny_hanabi_c": _tiny_hanabi("c", "2 cards, 2 actions"),
    "tiny_hanabi_d": _tiny_hanabi("d", "2 cards, 2 actions"),
    "tiny_hanabi_e": _tiny_hanabi("e", "2 cards, 3 actions"),
    "tiny_hanabi_f": _tiny_hanabi("f", "3 cards, 2 actions"),
    "lights_out": Entry(
        "lights_out(max_length=12)",
        "[Lights Out](https://en.wikipedia.org/wiki/Lights_Out_\\(game\\))",
        "Pressing a light toggles it and its neighbours; turn every light "
        "off. Starts from seeded random presses or a given board; reward −1 "
        f"per move. References: {_DEEPCUBEA}."),
    "rubiks_cube": Entry(
        "rubiks_cube(max_length=3,scramble_moves=5,seed=1)",
        "[Rubik's Cube](https://en.wikipedia.org/wiki/Rubik%27s_Cube)",
        "The 3×3×3 or 2×2×2 cube in the quarter-turn metric, from a seeded "
        f"scramble or a given position; reward −1 per move. References: "
        f"{_DEEPCUBEA}."),
    "sliding_puzzle": Entry(
        "sliding_puzzle(max_length=8,scramble_moves=6,seed=2,size=3)",
        "[Sliding puzzle](https://en.wikipedia.org/wiki/15_puzzle)",
        "The 8- to 48-puzzle: slide tiles into the blank to order them, from "
        "a seeded scramble or a given tray; reward −1 per move. References: "
        f"{_DEEPCUBEA}."),
    "sokoban": Entry(
        "sokoban(max_length=6)",
        "[Sokoban](https://en.wikipedia.org/wiki/Sokoban)",
        "Push every box onto a goal; 1,000 built-in 10×10 levels made by "
        "reverse play, or any level in the Boxoban notation; reward −1 per "
        f"move. References: {_DEEPCUBEA}."),
}

# Exported module names that are neither the game's nor the plugin module's.
_MODULE_NAMES = {"open_spiel_ext.games.tiny_hanabi": "tiny_hanabi_suite"}


def candidates() -> list[str]:
  """The short names of the plugin's games that may go to OpenSpiel."""
  return [name for name in registry.registered_games() if name not in DECLINED]


def check_candidate(short_name: str) -> None:
  """Raises ValueError, saying why, unless `short_name` is a candidate."""
  if short_name in DECLINED:
    raise ValueError(f"{short_name} is not exported: {DECLINED[short_name]}")
  if short_name not in candidates():
    raise ValueError(f"{short_name!r} is not one of the plugin's games; the "
                     f"candidates are {', '.join(candidates())}")


@functools.lru_cache(maxsize=None)
def game_class(short_name: str) -> type:
  """The class of the plugin game `short_name`; its module registers it."""
  return type(pyspiel.load_game(short_name))


def family(short_name: str) -> tuple[str, ...]:
  """The candidates registered by the plugin module that registers
  `short_name` (they are exported together), sorted."""
  check_candidate(short_name)
  source = game_class(short_name).__module__
  return tuple(name for name in candidates()
               if game_class(name).__module__ == source)


def module_name(short_name: str) -> str:
  """The name of the exported module holding `short_name`."""
  names = family(short_name)
  source = game_class(short_name).__module__
  if source in _MODULE_NAMES:
    return _MODULE_NAMES[source]
  return names[0] if len(names) == 1 else source.rsplit(".", 1)[1]
