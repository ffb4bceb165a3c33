"""Play Barrage Stratego in a terminal against a scripted bot or the P2SRO
population.

Your pieces are placed from a fixed setup (`--setup_string`, default a
built-in one) or at random (`--setup=random`); the bot places its own
(`algorithms/stratego/bots.py`; `--bot=p2sro` is the population the package
ships, `examples/stratego_p2sro.py`, one member drawn from its meta-Nash
for the game; a population file's path plays that one). Then type
moves in the board notation, e.g. `b3-b7`, `b3xb4` or `Sc b3-b7`; an illegal
move is answered with the reason, and each move (yours and the bot's) is told
in words with what an attack revealed. `moves` lists your legal moves; `quit`
or the end of input ends the game (exit code 0).

  python -m open_spiel_ext.examples.play_stratego
  python -m open_spiel_ext.examples.play_stratego --bot=random --human=1
  python -m open_spiel_ext.examples.play_stratego --bot=p2sro
"""

from typing import Optional, Sequence

from absl import app
from absl import flags
import jax
import numpy as np

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel_ext.algorithms.stratego import agents
from open_spiel_ext.algorithms.stratego import bots
from open_spiel_ext.games.stratego import game as stratego
from open_spiel_ext.games.stratego import notation
from open_spiel_ext.games.stratego import rules
from open_spiel_ext.utils import cli
import pyspiel

_BOT = flags.DEFINE_string(
    "bot", "heuristic", "The opponent: random, heuristic (attacks what it "
    "knows it beats), scout (probes with Scouts, guards its Flag), "
    "probabilistic (guesses unknown pieces from what is left), p2sro (the "
    "shipped P2SRO population) or a population file.")
_HUMAN = flags.DEFINE_integer("human", 0, "Which player you are, 0 or 1.",
                              lower_bound=0, upper_bound=1)
_SETUP = flags.DEFINE_enum("setup", "fixed", ["fixed", "random"],
                           "Your setup: --setup_string, or uniformly random.")
_SETUP_STRING = flags.DEFINE_string(
    "setup_string", rules.EXAMPLE_SETUPS["barrage"],
    "Your setup as player 0 sees it: your 4 rows, your front row first, in "
    "board notation (mirrored for you as player 1).")
_PLY_LIMIT = flags.DEFINE_integer("ply_limit", 1000, "Plies until a draw.",
                                  lower_bound=1)
# numpy's RandomState takes seeds below 2**32.
_SEED = flags.DEFINE_integer("seed", 0, "Seed of the bot and random setups.",
                             lower_bound=0, upper_bound=2**32 - 1)


def random_setup_action(state: stratego.StrategoState,
                        rng: np.random.RandomState) -> int:
  """A placement drawn so that whole setups are uniformly random."""
  actions, probabilities = zip(*state.chance_outcomes())
  return int(rng.choice(actions, p=probabilities))


def human_setup_actions(human: int) -> list[int]:
  """The placements of --setup_string, or none for a random setup."""
  if _SETUP.value == "random":
    return []
  text = _SETUP_STRING.value
  if human == 1:
    text = rules.mirrored_setup(text)
  return rules.setup_placement_actions(rules.rules_for("barrage"), human,
                                       text, "--setup_string")


def read_move(state: stratego.StrategoState) -> Optional[int]:
  """Asks until the person types a legal move; None on quit or end of input."""
  while True:
    try:
      text = input("your move> ").strip()
    except EOFError:
      print()
      return None
    if text == "quit":
      return None
    if text == "moves":
      print(" ".join(state.action_to_string(state.current_player(), a)
                     for a in state.legal_actions()))
      continue
    try:
      return notation.parse_action(state, text)
    except ValueError as error:
      print(f"illegal: {error}")


def main(argv: Sequence[str]) -> int:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  if _HUMAN.value not in (0, 1):
    raise app.UsageError(f"--human must be 0 or 1, got {_HUMAN.value}")
  human = _HUMAN.value
  rng = np.random.RandomState(_SEED.value)
  game = pyspiel.load_game(f"barrage_stratego(ply_limit={_PLY_LIMIT.value})")
  state = game.new_initial_state()
  try:
    fixed = human_setup_actions(human)
  except ValueError as error:
    raise app.UsageError(str(error)) from None
  with cli.user_input("bot"):
    bot = agents.opponent(_BOT.value)
  key = jax.random.PRNGKey(_SEED.value)
  member = int(bot.draw_members(jax.random.fold_in(key, 1), 1)[0])
  while not state.setup_done():
    if state.placing_player() != human:
      key, draw = jax.random.split(key)
      state.apply_action(bots.act_on_state(bot, state, draw, member))
    elif fixed:
      state.apply_action(fixed[len(state.setups[human])])
    else:
      state.apply_action(random_setup_action(state, rng))
  print(f"You are player {human} ({'UPPER' if human == 0 else 'lower'} "
        f"case); the {_BOT.value} bot is player {1 - human}. Letters: "
        + ", ".join(f"{t.letter}={t.name}" for t in game.rules.types))
  while not state.is_terminal():
    if state.current_player() == human:
      print(state.observation_string(human))
      action = read_move(state)
      if action is None:
        print("bye")
        return 0
      state.apply_action(action)
      print(notation.describe_last_ply(state, human))
    else:
      key, draw = jax.random.split(key)
      state.apply_action(bots.act_on_state(bot, state, draw, member))
      print(f"bot: {notation.describe_last_ply(state, human)}")
  print(state)
  result = state.returns()[human]
  print({1.0: "You win.", -1.0: "You lose.", 0.0: "Draw."}[result])
  return 0


if __name__ == "__main__":
  cli.run(main)
