"""chunk.tokenizer: chunks sized in an embedding model's own word pieces, so they
fit its window (all-MiniLM-L6-v2 reads 256, special tokens included)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from chunkdocs import B, check_slices, doc
from transformers import AutoTokenizer

from ragprep.chunk import ChunkConfig, Tokenizer, chunk_document, config_hash, model_folder
from ragprep.extract.errors import ConfigError

MODEL = "sentence-transformers:all-MiniLM-L6-v2"
DOC_ID = hashlib.sha256(b"model tokenizer").hexdigest()
# Long words cost a model several word pieces each where cl100k needs few.
WORDS = ["electroencephalography", "photosynthesis", "Zwischenstaatlichkeit", "3.14159", "anti-disestablishmentarianism"]


def paragraphs() -> list[B]:
    return [B(" ".join(f"{WORDS[(k + i) % len(WORDS)]}{k}" for i in range(60)) + ".") for k in range(12)]


@pytest.fixture(scope="module")
def reference():
    """The model's tokenizer as transformers loads it: the count the model sees."""
    return AutoTokenizer.from_pretrained(model_folder("all-MiniLM-L6-v2"))


def test_chunks_counted_with_the_model_tokenizer_fit_its_window(reference):
    result = doc(paragraphs())
    config = ChunkConfig(tokenizer=MODEL, max_tokens=256, overlap_tokens=32)
    chunks = chunk_document(result, doc_id=DOC_ID, source="m.pdf", config=config)
    check_slices(result, chunks)
    assert len(chunks) > 3
    for c in chunks:
        seen = len(reference(c.text)["input_ids"])  # [CLS] ... [SEP]
        assert c.n_tokens == seen <= 256
        assert c.tokenizer == MODEL
    # The default budget in cl100k tokens overflows the model's window.
    default = chunk_document(result, doc_id=DOC_ID, source="m.pdf", config=ChunkConfig())
    assert any(len(reference(c.text)["input_ids"]) > 256 for c in default)


def test_a_tokenizer_json_path_counts_as_the_model_and_the_setting_enters_the_ids():
    path = Path(model_folder("all-MiniLM-L6-v2")) / "tokenizer.json"
    by_file = Tokenizer.load(f"tokenizers:{path}")
    by_model = Tokenizer.load(MODEL)
    text = "Zwischenstaatlichkeit of photosynthesis, 3.14159."
    assert by_file.count(text) == by_model.count(text) > len(text.split()) + 2
    assert config_hash(ChunkConfig(tokenizer=MODEL)) != config_hash(ChunkConfig())
    assert Tokenizer.load("tiktoken:cl100k_base").count(text) == Tokenizer.load("cl100k_base").count(text)


@pytest.mark.parametrize("spec", ["sentence-transformers:no-such-model", "tokenizers:/no/such/tokenizer.json"])
def test_a_tokenizer_that_cannot_be_loaded_is_a_config_error_naming_the_key(spec):
    with pytest.raises(ConfigError, match="chunk.tokenizer"):
        Tokenizer.load(spec)


@pytest.mark.parametrize(
    "spec, why",
    [
        ("sentence-transformers:no-such-model", "no installed package bundles it"),
        ("tokenizers:/no/such/tokenizer.json", "cannot read"),
        ("sentence_transformers:all-MiniLM-L6-v2", "not a tiktoken encoding"),  # a typo in the prefix
    ],
)
def test_a_tokenizer_that_cannot_be_loaded_is_refused_when_the_settings_load(spec, why):
    with pytest.raises(ConfigError, match=f"^chunk.tokenizer .*{why}"):
        ChunkConfig(tokenizer=spec)
    assert ChunkConfig(tokenizer=MODEL).tokenizer_name == MODEL


def test_run_with_a_tokenizer_not_installed_exits_2_naming_the_setting_before_any_worker(tmp_path):
    from pdfbuilder import PdfBuilder
    from typer.testing import CliRunner

    from ragprep.pipeline.cli import app

    builder = PdfBuilder()
    font = builder.add_standard_font("Helvetica")
    builder.add_page(f"BT /{font} 12 Tf 72 720 Td (A page of text) Tj ET")
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.pdf").write_bytes(builder.to_bytes())
    config = tmp_path / "model.toml"
    config.write_text('[chunk]\ntokenizer = "sentence-transformers:no-such-model"\n', encoding="utf-8")
    out = tmp_path / "ds"
    result = CliRunner().invoke(app, ["run", str(tmp_path / "in"), "--out", str(out), "--config", str(config)])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("ragprep: ") and "chunk.tokenizer 'sentence-transformers:no-such-model'" in result.stderr
    assert "worker" not in result.stderr and "Traceback" not in result.output
    assert not out.exists()  # refused before the dataset was opened: no document failed
