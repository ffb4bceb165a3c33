"""The public belief MDP against brute-force enumeration of the game."""

import collections
import zlib

import numpy as np
import pytest

import open_spiel_ext  # pylint: disable=unused-import
from open_spiel_ext.algorithms import pub_mdp
from open_spiel_ext.experiments import pub_mdp_rules
from open_spiel_ext.experiments import references
import pyspiel

GAMES = [f"tiny_hanabi_{letter}" for letter in "abcdef"] + [
    "trade_comm(num_items=2)", "trade_comm(num_items=3)",
    "tiny_bridge_2p(abstracted=True)"]


def hashed_action(seed: int, info_state: str, legal: list[int]) -> int:
  """A deterministic policy: the information state hashed to a legal action."""
  return legal[zlib.crc32(f"{seed}|{info_state}".encode()) % len(legal)]


def deal_states(game):
  """(state, probability) after the opening chance moves."""
  states = [(game.new_initial_state(), 1.0)]
  while states[0][0].is_chance_node():
    states = [(state.child(action), p * q) for state, p in states
              for action, q in state.chance_outcomes()]
  return states


def brute_force(game, mdp, seed):
  """Value of the hashed policy and, per public history, [n0, n1] reach.

  Walks every history; a public history is the sequence of moves the other
  player sees, which is how `mdp` names its stages.
  """
  reach = collections.defaultdict(lambda: np.zeros(mdp.num_private))
  value = 0.0
  for deal, probability in deal_states(game):
    x0 = mdp.private_names[0].index(deal.information_state_string(0))
    x1 = mdp.private_names[1].index(deal.information_state_string(1))
    state, public, visited = deal, (), set()
    while not state.is_terminal():
      if public not in visited:  # A hidden move keeps the public history.
        reach[public][x0, x1] += probability
        visited.add(public)
      player = state.current_player()
      action = hashed_action(seed, state.information_state_string(player),
                             state.legal_actions())
      seen = {state.child(a).information_state_string(1 - player)
              for a in state.legal_actions()}
      state = state.child(action)
      if len(seen) > 1 and not state.is_terminal():
        public += (action,)
    value += probability * state.returns()[0]
  return value, reach


def coordinator(game, mdp, seed):
  """The hashed policy as prescriptions: each private state's action."""
  deals = deal_states(game)

  def info_state(player, x, stage):
    for deal, _ in deals:
      if deal.information_state_string(player) == mdp.private_names[player][x]:
        state = deal
        for action in stage.history:
          state = state.child(action)
        if player == 1 and stage.actors == (0, 1):
          state = state.child(state.legal_actions()[0])
        return state.information_state_string(player)
    raise AssertionError("no deal")

  def policy(belief):
    stage = mdp.stages[belief.stage]
    gammas = []
    for player, n in enumerate(mdp.num_private):
      actions = list(stage.actions[player])
      gammas.append(np.array([
          0 if player not in stage.actors else actions.index(hashed_action(
              seed, info_state(player, x, stage), actions))
          for x in range(n)]))
    return tuple(gammas)
  return policy


def reached_beliefs(mdp, policy, belief, probability, out):
  """Every belief the policy reaches, with its probability."""
  out.append((probability, belief))
  _, successors = mdp.step(belief, *policy(belief))
  for p, child in successors:
    reached_beliefs(mdp, policy, child, probability * p, out)
  return out


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_values_and_beliefs_equal_brute_force(name, seed):
  game = pyspiel.load_game(name)
  mdp = pub_mdp.build(game)
  policy = coordinator(game, mdp, seed)
  value, reach = brute_force(game, mdp, seed)
  assert pub_mdp.evaluate_policy(mdp, policy) == pytest.approx(value, abs=1e-5)
  beliefs = reached_beliefs(mdp, policy, mdp.initial_belief(), 1.0, [])
  assert len(beliefs) == len(reach)
  for probability, belief in beliefs:
    weights = mdp.joint_weights(belief)
    np.testing.assert_allclose(
        probability * weights / weights.sum(),
        reach[mdp.stages[belief.stage].history], atol=1e-6)


@pytest.mark.parametrize("num_items", [2, 3])
def test_trade_comm_rules_equal_the_walk(num_items):
  rules = pub_mdp_rules.trade_comm(num_items)
  walked = pub_mdp._Walker(  # pylint: disable=protected-access
      pyspiel.load_game("trade_comm", {"num_items": num_items})).build()
  np.testing.assert_allclose(rules.prior, walked.prior)
  assert rules.private_names == walked.private_names
  assert rules.feature_actions == walked.feature_actions
  def by_history(mdp):
    return {stage.history: stage for stage in mdp.stages}

  def child_histories(mdp, stage):
    return [mdp.stages[c].history if c >= 0 else None
            for c in stage.children.ravel()]

  assert by_history(rules).keys() == by_history(walked).keys()
  for history, ours in by_history(rules).items():
    theirs = by_history(walked)[history]
    assert ours.actors == theirs.actors
    for player in range(2):
      np.testing.assert_array_equal(ours.actions[player],
                                    theirs.actions[player])
    assert child_histories(rules, ours) == child_histories(walked, theirs)
    np.testing.assert_allclose(rules.reward_tables[ours.reward_table],
                               walked.reward_tables[theirs.reward_table])


def test_twelve_item_trade_comm_matches_sampled_plays():
  mdp = pub_mdp.build(pyspiel.load_game("trade_comm(num_items=12)"))
  game = mdp.game
  rng = np.random.default_rng(0)
  trade_stage = mdp.stages[-1]
  table = mdp.reward_tables[trade_stage.reward_table]
  for _ in range(200):
    x0, x1 = rng.integers(12, size=2)
    a0, a1 = rng.integers(144, size=2)
    if rng.random() < 0.3:
      a0, a1 = x0 * 12 + x1, x1 * 12 + x0
    state = game.new_initial_state()
    for action in (x0 * 12 + x1, 11, 11, trade_stage.actions[0][a0],
                   trade_stage.actions[1][a1]):
      state.apply_action(int(action))
    assert table[x0, x1, a0, a1] == state.returns()[0]


def test_outcome_probabilities_sum_to_one_and_split_reach():
  mdp = pub_mdp.build(pyspiel.load_game("tiny_hanabi_f"))
  belief = mdp.initial_belief()
  weights = mdp.joint_weights(belief) / mdp.joint_weights(belief).sum()
  gamma0 = np.array([[0, 1, 1], [1, 1, 1]])
  gamma1 = np.zeros((2, 3), int)
  probabilities = np.asarray(pub_mdp.outcome_probabilities(
      weights, gamma0, gamma1, 2, 1))
  np.testing.assert_allclose(probabilities[:, :, 0], [[1 / 3, 2 / 3], [0, 1]],
                             atol=1e-6)
  np.testing.assert_array_equal(
      pub_mdp.next_reach(belief.reach[0], gamma0[0], 1), [0, 1, 1])


def test_a_second_rules_builder_for_a_game_is_refused():
  with pytest.raises(ValueError, match="short_name='trade_comm' has"):
    pub_mdp.register_rules("trade_comm", pub_mdp.build)


def test_games_outside_the_pub_mdp_are_refused():
  with pytest.raises(ValueError, match="common-payoff"):
    pub_mdp.build(pyspiel.load_game("kuhn_poker"))
  with pytest.raises(ValueError, match="num_items"):
    pub_mdp_rules.trade_comm(0)
  with pytest.raises(ValueError, match="probability 0"):
    mdp = pub_mdp.build(pyspiel.load_game("tiny_hanabi_a"))
    belief = pub_mdp.Belief(0, (np.zeros(2, np.float32),
                                np.ones(2, np.float32)))
    mdp.step(belief, np.zeros(2, int), np.zeros(2, int))


@pytest.mark.parametrize("letter", "abcdef")
def test_belief_graph_optimum_is_the_best_joint_policy(letter):
  graph = pub_mdp.belief_graph(
      pub_mdp.build(pyspiel.load_game(f"tiny_hanabi_{letter}")))
  assert graph.optimal_values()[0] == pytest.approx(
      references.TINY_HANABI_OPTIMAL_VALUES[letter])


def test_belief_graph_values_a_policy_as_the_recursion_does():
  mdp = pub_mdp.build(pyspiel.load_game("tiny_hanabi_e"))
  graph = pub_mdp.belief_graph(mdp)
  rng = np.random.default_rng(3)
  choice = np.stack([rng.integers(len(p)) for p in graph.prescriptions])[None]
  index = {belief.key(): b for b, belief in enumerate(graph.beliefs)}

  def policy(belief):
    b = index[belief.key()]
    return graph.prescriptions[b][choice[0, b]]
  assert graph.values(choice)[0] == pytest.approx(
      pub_mdp.evaluate_policy(mdp, policy))


def test_belief_graph_refuses_huge_prescription_spaces():
  with pytest.raises(ValueError, match="max_prescriptions"):
    pub_mdp.belief_graph(pub_mdp_rules.trade_comm(12))
