"""Renamed names move the continuation lines aligned after them
(`open_spiel_ext/upstream/alignment.py`)."""

from open_spiel_ext.upstream import alignment


def test_continuation_lines_follow_their_bracket():
  text = ('x = helper.call("a",\n'
          '                "b")\n'
          'y = [f(1),\n'
          '     2]')
  renamed = alignment.realigned(text, [(1, 4, 15, "call"), (3, 5, 6, "gg")])
  assert renamed == ('x = call("a",\n'
                     '         "b")\n'
                     'y = [gg(1),\n'
                     '     2]')
