"""LanceDB, embedded: ``lancedb:PATH[#TABLE]`` (table ``chunks`` by default).

Rows keep the dataset's Arrow types (``bboxes``, ``mcids``, ``modes`` stay lists
of structs). Upserts are one ``merge_insert`` on ``id`` per batch, deletes one
``delete`` by id; each is one Lance commit, atomic. The sync state is a one-row
table beside it, ``TABLE__ragprep_sync``, overwritten (atomically too) at the end.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from ragprep.pipeline.sync.model import ID, TEXT_HASH, VECTOR, StoreError, SyncState

STATE_SUFFIX = "__ragprep_sync"
STATE_SCHEMA = pa.schema(
    [
        pa.field("dataset_id", pa.string()),
        pa.field("version", pa.int64()),
        pa.field("filter_key", pa.string()),
        pa.field("embedder", pa.string()),
    ]
)


def _quoted(ids: Sequence[str]) -> str:
    return ", ".join("'" + i.replace("'", "''") + "'" for i in ids)


class LanceStore:
    def __init__(self, path: str, table: str = "chunks") -> None:
        try:
            import lancedb
        except ImportError as exc:
            raise StoreError("lancedb: stores need the lancedb package: pip install 'ragprep[lancedb]'") from exc
        self.uri = f"lancedb:{path}#{table}"
        self.name = table
        self.db = lancedb.connect(path)
        self._table = self._open(table)

    def _names(self) -> set[str]:
        names: set[str] = set()
        token = None
        while True:  # list_tables pages its answer
            page = self.db.list_tables(page_token=token)
            names.update(page.tables)
            token = page.page_token
            if not token:
                return names

    def _scan(self, columns: list[str], where: str | None = None) -> pa.Table:
        query = self._table.search()
        if where is not None:
            query = query.where(where)
        return query.select(columns).limit(None).to_arrow()

    def _open(self, name: str):  # -> lancedb.table.Table | None
        return self.db.open_table(name) if name in self._names() else None

    def state(self) -> SyncState | None:
        table = self._open(self.name + STATE_SUFFIX)
        if table is None:
            return None
        rows = table.to_arrow().to_pylist()
        return SyncState(**rows[0]) if rows else None

    def save_state(self, state: SyncState) -> None:
        row = pa.Table.from_pylist([vars(state)], schema=STATE_SCHEMA)
        self.db.create_table(self.name + STATE_SUFFIX, data=row, mode="overwrite")

    def ids(self) -> set[str]:
        if self._table is None:
            return set()
        return set(self._scan([ID]).column(ID).to_pylist())

    def stored(self, ids: Sequence[str]) -> dict[str, tuple[str, np.ndarray]]:
        if self._table is None or not ids:
            return {}
        found = self._scan([ID, TEXT_HASH, VECTOR], f"{ID} IN ({_quoted(ids)})")
        if not len(found):
            return {}
        vectors = found.column(VECTOR).combine_chunks()
        flat = vectors.flatten().to_numpy(zero_copy_only=False).reshape(len(found), -1)
        return {
            i: (h, flat[k]) for k, (i, h) in enumerate(zip(found.column(ID).to_pylist(), found.column(TEXT_HASH).to_pylist(), strict=True))
        }

    def upsert(self, rows: pa.Table) -> None:
        if self._table is None:
            self._table = self.db.create_table(self.name, data=rows, mode="overwrite")
            return
        self._table.merge_insert(ID).when_matched_update_all().when_not_matched_insert_all().execute(rows)

    def delete(self, ids: Sequence[str]) -> None:
        if self._table is not None and ids:
            self._table.delete(f"{ID} IN ({_quoted(ids)})")

    def rows(self) -> pa.Table:
        """Every row (tests and inspection)."""
        return self._table.to_arrow() if self._table is not None else pa.table({})

    def close(self) -> None:
        pass
