"""Replacing names in source text, continuation lines moved along.

Where the bundle renames a name (`helper.check` becomes `check`), a line
continued inside brackets was aligned with the opening bracket; `realigned`
moves such lines by what the replacements before the bracket added or
removed, so the exported code keeps OpenSpiel's layout.
"""

import collections
import io
import tokenize


def char_column(line: str, byte_column: int) -> int:
  """The column in characters of `byte_column`, a column in UTF-8 bytes
  (as `ast` gives them)."""
  return len(line.encode("utf-8")[:byte_column].decode("utf-8"))


def realigned(text: str,
              replacements: list[tuple[int, int, int, str]]) -> str:
  """`text` with (row, start, end, new) replacements (1-based rows, columns
  in characters, one row each), continuation lines that were aligned with an
  opening bracket moved with it."""
  lines = text.split("\n")
  opener = {}  # Row -> the innermost bracket open at its start.
  in_string = set()
  stack, next_row = [], 1
  for token in tokenize.generate_tokens(io.StringIO(text + "\n").readline):
    while next_row <= token.start[0]:
      opener[next_row] = stack[-1] if stack else None
      next_row += 1
    if token.type == tokenize.OP and token.string in "([{":
      stack.append(token.start)
    elif token.type == tokenize.OP and token.string in ")]}":
      stack.pop()
    if token.end[0] > token.start[0]:
      in_string.update(range(token.start[0] + 1, token.end[0] + 1))
      next_row = max(next_row, token.end[0] + 1)
  by_row = collections.defaultdict(list)
  for row, start, end, new in replacements:
    by_row[row].append((start, end, new))
  shifts = {}  # Row -> (indent shift, [(end column, growth)]).

  def new_column(row: int, column: int) -> int:
    indent, growths = shifts[row]
    return column + indent + sum(g for end, g in growths if end <= column)

  result = []
  for row, line in enumerate(lines, 1):
    indent = 0
    bracket = opener.get(row)
    old_indent = len(line) - len(line.lstrip(" "))
    if (bracket and row not in in_string and line.strip() and
        old_indent == bracket[1] + 1 and bracket[0] in shifts):
      indent = max(new_column(*bracket) + 1, 0) - old_indent
    growths = []
    pieces, last = [], 0
    for start, end, new in sorted(by_row[row]):
      pieces += [line[last:start], new]
      last = end
      growths.append((end, len(new) - (end - start)))
    line = "".join(pieces) + line[last:]
    shifts[row] = (indent, growths)
    result.append(" " * (old_indent + indent) + line[old_indent:]
                  if indent else line)
  return "\n".join(result)
