"""A sweep of hostile arguments over the compiled kernels (issue 13):
core_fuzz.py --target sweep runs it in the sanitizer builds of all three
extensions (with kernel_fuzz's).

kernel_fuzz.py's hostile drawer changes one argument of three calls at
random; this sweep changes every one, in turn. The kernel fuzz drawers (all
but the document and hostile ones) are drawn --draws times each (seeded by
--seed) with every compiled call recorded (kernel_fuzz._Recorder), two calls
of each kernel kept; then each argument of each call, and each item of a
tuple argument (a rule's thresholds), is replaced by each of VARIANTS of its
kind (_variants: an array cut, emptied, lengthened, of another dtype,
strided, flattened, with an index of -1, n, 2**31 or 2**62; an int of -1,
0, +-1, 2**31, 2**62, 2**63 - 1; a float NaN, infinite, 1e308) and the
kernel called. Any answer or exception is the kernel's; a sanitizer report
aborts the process, and --crash-file names the kernel, the argument and the
value. Sizes past what a page needs are asked of the allocator: core_fuzz
caps one allocation and the resident size (ASAN_OPTIONS) so that a count of
2**31 is a MemoryError, not 16 GB written.

What it found (session 25, its first runs, as a script: the same cases),
each mended with a regression in kernel_fuzz.REGRESSIONS: _layout.emit's
glyph count x 8 wrapping (positions written past a buffer of a few bytes),
cell_disorder's unit count x 8 wrapping (a heap overflow through
reads_columns), heading rule max_value NaN cast to int64, leaf_front's and
margin_note's limit arithmetic overflowing, _core.on_one_page's table count
+ 1 overflowing. Sweeps then: _core's 19 kernels (3,056 calls) and the
layout drawers' 62 kernels (1,469 calls from reads_columns on, after the
first half's findings), clean on main d323ddc's builds.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from campaign import Campaign

Case = tuple[str, Callable[..., Any], tuple[Any, ...]]  # (label, kernel, arguments)

_INTS = (-1, 0, 1, -(2**62), 2**31, 2**62, 2**63 - 1)
_FLOATS = (float("nan"), float("inf"), -float("inf"), 0.0, -1.0, 1e308)
_INDICES = (-1, 2**31, 2**62, -(2**62))


def _recorded(rng: random.Random, draws: int) -> dict[str, list[tuple[Callable[..., Any], tuple[Any, ...]]]]:
    """Per kernel (its name), up to two calls the drawers made: (function, arguments)."""
    import kernel_fuzz
    from ragprep.extract import native

    calls: list[tuple[Callable[..., Any], tuple[Any, ...]]] = []
    saved = native._core, native._grids, native._layout
    native._core, native._grids, native._layout = (kernel_fuzz._Recorder(module, calls) for module in saved)
    try:
        for name in sorted(set(kernel_fuzz.KERNELS) - {"document", "hostile"}):
            for _ in range(draws):
                for _, call in kernel_fuzz.KERNELS[name](rng):
                    with contextlib.suppress(Exception):  # a refused input's calls so far are recorded
                        call(native._layout)
    finally:
        native._core, native._grids, native._layout = saved
    kept: dict[str, list[tuple[Callable[..., Any], tuple[Any, ...]]]] = {}
    for function, args in calls:
        if len(kept.setdefault(function.__name__, [])) < 2:
            kept[function.__name__].append((function, args))
    return kept


def _array_variants(value: np.ndarray) -> list[Any]:
    out: list[Any] = [
        value[: len(value) // 2],
        value[:0],
        np.concatenate([value, value[:1]]) if len(value) else np.zeros(3, value.dtype),
    ]
    if value.dtype.kind != "O":
        out += [value.astype(np.int32), value.astype(np.float32), value.astype(object)]
    if value.ndim == 1 and len(value) > 1:
        out.append(np.repeat(value, 2)[::2])  # the same items, not contiguous
    if value.ndim > 1:
        out.append(value.reshape(-1))
    if value.size and value.dtype.kind in "iu":
        held = np.iinfo(value.dtype)
        for bad in (*_INDICES, len(value)):
            for at in (0, -1):
                changed = value.copy()
                changed.reshape(-1)[at] = max(held.min, min(held.max, bad))
                out.append(changed)
    if value.size and value.dtype.kind == "f":
        for bad in _FLOATS[:3]:
            changed = value.copy()
            changed.reshape(-1)[0] = bad
            out.append(changed)
    return out


def _variants(value: Any) -> list[Any]:
    """`value` changed as no caller passes it, each way of its kind."""
    if isinstance(value, np.ndarray):
        return _array_variants(value)
    if isinstance(value, bool):
        return [None, 2]
    if isinstance(value, int):
        return [value + 1, value - 1, *_INTS]
    if isinstance(value, float):
        return list(_FLOATS)
    if type(value) in (list, tuple):
        return [type(value)(value[: len(value) // 2]), None, *([type(value)([*value, value[-1]])] if value else [])]
    if isinstance(value, bytes | bytearray | str):
        return [value[: len(value) // 2], value * 3, value[:0]]
    if isinstance(value, dict):
        return [{}, {**value, "x": None}]
    return [None, 0]


def _cases(kept: dict[str, list[tuple[Callable[..., Any], tuple[Any, ...]]]]) -> Iterator[Case]:
    """Every call changed in one argument, or in one item of a tuple argument, each way."""
    for name, recorded in sorted(kept.items()):
        for function, args in recorded:
            for at, value in enumerate(args):
                items = list(enumerate(value)) if type(value) is tuple and len(value) <= 12 else []
                for item, part in [(None, value), *items]:
                    for bad in _variants(part):
                        changed = bad if item is None else (*value[:item], bad, *value[item + 1 :])
                        label = f"{name} argument {at} item {item}: {type(bad).__name__} {getattr(bad, 'dtype', '')} {getattr(bad, 'shape', '')} {bad if isinstance(bad, int | float) else ''}"
                        yield label, function, (*args[:at], changed, *args[at + 1 :])


def run(args: argparse.Namespace) -> int:
    from ragprep.extract import native

    if native._core is None or native._layout is None or native._grids is None:
        print("the compiled extensions are not all built")
        return 2
    warnings.simplefilter("ignore", RuntimeWarning)
    kept = _recorded(random.Random(args.seed), args.draws)
    campaign = Campaign(args.seconds, args.report)
    crash_file, made = Path(args.crash_file), 0
    for label, function, changed in _cases(kept):
        if not campaign.running(calls=made):
            break
        crash_file.write_text(f"--seed {args.seed}: {label}\n", encoding="utf-8")
        with contextlib.suppress(Exception):  # an answer or a refusal: the kernel's
            function(*changed)
        made += 1
    crash_file.unlink(missing_ok=True)
    print(f"kernels: {len(kept)}  runs: {made}  cpu seconds: {campaign.cpu:.0f}  findings: 0")  # runs: calls made
    return 0
