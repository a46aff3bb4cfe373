"""Painted straight path pieces (§8.5): what table rules and cell boxes are made of.

The interpreter records, beside the glyph table, the straight pieces of every
path it paints: positions only, in user space (CTM applied), no widths, colours
or dash patterns. This is the whole contract a second interpreter (the C core)
has to reproduce:

* path construction (§8.5.2, Table 59): ``m`` starts a subpath; ``l`` adds a
  LINE piece from the current point; ``re x y w h`` adds a RECT piece (and is
  a closed subpath of its own); ``c``, ``v``, ``y`` move the current point to
  the curve's end and add nothing; ``h`` closes the subpath with a LINE back to
  its start when the current point is elsewhere;
* painting (§8.5.3, Table 60): ``S``, ``s`` (stroke, ``s`` closes first), ``f``,
  ``F``, ``f*`` (fill), ``B``, ``B*``, ``b``, ``b*`` (both; ``b`` closes first)
  record the pieces of the current path with the paint they got (STROKE,
  FILL, or both); ``n`` (no paint, a clipping path's end) drops them;
* user space: the CTM at the painting operator maps both ends of a LINE; a
  RECT under a CTM without rotation or shear stays one RECT (its corners'
  extent), under any other CTM it becomes its four edges as LINE pieces;
* rows: one per piece, in painting order; LINE rows keep their two ends in
  order, RECT rows have x0 <= x1, y0 <= y1;
* limit: at most ``max_path_pieces`` rows per page (config
  ``max_path_pieces_per_page``); pieces past it are not recorded (a warning).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ragprep.extract.geometry import Matrix

LINE, RECT = 0, 1
STROKE, FILL = 1, 2



@dataclass(frozen=True)
class PathTable:
    """Straight painted pieces of a page, column-wise (module docstring)."""

    x0: np.ndarray  # float64
    y0: np.ndarray
    x1: np.ndarray
    y1: np.ndarray
    kind: np.ndarray  # uint8: LINE or RECT
    paint: np.ndarray  # uint8: STROKE | FILL bits

    def __len__(self) -> int:
        return len(self.kind)

    @classmethod
    def empty(cls) -> "PathTable":
        zero = np.zeros(0, dtype=np.float64)
        return cls(zero, zero, zero, zero, np.zeros(0, dtype=np.uint8), np.zeros(0, dtype=np.uint8))


def _apply(m: Matrix, x: float, y: float) -> tuple[float, float]:
    return (x * m[0] + y * m[2] + m[4], x * m[1] + y * m[3] + m[5])


class PathRecorder:
    """The current path and the painted pieces of one page."""

    def __init__(self, max_pieces: int) -> None:
        self._max = max_pieces
        self._path: list[tuple[int, float, float, float, float]] = []  # (kind, x0, y0, x1, y1), unmapped
        self._rows: list[tuple[float, float, float, float, int, int]] = []
        self._current: tuple[float, float] | None = None
        self._start: tuple[float, float] | None = None
        self.overflow = False

    # -- construction (§8.5.2) -------------------------------------------------

    def move(self, x: float, y: float) -> None:
        self._current = self._start = (x, y)

    def line(self, x: float, y: float) -> None:
        if self._current is not None:
            self._path.append((LINE, *self._current, x, y))
        self._current = (x, y)

    def curve(self, x: float, y: float) -> None:
        self._current = (x, y)

    def close(self) -> None:
        if self._current is not None and self._start is not None and self._current != self._start:
            self._path.append((LINE, *self._current, *self._start))
        self._current = self._start

    def rect(self, x: float, y: float, w: float, h: float) -> None:
        self._path.append((RECT, x, y, x + w, y + h))
        self._current = self._start = (x, y)

    # -- painting (§8.5.3) -----------------------------------------------------

    def paint(self, ctm: Matrix, paint: int, close: bool = False) -> None:
        if close:
            self.close()
        upright = ctm[1] == 0 and ctm[2] == 0
        for kind, x0, y0, x1, y1 in self._path:
            if kind == LINE:
                self._add(*_apply(ctm, x0, y0), *_apply(ctm, x1, y1), LINE, paint)
            elif upright:
                (ax, ay), (bx, by) = _apply(ctm, x0, y0), _apply(ctm, x1, y1)
                self._add(min(ax, bx), min(ay, by), max(ax, bx), max(ay, by), RECT, paint)
            else:
                corners = [_apply(ctm, x0, y0), _apply(ctm, x1, y0), _apply(ctm, x1, y1), _apply(ctm, x0, y1)]
                for (ax, ay), (bx, by) in zip(corners, corners[1:] + corners[:1], strict=True):
                    self._add(ax, ay, bx, by, LINE, paint)
        self.discard()

    def discard(self) -> None:
        self._path = []
        self._current = self._start = None

    def _add(self, x0: float, y0: float, x1: float, y1: float, kind: int, paint: int) -> None:
        if len(self._rows) >= self._max:
            self.overflow = True
            return
        self._rows.append((x0, y0, x1, y1, kind, paint))

    def finish(self) -> PathTable:
        if not self._rows:
            return PathTable.empty()
        columns = np.array(self._rows, dtype=np.float64).T
        return PathTable(
            columns[0], columns[1], columns[2], columns[3], columns[4].astype(np.uint8), columns[5].astype(np.uint8)
        )
