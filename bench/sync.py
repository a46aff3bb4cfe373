"""`ragprep sync` throughput and the re-embedding its content-stable ids save.

    python bench/sync.py                          # every readable corpus file, real model
    python bench/sync.py --files 'multicolumn/*' --no-model
    python bench/sync.py --format json --out /tmp/sync.json

Measured in one invocation, in this order, over a temporary copy of the selected
files (one held out, to be added later):

1. ``ragprep run`` builds a dataset (not timed here: bench/pipeline.py does that);
2. a full sync into a fresh LanceDB table with a near-free embedder (a hash of
   the text): the cost of sync itself, in kept chunks per CPU second;
3. the same with the real default model (all-MiniLM-L6-v2, bundled by
   ``ragprep[embed]``): chunks per CPU second and the share of the time spent embedding;
4. the peer: LangChain's indexing API (``index(..., cleanup="incremental")`` with a
   record manager), the usual way to keep a LangChain vector store in step, fed the
   same chunks through ``ragprep.integrations.langchain``;
5. the nightly edit: a middle page of the largest multi-page document dropped,
   another document deleted, the held-out one added; rerun; sync again. Reported:
   texts ragprep embedded, texts LangChain's indexer embedded (it hashes text and
   metadata, so a chunk whose page or offsets moved is embedded again), and what
   ids hashing the document's bytes (the rule before issue 14) would have embedded:
   every chunk of the edited and added documents.

Ratios are what to read; absolute chunks/s depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _corpus import DEFAULT_CORPUS, BenchError, run_cli, select_files  # noqa: E402

DIM = 384


def hashed_vectors(texts: list[str]) -> list[list[float]]:
    """A near-free embedder: 384 floats from the text's SHA-256 (the cost of sync alone)."""
    out = []
    for text in texts:
        seed = hashlib.sha256(text.encode()).digest()
        out.append([b / 255.0 for b in (seed * (DIM // len(seed) + 1))[:DIM]])
    return out


class CountingEmbeddings:
    """LangChain Embeddings over the near-free embedder, counting the texts it is given."""

    def __init__(self) -> None:
        self.texts = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.texts += len(texts)
        return hashed_vectors(texts)

    def embed_query(self, text: str) -> list[float]:
        return hashed_vectors([text])[0]


def timed_sync(dataset: Path, uri: str, embedder, cache: Path) -> dict[str, float]:
    from ragprep.pipeline.config import SyncConfig
    from ragprep.pipeline.sync import EmbeddingCache, open_store, sync

    store = open_store(uri)
    vectors = EmbeddingCache(cache)
    cpu, wall = time.process_time(), time.perf_counter()
    summary = sync(dataset, store, embedder, SyncConfig(), vectors)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    vectors.close()
    rows = summary.added + summary.updated + summary.removed
    return {
        "rows": rows, "added": summary.added, "updated": summary.updated, "removed": summary.removed,
        "embedded": summary.embedded, "truncated": summary.truncated, "cpu_s": round(cpu, 2), "wall_s": round(wall, 2),
        "rows_per_cpu_s": round(rows / cpu, 1) if cpu else 0.0,
        "embed_share": round(summary.embed_seconds / summary.seconds, 3) if summary.seconds else 0.0,
    }  # fmt: skip


def langchain_index(dataset: Path, record_manager, vector_store, embeddings: CountingEmbeddings) -> dict[str, int]:
    from langchain_core.indexing import index

    from ragprep.integrations.langchain import RagprepLoader

    before = embeddings.texts
    docs = [d for d in RagprepLoader(dataset).lazy_load() if not d.metadata["is_boilerplate"]]
    result = index(docs, record_manager, vector_store, cleanup="incremental", source_id_key="source", key_encoder="sha256")
    return {**{k: int(v) for k, v in result.items()}, "embedded": embeddings.texts - before}


def edit(folder: Path, held_out: Path) -> dict[str, str]:
    import pikepdf

    pdfs = sorted(folder.glob("*.pdf"))
    sizes = {}
    for pdf in pdfs:
        try:
            with pikepdf.open(pdf) as doc:
                sizes[pdf] = len(doc.pages)
        except pikepdf.PdfError:
            continue
    # A page is deleted from the middle of the longest file that has one between two others.
    candidates = [p for p in sizes if sizes[p] >= 3]
    if not candidates:
        raise BenchError("the nightly edit deletes a middle page: select at least one file of 3 or more pages (--files)")
    edited = max(candidates, key=lambda p: sizes[p])
    with pikepdf.open(edited, allow_overwriting_input=True) as doc:
        del doc.pages[len(doc.pages) // 2]
        doc.save(edited)
    deleted = next(p for p in pdfs if p != edited and p in sizes)
    deleted.unlink()
    shutil.copy(held_out, folder / held_out.name)
    return {"edited": edited.name, "deleted": deleted.name, "added": held_out.name}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--files", help="fnmatch globs against manifest paths, comma-separated")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--no-model", action="store_true", help="skip the real-model sync")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    files = select_files(args.corpus, args.files, args.limit)
    if len(files) < 3:
        raise BenchError("need at least 3 files (one edited, one deleted, one added)")
    report = measure(files, with_model=not args.no_model)
    text = json.dumps(report, indent=2) if args.format == "json" else summary_text(report)
    if args.out:
        args.out.write_text(text + "\n")
    print(text)
    return 0


def measure(files: list, *, with_model: bool) -> dict[str, object]:
    """A first sync of a run over all but the last file, then a nightly one after
    an edit, a deletion and an addition; LangChain's indexing API alongside."""
    from ragprep.pipeline.config import PipelineConfig, Settings
    from ragprep.pipeline.export import chunk_table
    from ragprep.pipeline.progress import QuietReporter
    from ragprep.pipeline.run import run
    from ragprep.pipeline.sync import DEFAULT_EMBEDDER, load_embedder
    from ragprep.pipeline.sync.embed import CallableEmbedder

    report: dict[str, object] = {"files": len(files)}
    with tempfile.TemporaryDirectory(prefix="ragprep-bench-sync-") as tmp:
        root = Path(tmp)
        folder, held_out = copy_corpus(root, files)
        dataset = root / "ds"
        settings = Settings(pipeline=PipelineConfig(workers=2))
        run([str(folder)], dataset, settings, QuietReporter())
        chunks_before = chunk_table(dataset)
        cheap = CallableEmbedder("bench:hashed_vectors", hashed_vectors)
        report.update(syncs(dataset, root, cheap, None, "sync"))
        model = None
        if with_model:  # loaded after the cheap sync, so torch is not in its process yet
            model = load_embedder(DEFAULT_EMBEDDER)
            report.update(syncs(dataset, root, None, model, "sync"))
        langchain = LangchainIndex()
        cpu = time.process_time()
        report["langchain_index_first"] = {**langchain.index(dataset), "cpu_s": round(time.process_time() - cpu, 2)}

        report["edit"] = edit(folder, held_out)
        run([str(folder)], dataset, settings, QuietReporter())
        report.update(syncs(dataset, root, cheap, model, "nightly"))
        report["langchain_index_nightly"] = langchain.index(dataset)
        report.update(reuse_figures(folder, report["edit"], chunks_before, chunk_table(dataset)))
    return report


def copy_corpus(root: Path, files: list) -> tuple[Path, Path]:
    """All but the last file into root/corpus (numbered), the last held out for the nightly addition."""
    folder = root / "corpus"
    folder.mkdir()
    for f in files[:-1]:
        shutil.copy(f.path, folder / f"{len(list(folder.iterdir())):03d}-{f.path.name}")
    held_out = root / f"999-{files[-1].path.name}"
    shutil.copy(files[-1].path, held_out)
    return folder, held_out


def syncs(dataset: Path, root: Path, cheap, model, round_name: str) -> dict[str, object]:
    """One round of syncs: with the cheap hashed embedder and with the real model, each when given."""
    found = {}
    if cheap is not None:
        found[f"{round_name}_no_embedding"] = timed_sync(dataset, f"lancedb:{root / 'cheap'}", cheap, root / "cheap.sqlite")
    if model is not None:
        found[f"{round_name}_model"] = timed_sync(dataset, f"lancedb:{root / 'model'}", model, root / "model.sqlite")
    return found


class LangchainIndex:
    """LangChain's indexing API over an in-memory store, kept across rounds."""

    def __init__(self) -> None:
        from langchain_core.indexing import InMemoryRecordManager
        from langchain_core.vectorstores import InMemoryVectorStore

        self.manager = InMemoryRecordManager("bench")
        self.manager.create_schema()
        self.embeddings = CountingEmbeddings()
        self.store = InMemoryVectorStore(self.embeddings)

    def index(self, dataset: Path) -> dict:
        return langchain_index(dataset, self.manager, self.store, self.embeddings)


def reuse_figures(folder: Path, edit_names: dict, chunks_before, chunks_after) -> dict[str, int]:
    """What document-keyed ids would re-embed (every chunk of a changed document)
    against the texts that are new."""
    import pyarrow.compute as pc

    changed = {str((folder / edit_names[k]).resolve()) for k in ("edited", "added")}
    kept = chunks_after.filter(pc.invert(chunks_after.column("is_boilerplate")))
    old_texts = set(chunks_before.column("text").to_pylist())
    return {
        "doc_keyed_ids_would_embed": sum(1 for s in kept.column("source").to_pylist() if s in changed),
        "new_texts": len(set(kept.column("text").to_pylist()) - old_texts),
    }


def summary_text(report: dict) -> str:
    lines = [f"files: {report['files']} (edit: {report['edit']})"]
    for key in ("sync_no_embedding", "sync_model", "nightly_no_embedding", "nightly_model"):
        if key in report:
            r = report[key]
            lines.append(
                f"{key:22s} {r['rows']:6d} rows  {r['rows_per_cpu_s']:8.1f} rows/CPU-s  cpu {r['cpu_s']:7.2f} s  "
                f"wall {r['wall_s']:7.2f} s  embedded {r['embedded']:5d}  embedding share {r['embed_share']:.1%}  truncated {r['truncated']}"
            )
    if "sync_model" in report:
        ratio = report["sync_no_embedding"]["rows_per_cpu_s"] / max(report["sync_model"]["rows_per_cpu_s"], 1e-9)
        lines.append(f"sync without embedding is {ratio:.1f}x the rows/CPU-s of sync with the model")
    first, nightly = report["langchain_index_first"], report["langchain_index_nightly"]
    lines.append(f"langchain index (first): {first}")
    lines.append(f"langchain index (nightly): {nightly}")
    ours = report["nightly_no_embedding"]["embedded"]
    lines.append(
        f"nightly edit: ragprep embedded {ours} texts (new texts: {report['new_texts']}); "
        f"LangChain's indexer embedded {nightly['embedded']}; doc-keyed ids would embed {report['doc_keyed_ids_would_embed']}"
    )
    return "\n".join(lines)


if __name__ == "__main__":
    run_cli(main)
