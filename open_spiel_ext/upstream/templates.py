"""The texts the export writes around an exported module's code.

OpenSpiel's license header (`LICENSE_HEADER`), which opens the exported
module and its test; the module's absltest (`TEST_FILE`, with `EXTRA_TESTS`
for a module that needs more); and CHANGES/<module>.md (`CHANGES_FILE`), the
lines to add to open_spiel/python/games/__init__.py,
open_spiel/python/CMakeLists.txt, open_spiel/python/tests/pyspiel_test.py and
docs/games.md. `writing.py` fills them in.
"""

# OpenSpiel's header, as its Python games have it (all of them, including
# those added this year, keep the year 2019).
LICENSE_HEADER = """\
# Copyright 2019 DeepMind Technologies Limited
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
"""

# Exported module -> extra test methods for its absltest.
EXTRA_TESTS = {
    "sokoban": """\
  def test_built_in_levels(self):
    \"\"\"The inlined levels are all there, and the last one loads.\"\"\"
    levels = sokoban.shipped_levels()
    self.assertLen(levels, {count})
    game = pyspiel.load_game(f"sokoban(level={{len(levels) - 1}})")
    self.assertEqual(str(game.new_initial_state()), levels[-1])
""",
}

# The exported module's absltest: each game's random simulation, GameInfo,
# pickling and serialization.
TEST_FILE = '''\
{header}
"""Tests for {module}.py."""

import pickle

from absl.testing import absltest
from absl.testing import parameterized
import numpy as np

from open_spiel.python.games import {module}{unused}
import pyspiel

# Each game at its defaults, and as its playthrough plays it.
_GAME_STRINGS = [
{game_strings}]
# What GameInfo says of them.
_GAME_INFOS = {{
{game_infos}}}
_NUM_SIMS = 3


def _random_state(game, num_moves, seed=0):
  """The state after up to `num_moves` uniformly random moves."""
  rng = np.random.RandomState(seed)
  state = game.new_initial_state()
  for _ in range(num_moves):
    if state.is_terminal():
      break
    if state.is_chance_node():
      outcomes, probs = zip(*state.chance_outcomes())
      state.apply_action(int(rng.choice(outcomes, p=probs)))
    elif state.is_simultaneous_node():
      state.apply_actions([int(rng.choice(state.legal_actions(player)))
                           for player in range(game.num_players())])
    else:
      state.apply_action(int(rng.choice(state.legal_actions())))
  return state


class {test_class}(parameterized.TestCase):

  @parameterized.parameters(_GAME_STRINGS)
  def test_random_sim(self, game_string):
    """Runs our standard game tests, checking API consistency."""
    game = pyspiel.load_game(game_string)
    pyspiel.random_sim_test(game, num_sims=_NUM_SIMS, serialize=False,
                            verbose=False)

  @parameterized.parameters(_GAME_STRINGS)
  def test_game_info(self, game_string):
    game = pyspiel.load_game(game_string)
    info = _GAME_INFOS[game_string]
    self.assertEqual(game.num_distinct_actions(), info["num_distinct_actions"])
    self.assertEqual(game.max_chance_outcomes(), info["max_chance_outcomes"])
    self.assertEqual(game.num_players(), info["num_players"])
    self.assertEqual(game.min_utility(), info["min_utility"])
    self.assertEqual(game.max_utility(), info["max_utility"])
    self.assertEqual(game.max_game_length(), info["max_game_length"])

  @parameterized.parameters(_GAME_STRINGS)
  def test_pickle(self, game_string):
    game = pyspiel.load_game(game_string)
    state = _random_state(game, num_moves=3)
    self.assertEqual(str(pickle.loads(pickle.dumps(game))), str(game))
    restored = pickle.loads(pickle.dumps(state))
    self.assertEqual(restored.history(), state.history())
    self.assertEqual(str(restored), str(state))

  @parameterized.parameters(_GAME_STRINGS)
  def test_serialize_game_and_state(self, game_string):
    game = pyspiel.load_game(game_string)
    state = _random_state(game, num_moves=3)
    new_game, new_state = pyspiel.deserialize_game_and_state(
        pyspiel.serialize_game_and_state(game, state))
    self.assertEqual(str(new_game), str(game))
    self.assertEqual(new_state.history(), state.history())
    self.assertEqual(str(new_state), str(state))
{extra_tests}

if __name__ == "__main__":
  absltest.main()
'''

# CHANGES/<module>.md: the edits of OpenSpiel's other files, each under the
# file it goes in.
CHANGES_FILE = """\
# Contributing `{module}` to OpenSpiel

Written by `python -m open_spiel_ext.examples.upstream --game={short_name}`.
Copy this export's `open_spiel/` folder over an OpenSpiel checkout; it adds

{files}

Then make these edits, as OpenSpiel's developer guide ("Adding a game") asks:

1. `open_spiel/python/games/__init__.py`, among the imports (alphabetical):

   ```python
   from open_spiel.python.games import {module}
   ```

2. `open_spiel/python/CMakeLists.txt`, in `set(PYTHON_TESTS ...)` among the
   other `games/*_test.py`:

   ```
     games/{module}_test.py
   ```

3. `open_spiel/python/tests/pyspiel_test.py`, in `EXPECTED_MANDATORY_GAMES`
   (alphabetical):

   ```python
{short_names}
   ```

4. `docs/games.md`, in the table of games (alphabetical by game):

   ```
{rows}
   ```

Check with `python open_spiel/python/games/{module}_test.py` and
`python open_spiel/integration_tests/playthrough_test.py`. The playthroughs
were made with OpenSpiel's `generate_playthrough` and seed {seed};
`./open_spiel/scripts/generate_new_playthrough.sh GAME` makes new ones.
"""
