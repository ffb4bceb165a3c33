"""Solvable Sokoban levels by reverse play, as in Boxoban's generator.

1. Carve a room: a walled rows×cols board whose floor is a random walk
   (turning with some probability, sometimes widening to a neighbour) until
   a share of the interior is floor.
2. Put the boxes on random floor cells, which become the goals, and the
   player on another.
3. Play backwards (`sokoban.pulls`): random steps and pulls, pulls preferred
   half of the time. Reverse play keeps the level solvable: the moves that
   undo it are a solution of at most that many moves.
4. Keep the position met on the way that leaves every box off the goals with
   the largest sum of distances from boxes to their nearest goals; reject
   the room when no position leaves every box off, or the sum is small.
"""

import numpy as np

from open_spiel_ext.games.puzzles import sokoban


def _carve_room(rng: np.random.RandomState, rows: int, cols: int,
                floor_share: float) -> np.ndarray:
  """[rows, cols] bool floor mask inside a wall border."""
  floor = np.zeros((rows, cols), bool)
  target = int(floor_share * (rows - 2) * (cols - 2))
  row, col = rng.randint(1, rows - 1), rng.randint(1, cols - 1)
  direction = rng.randint(4)
  steps = ((-1, 0), (1, 0), (0, -1), (0, 1))
  while floor.sum() < target:
    floor[row, col] = True
    if rng.rand() < 0.3:  # Widen: a room, not only corridors.
      d_row, d_col = steps[rng.randint(4)]
      if 1 <= row + d_row < rows - 1 and 1 <= col + d_col < cols - 1:
        floor[row + d_row, col + d_col] = True
    if rng.rand() < 0.35:
      direction = rng.randint(4)
    d_row, d_col = steps[direction]
    if 1 <= row + d_row < rows - 1 and 1 <= col + d_col < cols - 1:
      row, col = row + d_row, col + d_col
  return floor


def _box_distance(state: np.ndarray, cols: int) -> tuple[int, int]:
  """(boxes off goals, Σ Manhattan distance of each box to its nearest goal)."""
  boxes = np.flatnonzero(state & sokoban.BOX)
  goals = np.flatnonzero(state & sokoban.GOAL)
  box_rc = np.stack(np.divmod(boxes, cols), axis=1)
  goal_rc = np.stack(np.divmod(goals, cols), axis=1)
  distances = np.abs(box_rc[:, None] - goal_rc[None]).sum(axis=2).min(axis=1)
  return int((distances > 0).sum()), int(distances.sum())


def _reverse_play(rng: np.random.RandomState, state: np.ndarray, cols: int,
                  steps: int) -> tuple[np.ndarray, int]:
  """The best position met in `steps` random reverse moves, and its score."""
  boxes = int(((state & sokoban.BOX) != 0).sum())
  best, best_score = None, 0
  for _ in range(steps):
    children, legal = sokoban.pulls(np, state[None], cols)
    legal = legal[0]
    pull_actions = np.flatnonzero(legal[4:]) + 4
    if pull_actions.size and rng.rand() < 0.5:
      action = rng.choice(pull_actions)
    elif legal.any():
      action = rng.choice(np.flatnonzero(legal))
    else:
      break
    state = children[0, action]
    off, distance = _box_distance(state, cols)
    if off == boxes and distance > best_score:
      best, best_score = state, distance
  return best, best_score


FLOOR_SHARE = 0.55  # Of the interior, carved as floor.
MAX_ROOMS = 10_000  # Rooms tried for one level before giving up.


def generate_level(rng: np.random.RandomState,
                   rows: int = 10,
                   cols: int = 10,
                   boxes: int = 4,
                   reverse_steps: int = 300,
                   min_distance: int = 6) -> str:
  """One solvable level in the notation (rows joined by `/`).

  Raises:
    ValueError: the board cannot hold the boxes, or MAX_ROOMS rooms gave no
      level whose boxes lie `min_distance` from the goals.
  """
  floor_cells = int(FLOOR_SHARE * (rows - 2) * (cols - 2))
  if rows < 4 or cols < 4 or boxes < 1 or 2 * boxes + 4 > floor_cells + 1:
    raise ValueError(
        f"need rows, cols >= 4, boxes >= 1 and room on the floor for the boxes"
        f" (2·boxes + 4 <= about {FLOOR_SHARE}·(rows − 2)·(cols − 2) cells), "
        f"got rows={rows}, cols={cols}, boxes={boxes}")
  for _ in range(MAX_ROOMS):
    floor = _carve_room(rng, rows, cols, floor_share=FLOOR_SHARE)
    cells = np.flatnonzero(floor)
    if len(cells) < 2 * boxes + 4:
      continue
    chosen = rng.choice(cells, boxes + 1, replace=False)
    board = np.where(floor.ravel(), 0, sokoban.WALL).astype(np.int8)
    board[chosen[:boxes]] = sokoban.BOX | sokoban.GOAL
    board[chosen[boxes]] |= sokoban.PLAYER
    level, score = _reverse_play(rng, board, cols, reverse_steps)
    if level is not None and score >= min_distance:
      return sokoban.level_string(level.reshape(rows, cols))
  raise ValueError(
      f"no level with boxes {min_distance} moves from their goals in "
      f"{MAX_ROOMS} rooms of {rows}x{cols} with {boxes} boxes: try a larger "
      "board, fewer boxes or more reverse steps")


def generate_levels(count: int, seed: int, **kwargs) -> list[str]:
  """`count` levels from one seed (`generate_level`'s keyword arguments)."""
  rng = np.random.RandomState(seed)
  return [generate_level(rng, **kwargs) for _ in range(count)]


def format_levels(levels: list[str]) -> str:
  """Levels as a Boxoban file: "; n", the rows, a blank line."""
  return "".join(f"; {index}\n" + level.replace("/", "\n") + "\n\n"
                 for index, level in enumerate(levels))
