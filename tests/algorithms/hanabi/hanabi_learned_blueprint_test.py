"""Tests of the learned Hanabi blueprint: its network (public memory, the
fast path over many hands), weights files, the shipped blueprints, and its
use by beliefs and search."""

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from open_spiel_ext.algorithms.hanabi import beliefs
from open_spiel_ext.algorithms.hanabi import blueprints
from open_spiel_ext.algorithms.hanabi import learned_blueprint
from open_spiel_ext.algorithms.hanabi import q_network
from open_spiel_ext.algorithms.hanabi import r2d2
from open_spiel_ext.algorithms.hanabi import shipped
from open_spiel_ext.algorithms.hanabi import sparta
from open_spiel_ext.games.hanabi import engine as engine_lib

TINY = engine_lib.Rules(colors=2, ranks=2, hand_size=2,
                        max_information_tokens=3, max_life_tokens=2)
SMALL = engine_lib.Rules.from_preset("small")
NETWORK = q_network.NetworkConfig((32,), 32, (32,))
ENGINES = {rules: engine_lib.HanabiEngine(rules) for rules in (TINY, SMALL)}


def _blueprint(rules, seed=0):
  engine = ENGINES[rules]
  params = q_network.network(rules, NETWORK).init(
      jax.random.PRNGKey(seed), jnp.zeros((1, rules.observation_size)))
  return learned_blueprint.LearnedBlueprint(engine, params, NETWORK)


def _decks(rules, count, seed):
  rng = np.random.default_rng(seed)
  return np.stack([rng.permutation(rules.ordered_deck())
                   for _ in range(count)])


def test_memory_is_public_and_the_move_reads_the_private_part():
  blueprint = _blueprint(SMALL)
  engine, params = blueprint.engine, blueprint.params
  states = engine.deal(jnp.asarray(_decks(SMALL, 16, 0)))
  # The same games with player 0's cards replaced: player 1 sees others.
  other = engine.observe(states._replace(
      hands=states.hands.at[:, 0].set(jnp.roll(states.hands[:, 0], 1,
                                                 axis=0))))
  calls = blueprints.jitted(blueprint)
  memory = calls.start(params, states)
  changed = calls.start(params, other)
  for mine, theirs in zip(memory, changed):
    np.testing.assert_allclose(mine, theirs, atol=1e-6)
  movers = jnp.ones(16, jnp.int32)
  net = blueprint._net  # pylint: disable=protected-access
  everything = jnp.ones((16, SMALL.num_actions), bool)
  q = q_network.q_of(net, params, memory, states, movers, everything)
  q_other = q_network.q_of(net, params, memory, other, movers, everything)
  assert not np.allclose(q, q_other)


def test_weights_round_trip_and_bad_names(tmp_path):
  blueprint = _blueprint(SMALL)
  path = str(tmp_path / "weights.npz")
  q_network.save_weights(path, blueprint.params, SMALL, NETWORK, {"note": 1})
  params, network, rules, info = q_network.load_weights(path)
  assert (network, rules, info) == (NETWORK, SMALL, {"note": 1})
  for a, b in zip(jax.tree.leaves(params), jax.tree.leaves(blueprint.params)):
    np.testing.assert_allclose(a, b, atol=1e-3, rtol=1e-3)
  with pytest.raises(ValueError, match="was trained on"):
    learned_blueprint.load_blueprint(ENGINES[TINY], path)
  with pytest.raises(ValueError, match="no blueprint 'nowhere.npz'"):
    shipped.blueprint_from_name(blueprint.engine, "small", "nowhere.npz")
  with pytest.raises(ValueError, match="unknown blueprint strength"):
    shipped.blueprint_path("small", "legendary")


def test_belief_filtered_by_a_learned_partner_matches_brute_force():
  """The belief a searcher keeps with a learned partner (its LSTM memory
  shared by every hand) is the posterior over every deck of a tiny game."""
  blueprint = _blueprint(TINY, seed=5)
  engine, params = blueprint.engine, blueprint.params
  calls = blueprints.jitted(blueprint)
  decks = np.array(sorted(set(itertools.permutations(TINY.ordered_deck()))),
                   np.int32)
  rng = np.random.default_rng(0)
  deck = decks[rng.integers(len(decks))]
  state = engine.deal(jnp.asarray(deck)[None])
  memory = calls.start(params, state)
  belief = beliefs.initial(TINY, beliefs.row(state), 1)
  every = engine.deal(jnp.asarray(decks))
  every_memory = calls.start(params, every)
  alive = np.ones(len(decks), bool)
  for _ in range(6):
    if bool(state.terminated[0]):
      break
    game, mover = beliefs.row(state), int(state.current_player[0])
    move = (int(calls.moves(params, memory, state)[0]) if mover == 0 else
            int(rng.choice(np.flatnonzero(game.legal_action_mask))))
    if mover == 0:
      alive &= np.asarray(calls.act(params, every_memory, every,
                                    jnp.zeros(len(decks), jnp.int32))) == move
    state = engine.step(state, jnp.asarray([move], jnp.int32))
    every = engine.step(every, jnp.full(len(decks), move, jnp.int32))
    seen = np.asarray(state.observation[0, 1])
    alive &= (np.asarray(every.observation[:, 1]) == seen).all(axis=1)
    if not bool(state.terminated[0]):
      belief = beliefs.update(blueprint, belief, game, beliefs.row(memory),
                              move, beliefs.row(state))
      expected = {tuple(h) for h in np.asarray(every.hands[:, 1])[alive]}
      assert {tuple(h) for h in belief.hands.astype(np.int32)} == expected
    memory = calls.remember(params, memory, state)
    every_memory = calls.remember(params, every_memory, every)


def test_sparta_searches_over_a_learned_blueprint():
  blueprint = _blueprint(SMALL, seed=7)
  deck = _decks(SMALL, 1, 9)[0]
  alone = sparta.play_game(blueprint, deck)
  searched = sparta.play_game(
      blueprint, deck, sparta.sparta_start(
          blueprint, sparta.Config(rollouts=200, batch=64), 0), seed=0)
  assert searched.searcher_moves > 0
  # Without search the game is the blueprint's self-play on that deck.
  assert alone.score == blueprints.self_play_scores(blueprint, deck[None])[0]


@pytest.mark.parametrize("rules", [TINY, SMALL])
def test_moves_for_many_hands_match_the_network_on_each_hand(rules):
  """The learned blueprint's fast path (first private layer by rows of its
  weights) gives the network's Q values and moves on every hand."""
  blueprint = _blueprint(rules, seed=3)
  engine, params = blueprint.engine, blueprint.params
  calls = blueprints.jitted(blueprint)
  rng = np.random.default_rng(1)
  state = engine.deal(jnp.asarray(_decks(rules, 1, 2)))
  memory = calls.start(params, state)
  for _ in range(3):  # A few moves in, with hints given.
    state = engine.step(state, jnp.asarray([int(rng.choice(np.flatnonzero(
        state.legal_action_mask[0])))], jnp.int32))
    memory = calls.remember(params, memory, state)
  game, row_memory = beliefs.row(state), beliefs.row(memory)
  mover, player = int(game.current_player), 1 - int(game.current_player)
  # Hands as the belief holds them: cards where the player holds one.
  present = np.asarray(game.hands)[player] >= 0
  hands = np.where(present, rng.integers(0, rules.num_cards,
                                         (64, rules.hand_size)), -1)
  fast = blueprint.act_with_hands(params, row_memory, game, player, mover,
                                  jnp.asarray(hands))
  slow = blueprints.Blueprint.act_with_hands(
      blueprint, params, row_memory, game, player, mover, jnp.asarray(hands))
  np.testing.assert_array_equal(np.asarray(fast), np.asarray(slow))
  states = jax.tree.map(lambda x: jnp.broadcast_to(x, (64,) + x.shape), game)
  states = engine.observe(states._replace(
      hands=states.hands.at[:, player].set(jnp.asarray(hands))))
  everything = jnp.ones((64, rules.num_actions), bool)
  expected = q_network.q_of(blueprint._net, params,  # pylint: disable=protected-access
                            jax.tree.map(lambda x: jnp.broadcast_to(
                                x, (64,) + x.shape), row_memory), states,
                            jnp.full(64, mover), everything)
  got = q_network.q_with_hands(
      params, NETWORK, row_memory.hidden[mover], game.observation[mover],
      jnp.asarray(hands), 0, rules.num_cards)
  np.testing.assert_allclose(np.asarray(got), np.asarray(expected),
                             rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("preset", ["small", "full"])
def test_shipped_blueprints_load_and_score_as_trained(preset):
  engine = engine_lib.HanabiEngine(engine_lib.Rules.from_preset(preset))
  decks = r2d2.evaluation_decks(engine.rules, 1_000, 0)  # The run's own.
  scores = {}
  for strength in shipped.STRENGTHS:
    blueprint = shipped.blueprint_from_name(engine, preset, strength)
    info = q_network.load_weights(shipped.blueprint_path(preset, strength))[3]
    scores[strength] = blueprints.self_play_scores(blueprint, decks).mean()
    # float16 weights play the decks the run measured within a tenth.
    assert abs(scores[strength] - info["eval_score"]) < 0.1, strength
  assert scores["weak"] < scores["medium"] < scores["strong"]
