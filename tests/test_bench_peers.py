"""bench's --peers parsing: the spelling every bench accepts, and a typed error for a peer it does not know."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench._corpus import PEERS, BenchError, parse_peer_list  # noqa: E402


def test_none_asks_for_no_peer_as_in_the_layout_bench():
    assert parse_peer_list("none") == []
    assert parse_peer_list(" None ") == []


def test_names_are_canonical_and_kept_once_in_order():
    first, second = list(PEERS)[:2]
    assert parse_peer_list(f"{second.upper()}, {first},{second}") == [second, first]


def test_an_unknown_peer_is_a_bench_error_naming_the_choices():
    with pytest.raises(BenchError, match="unknown peer 'nosuch'.*ragprep"):
        parse_peer_list("nosuch")
