"""Tests of the learned belief model and learned belief search (LBS)."""

import dataclasses
import functools
import itertools
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from open_spiel_ext.algorithms.hanabi import belief_model
from open_spiel_ext.algorithms.hanabi import beliefs
from open_spiel_ext.algorithms.hanabi import blueprints
from open_spiel_ext.algorithms.hanabi import lbs
from open_spiel_ext.algorithms.hanabi import learned_blueprint
from open_spiel_ext.algorithms.hanabi import q_network
from open_spiel_ext.algorithms.hanabi import selfplay
from open_spiel_ext.algorithms.hanabi import shipped
from open_spiel_ext.algorithms.hanabi import sparta
from open_spiel_ext.games.hanabi import engine as engine_lib
from open_spiel_ext.utils import reporting

TINY = engine_lib.Rules(colors=2, ranks=2, hand_size=2,
                        max_information_tokens=3, max_life_tokens=2)
SMALL = engine_lib.Rules.from_preset("small")
NETWORK = belief_model.NetworkConfig((32,), 32, 16, value_hidden=(32,))
CONFIG = belief_model.Config(network=NETWORK, num_envs=16,
                             replay_capacity=64, batch_size=8,
                             learning_starts=16, learning_rate=3e-3)
ENGINES = {rules: engine_lib.HanabiEngine(rules) for rules in (TINY, SMALL)}
BUDGET = sparta.Config(rollouts=300, batch=64)


def _rule_bot(rules):
  return blueprints.RuleBlueprint(ENGINES[rules])


def _model(rules, network=NETWORK, seed=0):
  """An untrained belief model of the rule-based bot."""
  blueprint = _rule_bot(rules)
  train = belief_model.Trainer(blueprint, belief_model.Config(
      network=network)).init(jax.random.PRNGKey(seed))
  return belief_model.BeliefModel(train.params, network, rules,
                                  blueprint.fingerprint, "rules")


def _positions(rules, games, searcher=1, seed=0):
  """(game, memory, blueprint state) where `searcher` moves, in the rule
  bot's self-play."""
  engine = ENGINES[rules]
  blueprint = _rule_bot(rules)
  rng = np.random.default_rng(seed)
  found = []
  for _ in range(games):
    state = engine.deal(jnp.asarray(rng.permutation(rules.ordered_deck()))[
        None])
    while not bool(state.terminated[0]):
      if int(state.current_player[0]) == searcher:
        found.append(beliefs.row(state))
      state = engine.step(state, blueprint.moves((), (), state))
  return found


def test_the_longest_game_bound_holds_in_collected_games():
  trainer = belief_model.Trainer(_rule_bot(SMALL), CONFIG)
  games = trainer.collect((), jax.random.PRNGKey(0), 16)
  valid = np.asarray(games.valid)
  assert valid[:, 0].all() and not valid[:, -1].any()
  assert (np.asarray(games.first) == (np.arange(valid.shape[1]) == 0)).all()
  # The points to come at the deal are the game's score.
  scores = blueprints.self_play_scores(_rule_bot(SMALL), np.asarray(
      ENGINES[SMALL].init(jax.random.split(jax.random.PRNGKey(0), 16)
                         ).deck))
  np.testing.assert_allclose(np.asarray(games.to_go)[:, 0], scores)


def test_packed_rows_hold_the_games_whole_and_in_order():
  trainer = belief_model.Trainer(_rule_bot(SMALL), CONFIG)
  games = jax.tree.map(np.asarray, trainer.collect(
      (), jax.random.PRNGKey(1), 16))
  length = 3 * games.valid.shape[1]
  packed, used = jax.tree.map(np.asarray, belief_model.pack(games, length))
  lengths = games.valid.sum(axis=1)
  starts = np.argwhere(packed.first)  # (row, step), in row-major order.
  assert len(starts) == 16 and used.sum() == len(np.unique(starts[:, 0]))
  assert used.sum() < 16 // 2  # Small's games are far shorter than 3 rows.
  for game, (row, step) in enumerate(starts):
    span = slice(step, step + lengths[game])
    assert packed.valid[row, span].all()
    np.testing.assert_array_equal(packed.observation[row, span],
                                  games.observation[game, :lengths[game]])
    np.testing.assert_array_equal(packed.to_go[row, span],
                                  games.to_go[game, :lengths[game]])
  assert packed.valid.sum() == lengths.sum()
  with pytest.raises(ValueError, match="rows of 10 steps cannot hold"):
    belief_model.pack(games, 10)


def test_packed_rows_give_the_padded_games_loss():
  trainer = belief_model.Trainer(_rule_bot(SMALL), CONFIG)
  games = trainer.collect((), jax.random.PRNGKey(2), 16)
  params = trainer.init(jax.random.PRNGKey(3)).params
  packed, used = belief_model.pack(games, 4 * games.valid.shape[1])
  packed = jax.tree.map(lambda field: field[np.asarray(used)], packed)
  np.testing.assert_allclose(trainer.evaluate(params, packed),
                             trainer.evaluate(params, games), rtol=1e-5)


def test_a_decoded_share_scores_steps_of_games_before_padding():
  games = belief_model.Trainer(_rule_bot(SMALL), CONFIG).collect(
      (), jax.random.PRNGKey(7), 16)
  steps_of_games = float(np.asarray(games.valid).mean())
  assert steps_of_games < 0.8  # Small's rows are padded to its longest game.
  covering = belief_model.Trainer(_rule_bot(SMALL), dataclasses.replace(
      CONFIG, decoded_share=steps_of_games + 0.01))
  params = covering.init(jax.random.PRNGKey(8)).params
  full = covering._losses(params, games)  # pylint: disable=protected-access
  for seed in range(3):
    np.testing.assert_allclose(covering._losses(  # pylint: disable=protected-access
        params, games, jax.random.PRNGKey(seed)), full, rtol=1e-5)
  half = dataclasses.replace(CONFIG, decoded_share=steps_of_games / 2)
  draws = [belief_model.Trainer(_rule_bot(SMALL), half)._losses(  # pylint: disable=protected-access
      params, games, jax.random.PRNGKey(seed))[0] for seed in range(3)]
  assert len(set(np.asarray(draws).tolist())) == 3
  with pytest.raises(ValueError, match="decoded_share=0"):
    belief_model.Config(decoded_share=0)


def test_a_packed_trainer_learns_from_its_rows():
  packed = dataclasses.replace(CONFIG, sequence_length=200)
  trainer = belief_model.Trainer(_rule_bot(SMALL), packed)
  rows, used = trainer.rows((), jax.random.PRNGKey(4))
  buffer = trainer.store(trainer.empty_buffer(), rows, used)
  assert 0 < int(buffer.size) < packed.num_envs
  train = trainer.init(jax.random.PRNGKey(5))
  _, first = trainer.learn(train, buffer, jax.random.PRNGKey(6))
  for _ in range(20):
    train, losses = trainer.learn(train, buffer, jax.random.PRNGKey(6))
  assert losses[0] < first[0]
  with pytest.raises(ValueError, match="sequence_length=40 cannot hold a "
                     "whole game"):
    belief_model.Trainer(_rule_bot(SMALL), belief_model.Config(
        sequence_length=40))


def test_decoder_probabilities_normalise_over_every_hand():
  model = _model(TINY)
  net = belief_model.network(TINY, NETWORK)
  context = jax.random.normal(jax.random.PRNGKey(1), (1, NETWORK.lstm_size))
  hands = np.array(list(itertools.product(range(TINY.num_cards),
                                          repeat=TINY.hand_size)))
  log_probs = net.apply[2](model.params, jnp.repeat(context, len(hands), 0),
                           jnp.asarray(hands))
  np.testing.assert_allclose(np.exp(log_probs).sum(-1), 1.0, rtol=1e-5)
  joint = np.take_along_axis(np.asarray(log_probs), hands[..., None],
                             -1).sum(axis=(1, 2))
  np.testing.assert_allclose(np.exp(joint).sum(), 1.0, rtol=1e-5)
  # Sampling follows the same distribution.
  drawn = model.sample(context, 20_000, TINY.hand_size,
                       jax.random.PRNGKey(2)).astype(int)
  index = drawn[:, 0] * TINY.num_cards + drawn[:, 1]
  frequencies = np.bincount(index, minlength=len(hands)) / len(drawn)
  np.testing.assert_allclose(frequencies, np.exp(joint), atol=0.015)


def test_accepted_samples_fit_the_public_information():
  model = _model(SMALL)
  for game in _positions(SMALL, 2)[::3]:
    belief = lbs.LearnedBelief(model, _rule_bot(SMALL), 1, game, 256)
    sampler = lbs.RejectionSampler(belief.sampler(game), SMALL, game, 1, 0.0)
    hands = sampler(200, np.random.default_rng(0))
    allowed = beliefs.plausible(SMALL, game, 1)
    unseen = beliefs.unseen(SMALL, game, 1)
    present = np.asarray(game.hands)[1] >= 0
    assert hands.shape == (200, SMALL.hand_size)
    for hand in hands.astype(int):
      assert ((hand >= 0) == present).all()
      assert all(allowed[slot, card] for slot, card in enumerate(hand)
                 if card >= 0)
      assert (np.bincount(hand[hand >= 0], minlength=SMALL.num_cards) <=
              unseen).all()


def test_what_the_blueprint_knows_rejects_more_samples():
  model = _model(SMALL)
  game = _positions(SMALL, 2)[6]
  belief = lbs.LearnedBelief(model, _rule_bot(SMALL), 1, game, 256)
  plain = lbs.RejectionSampler(belief.sampler(game), SMALL, game, 1, 0.0)
  hands = plain(200, np.random.default_rng(0)).astype(int)
  present = np.flatnonzero(hands[0] >= 0)
  slot, card = present[0], hands[0, present[0]]
  known = beliefs.plausible(SMALL, game, 1)
  known[slot, card] = False  # As if a convention had crossed it off.
  narrowed = lbs.RejectionSampler(belief.sampler(game), SMALL, game, 1, 0.0,
                                  known)
  kept = narrowed(200, np.random.default_rng(0))
  assert len(kept) == 200 and not (kept[:, slot] == card).any()
  assert (hands[:, slot] == card).any()


class _ExplainChecker(sparta.Searcher):
  """Plays the rule bot as player 1 and, at each of its moves, checks
  `explains_moves` over the moves its LBS searcher kept."""

  def __init__(self, game):
    super().__init__(_rule_bot(SMALL), 1)
    self.lbs = lbs.LbsSearcher(self.blueprint, 1, game, _model(SMALL),
                               lbs.Config(BUDGET, depth=None))
    self.exact = sparta.ExactBelief(self.blueprint, 1, game)
    self.hinted = self.rejected = 0

  def decide(self, game, memory, rng):
    moves = tuple(self.lbs.moves_since)
    assert len(moves) == 1  # The partner's move since this player's last.
    explains = functools.partial(lbs.explains_moves, self.blueprint, 1, moves)
    truth = np.asarray(game.hands)[1][None].astype(np.int8)
    assert explains(truth).all()
    assert explains(self.exact.belief.hands).all()
    if int(game.last.kind) >= engine_lib.REVEAL_COLOR:
      self.hinted += 1
      self.rejected += (~explains(beliefs.initial(SMALL, game, 1).hands)
                       ).any()
    action = sparta.blueprint_action(self.blueprint, game, memory, 1)
    return sparta.Decision(action, action, {}, 0, 0.0)

  def observe(self, before, memory, action, after):
    self.lbs.observe(before, memory, action, after)
    self.exact.observe(before, memory, action, after)


def test_draws_must_explain_the_partners_moves_since_the_searchers_last():
  # The hand held and every hand of the exact belief explain the partner's
  # last move; after many hints some hands the hints allow do not (the rule
  # bot hints the newest card it touches only where that card is playable:
  # 7 of the 14 hints here).
  checkers = []

  def start(game):
    checkers.append(_ExplainChecker(game))
    return {1: checkers[-1]}

  rng = np.random.default_rng(3)
  for _ in range(3):
    sparta.play_game(_rule_bot(SMALL), rng.permutation(SMALL.ordered_deck()),
                     start)
  hinted = sum(checker.hinted for checker in checkers)
  rejected = sum(checker.rejected for checker in checkers)
  assert hinted > 5 and rejected >= 3


def test_a_learned_belief_draws_the_smallest_batch_that_holds_the_count():
  game = _positions(SMALL, 1)[4]
  belief = lbs.LearnedBelief(_model(SMALL), _rule_bot(SMALL), 1, game, 256)
  draw, rng = belief.sampler(game), np.random.default_rng(0)
  sizes = [len(draw(count, rng)) for count in (1, 64, 65, 200, 1000)]
  assert sizes == [lbs.FEWEST_DRAWS, 64, 128, 256, 256]


def test_too_few_consistent_samples_fall_back_to_the_blueprint():
  game = next(g for g in _positions(SMALL, 1)
              if np.asarray(g.legal_action_mask).sum() > 1)
  impossible = lambda count, rng: np.full((count, SMALL.hand_size), -1,
                                           np.int8)
  sampler = lbs.RejectionSampler(impossible, SMALL, game, 1, 0.05)
  assert sampler(10, np.random.default_rng(0)) is None
  blueprint = _rule_bot(SMALL)
  decision = sparta.monte_carlo_search(blueprint, game, (), 1, sampler,
                                       BUDGET, np.random.default_rng(0))
  assert decision.rollouts == 0
  assert decision.action == decision.blueprint_action


def test_lbs_over_the_exact_belief_with_full_rollouts_is_sparta():
  blueprint = _rule_bot(SMALL)
  engine = ENGINES[SMALL]
  rng = np.random.default_rng(4)
  deck = rng.permutation(SMALL.ordered_deck())
  state = engine.deal(jnp.asarray(deck)[None])
  game = beliefs.row(state)
  spartan = sparta.SpartaSearcher(blueprint, 1, game, BUDGET)
  learned = lbs.LbsSearcher(blueprint, 1, game, None,
                            lbs.Config(BUDGET, depth=None),
                            belief=sparta.ExactBelief(blueprint, 1, game))
  decisions = 0
  while not bool(game.terminated):
    if int(game.current_player) == 1:
      first = spartan.decide(game, (), np.random.default_rng(decisions))
      second = learned.decide(game, (), np.random.default_rng(decisions))
      assert first.action == second.action
      assert first.means == second.means
      action, decisions = first.action, decisions + 1
    else:
      action = int(blueprint.moves((), (), state)[0])
    state = engine.step(state, jnp.asarray([action], jnp.int32))
    after = beliefs.row(state)
    if not bool(after.terminated):
      spartan.observe(game, (), action, after)
      learned.observe(game, (), action, after)
    game = after
  assert decisions > 3


def test_truncated_rollouts_add_the_value_where_they_stop():
  blueprint = _rule_bot(SMALL)
  model = _model(SMALL)
  value, value_params = lbs.bootstrap(blueprint, model)
  engine = ENGINES[SMALL]
  rng = np.random.default_rng(5)
  states = engine.deal(jnp.asarray(np.stack(
      [rng.permutation(SMALL.ordered_deck()) for _ in range(8)])))
  first = blueprint.moves((), (), states)
  one = lbs._truncated_rollout(blueprint, 1, value)(  # pylint: disable=protected-access
      (), value_params, states, (), first)
  after = engine.step(states, first)
  expected = np.asarray(after.rewards[:, 0]) + np.asarray(
      value(value_params, (), after))
  np.testing.assert_allclose(np.asarray(one), expected, rtol=1e-5)
  # A few moves: the value of where they end as the moves observed it.
  three = lbs._truncated_rollout(blueprint, 3, value)(  # pylint: disable=protected-access
      (), value_params, states, (), first)
  scored, games = np.asarray(after.rewards[:, 0]), after
  for _ in range(2):
    games = engine.step(games, blueprint.moves((), (), games))
    scored = scored + np.asarray(games.rewards[:, 0])
  np.testing.assert_allclose(
      np.asarray(three), scored + np.asarray(value(value_params, (), games)),
      rtol=1e-5)
  # Rollouts longer than any game are the full ones.
  longest = lbs._truncated_rollout(  # pylint: disable=protected-access
      blueprint, belief_model.max_moves(SMALL) + 1, value)(
          (), value_params, states, (), first)
  full = sparta._rollout(blueprint)((), states, (), first)  # pylint: disable=protected-access
  np.testing.assert_allclose(np.asarray(longest), np.asarray(full))


def test_lbs_plays_legal_moves_with_truncated_rollouts():
  blueprint = _rule_bot(SMALL)
  model = _model(SMALL)
  deck = np.random.default_rng(6).permutation(SMALL.ordered_deck())
  for players in ([1], [0, 1]):
    result = sparta.play_game(blueprint, deck, lbs.lbs_start(
        blueprint, model, lbs.Config(BUDGET, depth=2), players), seed=0)
    assert 0 <= result.score <= SMALL.max_score
    assert result.searcher_moves > 0


def test_training_learns_and_resumes(tmp_path):
  blueprint = _rule_bot(TINY)
  log = belief_model.train(blueprint, "rules", CONFIG, str(tmp_path), 60,
                           eval_every=30, eval_games=32)
  assert len(log) == 2 and log[-1].updates >= 60
  resumed = belief_model.train(blueprint, "rules", CONFIG, str(tmp_path), 90,
                               eval_every=30, eval_games=32)
  assert len(resumed) == 3 and resumed[:2] == log
  assert resumed[-1].eval_cross_entropy < np.log(TINY.num_cards)
  model = belief_model.load(str(tmp_path / "belief.npz"))
  model.check(blueprint)
  assert model.has_value and model.blueprint_name == "rules"


def test_a_warm_started_run_goes_on_from_the_model(tmp_path):
  blueprint = _rule_bot(TINY)
  first = belief_model.train(blueprint, "rules", CONFIG, str(tmp_path / "a"),
                             60, eval_every=60, eval_games=32)
  model = belief_model.load(str(tmp_path / "a" / "belief.npz"))
  # Updates too small to matter: the run scores the model it started from.
  still = dataclasses.replace(CONFIG, learning_rate=1e-12)
  went_on = belief_model.train(blueprint, "rules", still, str(tmp_path / "b"),
                               70, eval_every=10, eval_games=32,
                               warm_start=model)
  assert went_on[0].eval_cross_entropy == pytest.approx(
      belief_model.held_out_cross_entropy(model, blueprint, games=32),
      abs=1e-4)
  # The counters go on from the model's (a collection's updates at a time).
  assert first[-1].updates + 10 <= went_on[0].updates < first[-1].updates + 20
  assert went_on[0].games > first[-1].games
  wider = dataclasses.replace(CONFIG, network=dataclasses.replace(
      NETWORK, lstm_size=48))
  with pytest.raises(ValueError, match="has the network"):
    belief_model.train(blueprint, "rules", wider, str(tmp_path / "c"), 10,
                       warm_start=model)


def test_a_model_of_another_blueprint_or_rules_is_refused():
  model = _model(SMALL)
  learned = learned_blueprint.LearnedBlueprint(
      ENGINES[SMALL], q_network.network(SMALL, q_network.NetworkConfig(
          (8,), 8, (8,))).init(jax.random.PRNGKey(0),
                               jnp.zeros((1, SMALL.observation_size))),
      q_network.NetworkConfig((8,), 8, (8,)))
  with pytest.raises(ValueError, match="trained on the games of the "
                     "blueprint 'rules'"):
    lbs.check_setup(learned, model, 4)
  six = engine_lib.Rules(**{**SMALL.parameters(), "hand_size": 3})
  with pytest.raises(ValueError, match="hand_size=3"):
    lbs.check_setup(blueprints.RuleBlueprint(engine_lib.HanabiEngine(six)),
                    model, 4)


def test_bad_lbs_settings_are_refused():
  with pytest.raises(ValueError, match="depth=0"):
    lbs.Config(depth=0)
  with pytest.raises(ValueError, match="min_acceptance=1.5"):
    lbs.Config(min_acceptance=1.5)
  no_value = _model(SMALL, network=belief_model.NetworkConfig((8,), 8, 8))
  with pytest.raises(ValueError, match="has no value network"):
    lbs.check_setup(_rule_bot(SMALL), no_value, 4)
  lbs.check_setup(_rule_bot(SMALL), no_value, None)  # Full rollouts: fine.
  with pytest.raises(ValueError, match="no belief model at"):
    belief_model.load("/nonexistent/belief.npz")



def test_a_run_resumes_only_with_the_belief_model_it_began_with(tmp_path):
  path, run_dir = tmp_path / "belief.npz", str(tmp_path / "run")
  path.write_bytes(b"the model a run began with")
  began = {"search": selfplay.search_spec("lbs", belief_model_path=str(path))}
  reporting.finished_records(run_dir, began, "games.jsonl")
  assert reporting.finished_records(run_dir, began, "games.jsonl") == []
  path.write_bytes(b"a better model shipped in its place")
  replaced = {"search": selfplay.search_spec("lbs",
                                             belief_model_path=str(path))}
  assert replaced != began
  with pytest.raises(ValueError, match="output of another run"):
    reporting.finished_records(run_dir, replaced, "games.jsonl")
  with pytest.raises(ValueError, match="no belief model at"):
    selfplay.search_spec("lbs", belief_model_path=str(tmp_path / "none"))


@pytest.mark.parametrize("explain", [True, False])
def test_a_run_record_says_whether_draws_explain_the_moves(explain):
  path = shipped.belief_model_path("small", "rules")
  spec = selfplay.search_spec("lbs", belief_model_path=path,
                              explain_moves=explain)
  assert spec["explain_moves"] is explain
  game = _positions(SMALL, 1)[0]
  searchers = selfplay.search_start(_rule_bot(SMALL), spec)(game)
  assert searchers[1].config.explain_moves is explain


SHIPPED_MODELS = sorted(
    name[:-len("_belief.npz")].rsplit("_", 1)[::-1] for name in os.listdir(
        shipped.WEIGHTS_DIR) if name.endswith("_belief.npz"))


@pytest.mark.parametrize("blueprint_name,preset", SHIPPED_MODELS)
def test_shipped_belief_models_load_and_score_as_trained(blueprint_name,
                                                         preset):
  model = belief_model.load(shipped.belief_model_path(preset, blueprint_name))
  blueprint = selfplay.blueprint(preset, blueprint_name)
  # The held-out games of the run (seed 0, the trainer's defaults).
  cross_entropy = belief_model.held_out_cross_entropy(model, blueprint)
  assert abs(cross_entropy - model.info["eval_cross_entropy"]) < 0.01
  assert cross_entropy < 0.8 * np.log(model.rules.num_cards)
