"""Tests of the learned Hanabi blueprint: its network, R2D2's targets and
replay, weights files, and its use by search."""

import itertools
import types

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from open_spiel_ext.algorithms.hanabi import beliefs
from open_spiel_ext.algorithms.hanabi import blueprints
from open_spiel_ext.algorithms.hanabi import r2d2
from open_spiel_ext.algorithms.hanabi import sparta
from open_spiel_ext.games.hanabi import engine as engine_lib

TINY = engine_lib.Rules(colors=2, ranks=2, hand_size=2,
                        max_information_tokens=3, max_life_tokens=2)
SMALL = engine_lib.Rules.from_preset("small")
NETWORK = r2d2.NetworkConfig((32,), 32, (32,))
CONFIG = r2d2.Config(network=NETWORK, num_envs=8, unroll=6, n_step=2,
                     replay_capacity=64, batch_size=4, updates_per_unroll=2,
                     learning_starts=8, target_update_every=3)


ENGINES = {rules: engine_lib.HanabiEngine(rules) for rules in (TINY, SMALL)}


def _blueprint(rules, seed=0):
  engine = ENGINES[rules]
  params = r2d2.network(rules, NETWORK).init(
      jax.random.PRNGKey(seed), jnp.zeros((1, rules.observation_size)))
  return r2d2.LearnedBlueprint(engine, params, NETWORK)


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
  q = r2d2.q_of(blueprint._net, params, memory, states, movers,  # pylint: disable=protected-access
                jnp.ones((16, SMALL.num_actions), bool))
  q_other = r2d2.q_of(blueprint._net, params, memory, other, movers,  # pylint: disable=protected-access
                      jnp.ones((16, SMALL.num_actions), bool))
  assert not np.allclose(q, q_other)


def test_training_unroll_equals_the_actors_step_by_step_memory():
  trainer = r2d2.trainer(SMALL, CONFIG)
  train, actors = trainer.init(jax.random.PRNGKey(1))
  params = train.params
  # Two unrolls: games end and restart inside them (resets in the unroll).
  actors, segment, _ = trainer.collect(params, actors, jax.random.PRNGKey(2))
  actors, following, _ = trainer.collect(params, actors,
                                         jax.random.PRNGKey(3))
  for _ in range(6):
    actors, _, _ = trainer.collect(params, actors, jax.random.PRNGKey(4))
  assert bool(np.asarray(segment.first)[1:].any() or
              np.asarray(following.first).any())
  q = trainer._q_values(params, segment)  # pylint: disable=protected-access
  # The same Q values, recomputed move by move as the actors act.
  lstm, fresh = segment.lstm, r2d2.initial_memory(NETWORK, CONFIG.num_envs,
                                                  SMALL.players)
  net = trainer.net

  @jax.jit
  def step(lstm, first, observation, mover):
    lstm = jax.tree.map(lambda f, m: jnp.where(first[:, None, None], f, m),
                        fresh, lstm)
    shown = types.SimpleNamespace(observation=observation.astype(jnp.float32))
    lstm = r2d2.remember_all(net, params, lstm, shown)
    return lstm, r2d2.q_of(net, params, lstm, shown, mover,
                           jnp.ones((len(mover), SMALL.num_actions), bool))

  for t in range(CONFIG.unroll):
    lstm, expected = step(lstm, segment.first[t], segment.observation[t],
                          segment.mover[t])
    np.testing.assert_allclose(q[t], expected, rtol=1e-4, atol=1e-4)


def test_n_step_double_q_targets_by_hand():
  trainer = r2d2.Trainer(SMALL, r2d2.Config(network=NETWORK, n_step=2,
                                            discount=0.5, num_envs=1))
  steps, actions = 5, SMALL.num_actions
  online = jnp.zeros((steps, 1, actions)).at[:, 0, 3].set(1.0)
  target = jnp.arange(steps * actions, dtype=jnp.float32).reshape(
      steps, 1, actions)
  legal = jnp.ones((steps, 1, actions), bool)
  reward = jnp.array([1.0, 2.0, 4.0, 8.0, 16.0])[:, None]
  terminated = jnp.array([False, True, False, False, False])[:, None]
  segment = r2d2.Segment(None, None, None, None, legal, reward, terminated,
                         None)
  targets = np.asarray(trainer._targets(online, target, segment))[:, 0]  # pylint: disable=protected-access
  value = lambda t: float(target[t, 0, 3])  # a* = 3, the online argmax.
  np.testing.assert_allclose(targets, [
      1 + 0.5 * 2,  # The game ends after the second move: no bootstrap.
      2,  # It ends on this move.
      4 + 0.5 * 8 + 0.25 * value(4)])


def test_training_learns_resumes_and_writes_weights(tmp_path):
  log = r2d2.train(TINY, CONFIG, str(tmp_path), max_moves=480,
                   eval_every=240, eval_games=50, seed=3)
  assert [e.moves for e in log] == [240, 480]
  assert log[-1].updates > 0 and np.isfinite(log[-1].loss)
  # The same command continues the run from its checkpoint.
  more = r2d2.train(TINY, CONFIG, str(tmp_path), max_moves=720,
                    eval_every=240, eval_games=50, seed=3)
  assert [e.moves for e in more] == [240, 480, 720]
  assert more[:2] == log
  blueprint = r2d2.load_blueprint(r2d2.trainer(TINY, CONFIG).evaluation_engine,
                                  str(tmp_path / more[-1].snapshot))
  scores = blueprints.self_play_scores(
      blueprint, r2d2.evaluation_decks(TINY, 50, 3))
  assert scores.mean() == pytest.approx(more[-1].eval_score, abs=0.3)
  with pytest.raises(ValueError, match="another run"):
    r2d2.train(TINY, CONFIG, str(tmp_path), max_moves=960, seed=4)


def test_weights_round_trip_and_bad_names(tmp_path):
  blueprint = _blueprint(SMALL)
  path = str(tmp_path / "weights.npz")
  r2d2.save_weights(path, blueprint.params, SMALL, NETWORK, {"note": 1})
  params, network, rules, info = r2d2.load_weights(path)
  assert (network, rules, info) == (NETWORK, SMALL, {"note": 1})
  for a, b in zip(jax.tree.leaves(params), jax.tree.leaves(blueprint.params)):
    np.testing.assert_allclose(a, b, atol=1e-3, rtol=1e-3)
  with pytest.raises(ValueError, match="was trained on"):
    r2d2.load_blueprint(ENGINES[TINY], path)
  with pytest.raises(ValueError, match="no blueprint 'nowhere.npz'"):
    r2d2.blueprint_from_name(blueprint.engine, "small", "nowhere.npz")
  with pytest.raises(ValueError, match="unknown blueprint strength"):
    r2d2.shipped_path("small", "legendary")


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
          blueprint, sparta.Settings(rollouts=200, batch=64), 0), seed=0)
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
  expected = r2d2.q_of(blueprint._net, params,  # pylint: disable=protected-access
                       jax.tree.map(lambda x: jnp.broadcast_to(
                           x, (64,) + x.shape), row_memory), states,
                       jnp.full(64, mover), everything)
  got = r2d2._q_with_hands(  # pylint: disable=protected-access
      params, NETWORK, row_memory.hidden[mover], game.observation[mover],
      jnp.asarray(hands), 0, rules.num_cards)
  np.testing.assert_allclose(np.asarray(got), np.asarray(expected),
                             rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("preset", ["small", "full"])
def test_shipped_blueprints_load_and_score_as_trained(preset):
  engine = engine_lib.HanabiEngine(engine_lib.Rules.from_preset(preset))
  decks = r2d2.evaluation_decks(engine.rules, 1_000, 0)  # The run's own.
  scores = {}
  for strength in r2d2.STRENGTHS:
    blueprint = r2d2.blueprint_from_name(engine, preset, strength)
    info = r2d2.load_weights(r2d2.shipped_path(preset, strength))[3]
    scores[strength] = blueprints.self_play_scores(blueprint, decks).mean()
    # float16 weights play the decks the run measured within a tenth.
    assert abs(scores[strength] - info["eval_score"]) < 0.1, strength
  assert scores["weak"] < scores["medium"] < scores["strong"]
