"""CayleyPy's cube recipe and beam search on our 3×3×3 cube states.

CayleyPy (`cayleypy` 0.2.0 on PyPI, torch; not a dependency of the plugin,
install it beside it) is the library of the CayleyPy papers (Chervov et al.,
"A Machine Learning Approach That Beats Large Rubik's Cubes", 2025): a network
regresses the length of non-backtracking random walks from the solved cube
and a beam search keeps the states it scores lowest. This module runs that
recipe on the 3×3×3 cube in the quarter-turn metric through CayleyPy's public
API and solves OUR cube states with it:

  train(minutes, output_dir, seed) -> weights path
  load(path) -> Solver
  solve(solver, state, beam_width, max_steps) -> {"actions", "nodes_expanded",
      "seconds", ...}, the actions ours and replayed in our game

What is CayleyPy's and what is ours. CayleyPy 0.2.0 ships the graph
(`Puzzles.rubik_cube(3, "QTM")`, 12 generators), the training data
(`CayleyGraph.random_walks(mode="nbt")`), the model (`ModelConfig`,
`ResMlpModel`), the loss (`MseLoss`), checkpoints (`save_checkpoint`,
`load_checkpoint`), the scorer (`Predictor`) and the search
(`CayleyGraph.beam_search`, with the path restored). It has no training loop
and no model config for the cube (its pretrained models are LRX ones only),
so `train` is the few lines that call those pieces in a loop: Adam, one
optimiser step per minibatch of random-walk states.

The recipe (the papers' 3×3×3 settings, `RECIPE`): walks up to 26 quarter
turns (the cube's diameter in that metric), MSE on the walk length, Adam at
1e-3, minibatches of 10,000 states, a residual MLP of hidden sizes 1024 and
256 and one residual block of 256 (CayleyPy's "RESMLP" with layers
[1024, 256, 256]: its first two blocks change width and so have no skip,
the third is the residual block; CayleyPy's blocks use LayerNorm where the
papers' own code used BatchNorm). The walks are CayleyPy's "nbt" ones: 10,000
walks in step, each state chosen among the children of the last layer that
none of the walks met in the last 2 layers (depth 2 is the least that bars
stepping straight back), labelled with the number of steps taken.

The state mapping: CayleyPy's cube is 54 stickers too, faces in the order
U F R B L D with each face's own layout, colour k the colour of its face k;
its generators are f0 f0' f2 f2' r0 r0' r2 r2' d0 d0' d2 d2' (layer 0 or 2
along an axis, and the inverse). `move_map()` and `sticker_map()` are
computed, not typed: a sticker is named by the face it lies on and the faces
whose turns move it (none for a centre, its cubie's faces otherwise), and
among the 720 ways of matching our 6 faces to their 6 face blocks the first
that turns each of our 12 move permutations into one of their 12 generators
(exactly, on all 54 stickers) is kept, trying first the one that matches
face letters. That one fits: our U U' D D' L L' R R' B B' F F' are their
d2' d2 d0 d0' r2' r2 r0 r0' f2' f2 f0 f0' (their f0, r0, d0 turn F, R, D
clockwise and f2, r2, d2 turn B, L, U the same way about the same axes,
i.e. anticlockwise seen from outside). `to_cayleypy(state)` is then a
relabelling of stickers and colours, and a path in their graph is a path in
ours.

`cayleypy_baseline.py` trains and measures it from the command line;
`learned_puzzle_solvers.py` sets it beside our solvers.
"""

import dataclasses
import functools
import hashlib
from importlib import metadata
import itertools
import json
import os
import time
from typing import Any, Optional, Sequence

import cayleypy
import numpy as np
import torch

from open_spiel_ext.games.puzzles import rubiks_cube

SIZE = 3
METRIC = "QTM"
NUM_MOVES = rubiks_cube.NUM_MOVES
# Their face blocks, in the order of cayleypy/puzzles/cube.py's state.
THEIR_FACES = "UFRBLD"
# The papers' 3×3×3 recipe; a saved model is reused only under the same one.
RECIPE = {
    "model_type": "RESMLP",
    "layers_sizes": [1024, 256, 256],
    "walk_length": 26,  # Longest walk; CayleyPy's `length` is one more.
    "walk_mode": "nbt",
    "nbt_history_depth": 2,
    "walks_per_round": 10_000,
    "batch_size": 10_000,
    "learning_rate": 1e-3,
    "loss": "mse",
    "optimizer": "adam",
    "threads": 1,
}
_PROGRESS_SECONDS = 30.0
_WEIGHTS_NAME = "cayleypy_cube3_qtm"


def graph_definition() -> cayleypy.CayleyGraphDef:
  """CayleyPy's 3×3×3 cube in the quarter-turn metric (12 generators)."""
  return cayleypy.Puzzles.rubik_cube(SIZE, METRIC)


def _turned_faces(permutations: np.ndarray) -> list[int]:
  """The face block (of 9 stickers) each permutation turns: the one it maps
  into itself and does not leave as it is."""
  faces = []
  for permutation in permutations:
    turned = [face for face in range(6)
              if (permutation[9 * face:9 * face + 9] // 9 == face).all()
              and (permutation[9 * face:9 * face + 9] !=
                   np.arange(9 * face, 9 * face + 9)).any()]
    if len(turned) != 1:
      raise RuntimeError(f"a cube move turns faces {turned}, not one face")
    faces.append(turned[0])
  return faces


def _sticker_names(permutations: np.ndarray) -> list[tuple[int, frozenset]]:
  """Each sticker as (its face, the faces whose turns move it)."""
  turned = _turned_faces(permutations)
  return [(sticker // 9, frozenset(
      turned[move] for move in range(len(permutations))
      if permutations[move][sticker] != sticker)) for sticker in range(54)]


@functools.lru_cache(maxsize=None)
def _mapping() -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
  """(face map, sticker map, move map): see `sticker_map` and `move_map`."""
  ours = rubiks_cube.move_permutations(SIZE)
  theirs = np.array(graph_definition().generators_permutations)
  our_names = _sticker_names(ours)
  their_index = {name: i for i, name in enumerate(_sticker_names(theirs))}
  their_moves = {tuple(perm): g for g, perm in enumerate(theirs.tolist())}
  by_letter = tuple(THEIR_FACES.index(f) for f in rubiks_cube.FACES)
  candidates = [by_letter] + list(itertools.permutations(range(6)))
  for faces in candidates:
    try:
      stickers = np.array([their_index[(faces[face], frozenset(
          faces[f] for f in turned))] for face, turned in our_names])
    except KeyError:  # Not a map of neighbouring faces to neighbours.
      continue
    # Our move p (new = old[p]) as theirs: q[stickers[i]] = stickers[p[i]].
    moves = []
    for permutation in ours:
      their = np.empty(54, np.int64)
      their[stickers] = stickers[permutation]
      moves.append(their_moves.get(tuple(their.tolist())))
    if None not in moves and len(set(moves)) == NUM_MOVES:
      return tuple(faces), tuple(stickers.tolist()), tuple(moves)
  raise RuntimeError("no match of our cube moves to CayleyPy's")


def sticker_map() -> np.ndarray:
  """[54]: our sticker i is their sticker `sticker_map()[i]`."""
  return np.array(_mapping()[1])


def colour_map() -> np.ndarray:
  """[6]: our colour k (the colour of our face k) is their colour
  `colour_map()[k]` (the colour of their face block of the same face)."""
  return np.array(_mapping()[0])


def move_map() -> np.ndarray:
  """[12]: our action a is CayleyPy's generator `move_map()[a]`."""
  return np.array(_mapping()[2])


def from_cayleypy_moves(path: Sequence[int]) -> list[int]:
  """CayleyPy generator indices -> our actions."""
  ours = np.argsort(move_map())
  return [int(ours[g]) for g in path]


def to_cayleypy(state: np.ndarray) -> np.ndarray:
  """Our [54] sticker colours -> CayleyPy's state of the same cube, [54]
  int64: their sticker `sticker_map()[i]` shows their colour of our colour
  `state[i]`. Our solved cube becomes their central state, and our action a
  followed by conversion is conversion followed by their generator
  `move_map()[a]`."""
  state = np.asarray(state)
  if state.shape != (54,):
    raise ValueError(f"a 3x3x3 cube state is [54] colours, got {state.shape}")
  theirs = np.empty(54, np.int64)
  theirs[sticker_map()] = colour_map()[state]
  return theirs


def _record_paths(output_dir: str, seed: int) -> tuple[str, str, str, dict]:
  """(weights, optimizer state, JSON record) paths and the settings they are
  trained under."""
  settings = dict(RECIPE, seed=seed, graph=f"cube_{SIZE}_{METRIC}")
  digest = hashlib.sha256(json.dumps(settings, sort_keys=True).encode()
                          ).hexdigest()[:10]
  stem = os.path.join(output_dir, f"{_WEIGHTS_NAME}_{digest}")
  return f"{stem}.pt", f"{stem}_optimizer.pt", f"{stem}.json", settings


def model_config() -> cayleypy.ModelConfig:
  """The value network of `RECIPE` as a CayleyPy model config."""
  return cayleypy.ModelConfig(model_type=RECIPE["model_type"], input_size=54,
                              num_classes_for_one_hot=6,
                              layers_sizes=list(RECIPE["layers_sizes"]))


def write_json(path: str, record: dict[str, Any]) -> None:
  with open(path + ".tmp", "w", encoding="utf-8") as f:
    json.dump(record, f, indent=1)
  os.replace(path + ".tmp", path)


def train(minutes: float, output_dir: str, seed: int = 0) -> str:
  """Trains CayleyPy's value network on the cube for `minutes` of wall time
  on one CPU thread (the module docstring has the recipe); returns the
  weights path (a CayleyPy checkpoint: the torch state dict and the model
  config, with the graph's hash), beside it a JSON record of the settings,
  iterations, examples seen and seconds.

  A model of the same settings already trained for `minutes` or more is
  returned as it is; one trained for fewer is trained on from its weights
  and Adam state for the difference (the walks are new ones: the random
  generator is reseeded from the seed and the iterations done).
  """
  weights, optimizer_path, record_path, settings = _record_paths(
      output_dir, seed)
  os.makedirs(output_dir, exist_ok=True)
  record = None
  if os.path.exists(record_path) and os.path.exists(weights):
    with open(record_path, encoding="utf-8") as f:
      record = json.load(f)
    if record["settings"] != settings:
      record = None
    elif record["minutes"] >= minutes:
      print(f"[cayleypy] reusing {weights}: trained {record['minutes']} "
            f"minutes, {record['examples_seen']} examples", flush=True)
      return weights
  threads = torch.get_num_threads()
  torch.set_num_threads(RECIPE["threads"])
  try:
    return _train(minutes, weights, optimizer_path, record_path, settings,
                  record)
  finally:
    torch.set_num_threads(threads)


def _train(minutes: float, weights: str, optimizer_path: str,
           record_path: str, settings: dict[str, Any],
           record: Optional[dict[str, Any]]) -> str:
  """`train` after the reuse check, on one thread."""
  definition = graph_definition()
  config = model_config()
  done_iterations = record["iterations"] if record else 0
  torch.manual_seed(settings["seed"] * 1_000_003 + done_iterations)
  graph = cayleypy.CayleyGraph(definition, device="cpu",
                               random_seed=settings["seed"])
  if record:
    model, _ = cayleypy.load_checkpoint(weights, graph_def=definition)
    print(f"[cayleypy] training on from {weights}: {record['minutes']} -> "
          f"{minutes} minutes", flush=True)
  else:
    model = config.build_model()
  model.train()
  optimizer = torch.optim.Adam(model.parameters(),
                               lr=RECIPE["learning_rate"])
  if record and os.path.exists(optimizer_path):
    optimizer.load_state_dict(torch.load(optimizer_path, weights_only=True))
  loss_fn = cayleypy.MseLoss()
  budget = (minutes - (record["minutes"] if record else 0.0)) * 60.0
  iterations = examples = 0
  data_seconds = 0.0
  losses: list[float] = []
  began = last_print = time.perf_counter()
  while time.perf_counter() - began < budget:
    generated = time.perf_counter()
    states, lengths = graph.random_walks(
        width=RECIPE["walks_per_round"], length=RECIPE["walk_length"] + 1,
        mode=RECIPE["walk_mode"],
        nbt_history_depth=RECIPE["nbt_history_depth"])
    order = torch.randperm(len(states))
    states, lengths = states[order], lengths[order].float()
    data_seconds += time.perf_counter() - generated
    for start in range(0, len(states), RECIPE["batch_size"]):
      batch = slice(start, start + RECIPE["batch_size"])
      loss = loss_fn(model(states[batch]), lengths[batch])
      optimizer.zero_grad()
      loss.backward()
      optimizer.step()
      iterations += 1
      examples += len(states[batch])
      losses.append(float(loss.detach()))
      now = time.perf_counter()
      if now - last_print >= _PROGRESS_SECONDS:
        last_print = now
        print(f"[cayleypy] {now - began:.0f}/{budget:.0f} s, {iterations} "
              f"iterations, {examples} examples "
              f"({examples / (now - began):.0f}/s), loss "
              f"{np.mean(losses[-20:]):.3f}", flush=True)
      if now - began >= budget:
        break
  seconds = time.perf_counter() - began
  model.eval()
  cayleypy.save_checkpoint(weights, model, config, graph_def=definition)
  torch.save(optimizer.state_dict(), optimizer_path)
  previous = record or {"iterations": 0, "examples_seen": 0,
                        "training_seconds": 0.0, "data_seconds": 0.0,
                        "sessions": []}
  total_seconds = previous["training_seconds"] + seconds
  total_examples = previous["examples_seen"] + examples
  new_record = {
      "settings": settings,
      "minutes": minutes,
      "iterations": previous["iterations"] + iterations,
      "examples_seen": total_examples,
      "training_seconds": total_seconds,
      "data_seconds": previous["data_seconds"] + data_seconds,
      "examples_per_second": total_examples / max(total_seconds, 1e-9),
      "final_loss": float(np.mean(losses[-20:])) if losses else None,
      "sessions": previous["sessions"] + [{
          "minutes": minutes, "iterations": iterations,
          "examples": examples, "seconds": seconds}],
      "weights": os.path.basename(weights),
      "model_config": model_config().to_dict(),
      "versions": {"cayleypy": metadata.version("cayleypy"),
                   "torch": torch.__version__},
  }
  write_json(record_path, new_record)
  print(f"[cayleypy] trained {iterations} iterations, {examples} examples in "
        f"{seconds:.0f} s ({examples / max(seconds, 1e-9):.0f} examples/s, "
        f"{data_seconds:.1f} s making walks), loss "
        f"{new_record['final_loss']}; wrote {weights}", flush=True)
  return weights


class _CountingGraph(cayleypy.CayleyGraph):
  """A CayleyGraph that counts the states whose neighbours it generates
  (what beam search expands: `get_neighbors` of each layer)."""

  expanded = 0
  expansions = 0

  def get_neighbors(self, states: torch.Tensor) -> torch.Tensor:
    self.expanded += int(states.shape[0])
    self.expansions += 1
    return super().get_neighbors(states)


@dataclasses.dataclass
class Solver:
  """A trained CayleyPy model and the graph its beam search runs on."""
  model: torch.nn.Module
  graph: _CountingGraph
  predictor: cayleypy.Predictor
  path: str
  record: Optional[dict[str, Any]]
  network_states: int = 0


def load(path: str) -> Solver:
  """The checkpoint `train` wrote (and its JSON record, if beside it)."""
  definition = graph_definition()
  model, _ = cayleypy.load_checkpoint(path, graph_def=definition)
  graph = _CountingGraph(definition, device="cpu")
  solver = Solver(model, graph, cayleypy.Predictor(graph, model), path,
                  None)

  def count(_, inputs, __):
    solver.network_states += int(inputs[0].shape[0])

  model.register_forward_hook(count)
  record_path = os.path.splitext(path)[0] + ".json"
  if os.path.exists(record_path):
    with open(record_path, encoding="utf-8") as f:
      solver.record = json.load(f)
  return solver


def solve(solver: Solver, state: np.ndarray, beam_width: int,
          max_steps: int = 100) -> dict[str, Any]:
  """CayleyPy's beam search ("simple" mode, path restored) from our cube
  `state` with the trained model.

  Returns {"actions": our actions to the goal, or None if none was found in
  `max_steps` layers; "nodes_expanded": the states whose 12 children were
  generated (the beam of each layer: 1, then up to 12, ..., then
  `beam_width` each layer, so at most beam_width × layers); "children":
  12 × that; "network_states": states the model scored (the deduplicated
  children of a layer, once they are `beam_width` or more); "steps": layers
  expanded; "seconds": wall time of the search}. The actions are replayed
  in our game and must reach its goal (RuntimeError if not).
  """
  state = np.asarray(state, np.int8)
  rubiks_cube.check_real_cube(state, SIZE)
  graph = solver.graph
  graph.expanded = graph.expansions = solver.network_states = 0
  began = time.perf_counter()
  result = graph.beam_search(
      start_state=to_cayleypy(state), beam_mode="simple",
      predictor=solver.predictor, beam_width=beam_width,
      max_steps=max_steps, return_path=True)
  seconds = time.perf_counter() - began
  actions = None
  if result.path_found:
    actions = from_cayleypy_moves(result.path)
    game = rubiks_cube.RubiksCube(SIZE)
    replayed = state
    for action in actions:
      replayed = game.next_state(replayed, action)
    if not game.is_goal(replayed):
      raise RuntimeError(f"CayleyPy's path {result.path} (ours {actions}) "
                         "does not solve the cube in our game")
  return {"actions": actions, "nodes_expanded": graph.expanded,
          "children": NUM_MOVES * graph.expanded,
          "network_states": solver.network_states,
          "steps": graph.expansions, "seconds": seconds}
