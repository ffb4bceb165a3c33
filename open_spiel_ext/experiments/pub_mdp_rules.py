"""PuB-MDPs built from a game's rules, for games whose tree is too large for
`pub_mdp.build` to walk: Trade Comm's (OpenSpiel's `trade_comm`; with 12
items, 430 million histories). Importing this module registers them with
`pub_mdp.register_rules`; `coop_runs` does, so CAPI's and the baselines'
runs build Trade Comm from its rules.
"""

import itertools

import numpy as np

from open_spiel_ext.algorithms import pub_mdp
import pyspiel


def trade_comm(num_items: int) -> pub_mdp.PubMdp:
  """Trade Comm's PuB-MDP from its rules (OpenSpiel's `trade_comm`).

  Each player is dealt one of `num_items` items uniformly; player 0 then
  player 1 utter one of `num_items` words in public; then each offers a trade
  (give, get), action `num_items + give * num_items + get`, player 1 not
  seeing player 0's offer. Both get 1 if the offers swap the two items held.
  """
  if num_items < 1:
    raise ValueError(f"num_items must be >= 1, got {num_items}")
  game = pyspiel.load_game("trade_comm", {"num_items": num_items})
  n = num_items
  utterances = np.arange(n)
  trades = n + np.arange(n * n)
  silent = np.array([pub_mdp.NO_ACTION])
  table = np.zeros((n, n, n * n, n * n), np.float32)
  for x0, x1 in itertools.product(range(n), repeat=2):
    table[x0, x1, x0 * n + x1, x1 * n + x0] = 1
  stages = [pub_mdp.Stage((0,), (utterances, silent),
                  1 + np.arange(n)[:, None], 1, ())]
  for u0 in range(n):
    stages.append(pub_mdp.Stage((1,), (silent, utterances),
                        1 + n + u0 * n + np.arange(n)[None, :], 2, (u0,)))
  for u0, u1 in itertools.product(range(n), repeat=2):
    stages.append(pub_mdp.Stage((0, 1), (trades, trades),
                        np.full((n * n, n * n), -1), 0, (u0, u1)))
  return pub_mdp.PubMdp(
      game=game,
      private_names=(
          tuple(_dealt(game, x * n).information_state_string(0)
                for x in range(n)),
          tuple(_dealt(game, x).information_state_string(1)
                for x in range(n))),
      prior=np.full((n, n), 1 / n**2, np.float32),
      stages=tuple(stages),
      reward_tables=(table, np.zeros((n, n, n, 1), np.float32),
                     np.zeros((n, n, 1, n), np.float32)),
      feature_actions=(tuple(range(n)), tuple(range(n))))


def _dealt(game: pyspiel.Game, deal: int) -> pyspiel.State:
  state = game.new_initial_state()
  state.apply_action(deal)
  return state


pub_mdp.register_rules(
    "trade_comm", lambda game: trade_comm(game.get_parameters()["num_items"]))
