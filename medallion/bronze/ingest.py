"""Batched, idempotent landing of events into ``bronze.events`` (B3, B5, B6).

One batch = one transaction: per-namespace advisory locks (so the hash chain is assigned in insert
order even with concurrent writers), existing keys looked up through a COPY'd temp table, new rows
COPY'd into a temp table and moved with one ``INSERT … ON CONFLICT DO NOTHING``. Every submitted
event gets a status: ``inserted``, ``duplicate`` (same key and content: nothing stored),
``conflict`` (same key, different content: original kept, attempt quarantined) or ``rejected``
(failed the contract: quarantined with its raw bytes, position and reason).

Nothing one event holds can lose the others: an input without any event is one rejection
(``empty_input``), and a batch the database refuses although every event passed the contract is
landed again in halves, down to the single row at fault, which is quarantined as ``landing_failed``
(see :func:`_land_guarded`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson
import psycopg

from medallion.bronze.chain import GENESIS, link
from medallion.bronze.contract import Event, Rejection, default_authority, validate_line, validate_object
from medallion.db.locks import LockBusy, holder, take

DEFAULT_MAX_CONTENT_BYTES = 1_048_576
_EMPTY_RAW_LIMIT = 65_536  # an input of blank lines is quarantined with at most this many of its bytes
_LOCK_CLASS = 0x62726F6E  # "bron": advisory-lock namespace for chain assignment


@dataclass(slots=True)
class EventStatus:
    """Outcome of one submitted event."""

    position: int  # 1-based line number in a file, or index + 1 in a list
    status: str  # inserted | duplicate | conflict | rejected
    event_id: int | None = None
    namespace: str | None = None
    source: str | None = None
    source_event_id: str | None = None
    reason: str | None = None
    code: str | None = None


@dataclass
class IngestResult:
    """Per-event statuses of one batch plus the counts the CLI prints."""

    statuses: list[EventStatus] = field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(1 for s in self.statuses if s.status == status)

    @property
    def inserted(self) -> int:
        return self.count("inserted")

    @property
    def duplicate(self) -> int:
        return self.count("duplicate")

    @property
    def conflict(self) -> int:
        return self.count("conflict")

    @property
    def rejected(self) -> int:
        return self.count("rejected")

    @property
    def ok(self) -> bool:
        """True when nothing was rejected or conflicted."""
        return self.rejected == 0 and self.conflict == 0

    @property
    def namespaces(self) -> list[str]:
        return sorted({s.namespace for s in self.statuses if s.status == "inserted" and s.namespace})

    def summary(self) -> dict[str, Any]:
        """The ``--json`` shape of ``medallion ingest``."""
        return {
            "inserted": self.inserted,
            "duplicate": self.duplicate,
            "conflict": self.conflict,
            "rejected": self.rejected,
            "rejects": [
                {"line": s.position, "status": s.status, "code": s.code, "reason": s.reason}
                for s in self.statuses
                if s.status in ("rejected", "conflict")
            ],
        }

    def merge(self, other: IngestResult) -> None:
        self.statuses.extend(other.statuses)


@dataclass(slots=True)
class _Candidate:
    position: int
    offset: int | None
    raw: bytes
    event: Event | None = None
    rejection: Rejection | None = None
    content_hash: str = ""  # computed once per event on the hot path
    key: tuple[str, str, str] = ("", "", "")

    def accept(self, event: Event) -> None:
        self.event = event
        self.content_hash = event.content_hash
        self.key = event.key


def split_lines(data: bytes) -> Iterator[tuple[int, int, bytes]]:
    """(line number, byte offset, line bytes) of each non-blank line.

    A line ends at ``\\n``, ``\\r\\n`` or a lone ``\\r`` (a CR-only file is many lines, not one):
    exactly the boundaries ``bytes.splitlines`` knows. JSON text holds no raw CR inside a string.
    """
    offset = 0
    if data.startswith(b"\xef\xbb\xbf"):  # a UTF-8 byte-order mark at the start of a file is not data
        data, offset = data[3:], 3
    for number, line in enumerate(data.splitlines(keepends=True), start=1):
        end = len(line) - (2 if line.endswith(b"\r\n") else 1 if line.endswith((b"\n", b"\r")) else 0)
        if line[:end].strip():
            yield number, offset, line[:end]
        offset += len(line)


def parse_jsonl(data: bytes, *, max_content_bytes: int = DEFAULT_MAX_CONTENT_BYTES) -> list[_Candidate]:
    """Validate every line of a JSONL document; invalid lines carry their rejection."""
    out = []
    for number, offset, line in split_lines(data):
        cand = _Candidate(number, offset, line)
        try:
            cand.accept(validate_line(line, max_content_bytes=max_content_bytes))
        except Rejection as rej:
            cand.rejection = rej
        out.append(cand)
    return out


def ingest_jsonl(
    conn: psycopg.Connection,
    data: bytes,
    *,
    origin: str,
    max_content_bytes: int = DEFAULT_MAX_CONTENT_BYTES,
    max_authority: int | None = None,
    allowed_namespaces: Collection[str] | None = None,
    writer: str | None = None,
    may_overlay: bool = True,
    batch_size: int = 50_000,
    progress: Callable[[int, int], None] | None = None,
) -> IngestResult:
    """Land a JSONL document (bytes, as read from a file or stdin).

    ``allowed_namespaces`` (None = any), ``max_authority``, ``writer`` (the capability's verified
    principal) and ``may_overlay`` (whether it holds the overlay verb) come from the writer's capability;
    ``progress(done, total)`` is called after each batch; batches land in order, one transaction each.
    Input without a single event (empty, blank lines only) is one rejected item, ``empty_input``:
    a caller that sent nothing learns it from ``result.ok`` like from any other rejection.
    """
    candidates = parse_jsonl(data, max_content_bytes=max_content_bytes)
    if not candidates:
        empty = _Candidate(1, 0, data[:_EMPTY_RAW_LIMIT])
        empty.rejection = Rejection("empty_input", "the input holds no events")
        candidates = [empty]
    if writer is not None:
        _overlay_rules(candidates, writer, may_overlay)
    return _land_in_batches(conn, candidates, origin, max_authority, allowed_namespaces, batch_size, progress)


def overlay_actor(principal: str) -> str:
    """The actor of an overlay written by ``principal``: the principal, as a user when it names no kind."""
    return principal if ":" in principal else f"user:{principal}"


def _overlay_rules(candidates: list[_Candidate], writer: str, may_overlay: bool) -> None:
    """Overlays written under a capability: only with its overlay verb, and authored by its principal.

    This is the one place the rule lives: every write of the tools (remember, overlay, ingest) lands
    through it. A person's overlay wins on read, so who wrote it must be the verified holder of the
    token, not whatever ``actor`` a file names.
    """
    authors = {writer, overlay_actor(writer)}
    for cand in candidates:
        event = cand.event
        if event is None or cand.rejection is not None or event.kind != "overlay":
            continue
        if not may_overlay:
            cand.rejection = Rejection("overlay_not_permitted",
                                       "this capability may not write overlays (it lacks the overlay verb)")
        elif event.actor not in authors:
            cand.rejection = Rejection("overlay_author_mismatch",
                                       f"an overlay written with this capability must name its principal "
                                       f"'{writer}' as actor")


def ingest_events(
    conn: psycopg.Connection,
    events: Iterable[dict[str, Any] | Event],
    *,
    origin: str = "api",
    max_content_bytes: int = DEFAULT_MAX_CONTENT_BYTES,
    max_authority: int | None = None,
    allowed_namespaces: Collection[str] | None = None,
    writer: str | None = None,
    may_overlay: bool = True,
    batch_size: int = 50_000,
) -> IngestResult:
    """Land events given as dicts (Python API, MCP) or validated :class:`Event` objects.

    The capability's limits are those of :func:`ingest_jsonl`.
    """
    candidates = []
    for index, item in enumerate(events, start=1):
        if isinstance(item, Event):  # trusted as validated; a row the database refuses is still caught
            cand = _Candidate(index, None, _raw_of_event(item))
            try:
                cand.accept(item)
            except Exception as exc:  # e.g. content that is not text: no hash, nothing to land
                cand.rejection = Rejection("invalid_event", f"the event object is not valid ({_one_line(exc)})")
        else:
            cand = _Candidate(index, None, _raw_of(item))
            try:
                cand.accept(validate_object(item, max_content_bytes=max_content_bytes))
            except Rejection as rej:
                cand.rejection = rej
        candidates.append(cand)
    if writer is not None:
        _overlay_rules(candidates, writer, may_overlay)
    return _land_in_batches(conn, candidates, origin, max_authority, allowed_namespaces, batch_size, None)


def _raw_of_event(event: Event) -> bytes:
    try:
        return event.model_dump_json().encode()
    except Exception:  # an Event built without validation may not serialise
        return _raw_of(event.__dict__)


def _raw_of(item: Any) -> bytes:
    try:
        return json.dumps(item, ensure_ascii=False, default=str).encode("utf-8", "surrogatepass")
    except (TypeError, ValueError):
        return repr(item).encode("utf-8", "backslashreplace")


def _land_in_batches(
    conn: psycopg.Connection,
    candidates: list[_Candidate],
    origin: str,
    max_authority: int | None,
    allowed_namespaces: Collection[str] | None,
    batch_size: int,
    progress: Callable[[int, int], None] | None,
) -> IngestResult:
    result = IngestResult()
    allowed = _allowed(allowed_namespaces)
    for start in range(0, len(candidates), batch_size):
        batch = candidates[start : start + batch_size]
        result.merge(_land_guarded(conn, batch, origin, max_authority, allowed))
        if progress is not None:
            progress(min(start + batch_size, len(candidates)), len(candidates))
    return result


def _land_guarded(
    conn: psycopg.Connection,
    batch: list[_Candidate],
    origin: str,
    max_authority: int | None,
    allowed: set[str] | None,
) -> IngestResult:
    """Land one batch; if it fails in a way one row can cause, land each half on its own.

    The contract cannot foresee every row the database or the encoder refuses (an index entry over
    PostgreSQL's size limit, a bug, an object given to the Python API unvalidated). Such a failure
    rolls the whole batch back, so halving narrows it to the single rows at fault: each is
    quarantined with the error (``landing_failed``) and every other row lands, in input order. A
    failure no row can cause (the connection is gone, a lock or statement timeout) is raised:
    quarantining valid rows for it would be wrong, and landing the file again is idempotent.
    """
    try:
        return _land(conn, batch, origin, max_authority, allowed)
    except Exception as exc:
        if not _row_can_cause(conn, exc):
            raise
        if len(batch) == 1:
            return _quarantine_failed(conn, batch[0], origin, exc)
        half = len(batch) // 2
        result = _land_guarded(conn, batch[:half], origin, max_authority, allowed)
        result.merge(_land_guarded(conn, batch[half:], origin, max_authority, allowed))
        return result


def _row_can_cause(conn: psycopg.Connection, exc: Exception) -> bool:
    """Whether landing without some row could succeed. Not when the connection, the server (timeouts,
    locks, resources) or the setup (privileges, schema: ProgrammingError) is the problem: every row
    would fail alike. Data, integrity and size-limit errors, and Python errors, can be one row's."""
    if conn.closed or conn.broken:
        return False
    if isinstance(exc, psycopg.errors.ProgramLimitExceeded):  # a value over a size limit: the row's doing
        return True
    return not isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError | psycopg.ProgrammingError)


def _quarantine_failed(conn: psycopg.Connection, cand: _Candidate, origin: str, exc: Exception) -> IngestResult:
    """Quarantine the one row a batch failed on, with the error as its reason."""
    reason = f"could not be stored ({_one_line(exc)}); the other events of the input went on landing"
    with conn.transaction():
        _write_quarantine(conn, [_quarantine_row(origin, cand, "landing_failed", reason, None)])
    ev = cand.event
    keys = {k: _printable(v) for k, v in _key_fields(ev).items()} if ev is not None else {}
    return IngestResult([EventStatus(cand.position, "rejected", reason=reason, code="landing_failed", **keys)])


def _one_line(exc: Exception) -> str:
    """An exception as a short single line that any text column can hold."""
    text = " ".join(str(exc).split())
    text = text if len(text) <= 300 else text[:297] + "..."
    return _printable(f"{type(exc).__name__}: {text}" if text else type(exc).__name__) or ""


def _allowed(allowed_namespaces: Collection[str] | None) -> set[str] | None:
    """The namespaces a writer may touch; None = any ('*')."""
    if allowed_namespaces is None or "*" in allowed_namespaces:
        return None
    return set(allowed_namespaces)


def _authority(event: Event, max_authority: int | None) -> int:
    """Explicit authority, or the default from actor/source; never above the writer's cap."""
    if event.authority is not None:
        if max_authority is not None and event.authority < max_authority:
            raise Rejection(
                "authority_above_capability",
                f"authority {event.authority} is above what this writer may claim "
                f"(its capability allows {max_authority} or lower-ranked)",
            )
        return event.authority
    value = default_authority(event.actor, event.source, event.kind)
    return max(value, max_authority) if max_authority is not None else value


def _land(
    conn: psycopg.Connection,
    batch: list[_Candidate],
    origin: str,
    max_authority: int | None,
    allowed: set[str] | None,
) -> IngestResult:
    statuses: dict[int, EventStatus] = {}
    quarantine: list[tuple[Any, ...]] = []
    first_by_key: dict[tuple[str, str, str], _Candidate] = {}
    authority: dict[int, int] = {}

    for i, cand in enumerate(batch):
        ev = cand.event
        if ev is not None and cand.rejection is None and allowed is not None and ev.namespace not in allowed:
            cand.rejection = Rejection(
                "namespace_not_permitted", f"this capability may not write to namespace '{ev.namespace}'"
            )
        if ev is not None and cand.rejection is None:
            try:
                authority[i] = _authority(ev, max_authority)
            except Rejection as rej:
                cand.rejection = rej
        if cand.rejection is not None:
            statuses[i] = EventStatus(
                cand.position, "rejected", reason=cand.rejection.reason, code=cand.rejection.code,
                namespace=ev.namespace if ev else None, source=ev.source if ev else None,
                source_event_id=ev.source_event_id if ev else None,
            )
            quarantine.append(_quarantine_row(origin, cand, cand.rejection.code, cand.rejection.reason, None))
            continue
        assert ev is not None
        first = first_by_key.get(cand.key)
        if first is None:
            first_by_key[cand.key] = cand
        elif first.content_hash == cand.content_hash:
            statuses[i] = EventStatus(cand.position, "duplicate", **_key_fields(ev))
        else:
            reason = (
                f"conflict: {ev.namespace}/{ev.source}/{ev.source_event_id} was already submitted "
                f"with different content (line {first.position}); the original is kept"
            )
            statuses[i] = EventStatus(cand.position, "conflict", reason=reason, code="conflict", **_key_fields(ev))
            quarantine.append(_quarantine_row(origin, cand, "conflict", reason, None))

    index_of = {id(c): i for i, c in enumerate(batch)}
    fresh = [(index_of[id(c)], c) for c in first_by_key.values()]

    with conn.transaction():
        # The INSERT sorts the batch by seq: keep that sort in memory rather than spilling to disk.
        conn.execute("SET LOCAL work_mem = '64MB'")
        namespaces = sorted({c.event.namespace for _, c in fresh if c.event})
        _lock_namespaces(conn, namespaces)
        existing, erased = _known_keys(conn, [c.key for _, c in fresh])
        now = conn.execute("SELECT clock_timestamp()").fetchone()[0]  # type: ignore[index]

        heads = {
            row[0]: (row[1], row[2])
            for row in conn.execute(
                "SELECT namespace, event_count, head_hash FROM bronze.chain_heads "
                "WHERE namespace = ANY(%s) FOR UPDATE",
                (namespaces,),
            )
        }
        rows: list[tuple[Any, ...]] = []
        new_keys: dict[tuple[str, str, str], int] = {}
        for i, cand in fresh:
            ev = cand.event
            assert ev is not None
            found = existing.get(cand.key)
            if found is not None:
                event_id, stored_hash = found
                if stored_hash == cand.content_hash:
                    statuses[i] = EventStatus(cand.position, "duplicate", event_id=event_id, **_key_fields(ev))
                else:
                    reason = (
                        f"conflict: {ev.namespace}/{ev.source}/{ev.source_event_id} already exists as event "
                        f"{event_id} with different content; the original is kept"
                    )
                    statuses[i] = EventStatus(
                        cand.position, "conflict", event_id=event_id, reason=reason, code="conflict",
                        **_key_fields(ev),
                    )
                    quarantine.append(_quarantine_row(origin, cand, "conflict", reason, event_id))
                continue
            if cand.key in erased:
                reason = (
                    f"{ev.namespace}/{ev.source}/{ev.source_event_id} was erased (erasure request "
                    f"{erased[cand.key]}) and cannot be submitted again; its content is not kept"
                )
                statuses[i] = EventStatus(cand.position, "rejected", reason=reason, code="erased", **_key_fields(ev))
                quarantine.append(_quarantine_row(origin, _Candidate(cand.position, cand.offset, b"", ev),
                                                  "erased", reason, None))
                continue
            count, head = heads.get(ev.namespace, (0, GENESIS))
            chain = link(head, cand.content_hash, ev.source, ev.source_event_id)
            heads[ev.namespace] = (count + 1, chain)
            new_keys[cand.key] = i
            rows.append(
                (
                    len(rows), ev.namespace, ev.source, ev.source_event_id, ev.kind, ev.actor, ev.content,
                    cand.content_hash, ev.occurred_at or now, now, ev.provenance_root, authority[i],
                    orjson.dumps(ev.metadata).decode(), chain,  # NaN/Infinity were rejected by the contract
                )
            )

        if rows:
            _insert_rows(conn, rows, new_keys, batch, statuses)
            touched = sorted({r[1] for r in rows})
            with conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO bronze.chain_heads (namespace, event_count, head_hash) VALUES (%s, %s, %s) "
                    "ON CONFLICT (namespace) DO UPDATE SET event_count = EXCLUDED.event_count, "
                    "head_hash = EXCLUDED.head_hash, updated_at = clock_timestamp()",
                    [(ns, heads[ns][0], heads[ns][1]) for ns in touched],
                )
                cur.executemany(
                    "INSERT INTO bronze.checkpoints (namespace, event_count, head_hash) VALUES (%s, %s, %s)",
                    [(ns, heads[ns][0], heads[ns][1]) for ns in touched],
                )
        if quarantine:
            _write_quarantine(conn, quarantine)

    return IngestResult([statuses[i] for i in range(len(batch))])


def _lock_namespaces(conn: psycopg.Connection, namespaces: list[str]) -> None:
    """Each namespace's ingest lock for the transaction, in sorted order; a wait is bounded (the session's
    ``lock_timeout``, else 300 s) and one that runs out names the holder (:mod:`medallion.db.locks`)."""
    busy, wait = take(conn, "SELECT pg_advisory_xact_lock(%s, hashtext(%s))", [(_LOCK_CLASS, ns) for ns in namespaces])
    if busy is not None:
        ns = namespaces[busy]
        who = holder(conn, "l.classid::int = %s AND l.objid::int = hashtext(%s) AND l.objsubid = 2", (_LOCK_CLASS, ns))
        raise LockBusy(f"namespace {ns!r}'s ingest lock is held by {who}; waited {wait:g} s: nothing of this "
                       "batch was stored, and ingest is idempotent: run it again once that session has finished")


def _key_fields(ev: Event) -> dict[str, str]:
    return {"namespace": ev.namespace, "source": ev.source, "source_event_id": ev.source_event_id}


Key = tuple[str, str, str]


def _known_keys(conn: psycopg.Connection, keys: list[Key]) -> tuple[dict[Key, tuple[int, str]], dict[Key, int]]:
    """Keys already stored (→ event_id, content_hash) and keys erased before (→ erasure request id).

    The keys travel as one JSON document: far cheaper to send than three large text arrays.
    """
    if not keys:
        return {}, {}
    rows = conn.execute(
        "WITH k AS (SELECT j->>0 AS namespace, j->>1 AS source, j->>2 AS source_event_id "
        "           FROM jsonb_array_elements(%s::jsonb) AS j) "
        "SELECT k.namespace, k.source, k.source_event_id, e.event_id, e.content_hash, t.request_id FROM k "
        "LEFT JOIN bronze.events e USING (namespace, source, source_event_id) "
        "LEFT JOIN bronze.tombstones t USING (namespace, source, source_event_id) "
        "WHERE e.event_id IS NOT NULL OR t.request_id IS NOT NULL",
        (json.dumps(keys, ensure_ascii=False),),
    ).fetchall()
    existing = {(r[0], r[1], r[2]): (r[3], r[4]) for r in rows if r[3] is not None}
    erased = {(r[0], r[1], r[2]): r[5] for r in rows if r[3] is None}
    return existing, erased


_COLUMNS = (
    "namespace, source, source_event_id, kind, actor, content, content_hash, occurred_at, received_at, "
    "provenance_root, authority, metadata, chain_hash"
)


def _insert_rows(
    conn: psycopg.Connection,
    rows: list[tuple[Any, ...]],
    new_keys: dict[tuple[str, str, str], int],
    batch: list[_Candidate],
    statuses: dict[int, EventStatus],
) -> None:
    conn.execute(
        "CREATE TEMP TABLE IF NOT EXISTS _ingest_rows (seq int, namespace text, source text, "
        "source_event_id text, kind text, actor text, content text, content_hash text, "
        "occurred_at timestamptz, received_at timestamptz, provenance_root text, authority smallint, "
        "metadata jsonb, chain_hash text) ON COMMIT DELETE ROWS"
    )
    with conn.cursor() as cur:
        with cur.copy(f"COPY _ingest_rows (seq, {_COLUMNS}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
        cur.execute(
            f"INSERT INTO bronze.events ({_COLUMNS}) SELECT {_COLUMNS} FROM _ingest_rows ORDER BY seq "
            "ON CONFLICT (namespace, source, source_event_id) DO NOTHING "
            "RETURNING namespace, source, source_event_id, event_id"
        )
        returned = cur.fetchall()
    if len(returned) != len(rows):
        # Only a writer bypassing the namespace lock can cause this; the chain would be wrong.
        raise RuntimeError("concurrent write to bronze.events outside the ingest path; batch rolled back")
    for ns, src, seid, event_id in returned:
        i = new_keys[(ns, src, seid)]
        statuses[i] = EventStatus(
            batch[i].position, "inserted", event_id=event_id, namespace=ns, source=src, source_event_id=seid
        )


def _quarantine_row(
    origin: str, cand: _Candidate, code: str, reason: str, conflict_event_id: int | None
) -> tuple[Any, ...]:
    ev = cand.event
    return (
        origin,
        cand.position,
        cand.offset,
        _printable(ev.namespace if ev else None),
        _printable(ev.source if ev else None),
        _printable(ev.source_event_id if ev else None),
        code,
        reason,
        cand.raw,
        conflict_event_id,
    )


def _printable(value: Any) -> str | None:
    """Text a quarantine column can hold: no NUL, no unpaired surrogate (the raw bytes keep the rest)."""
    if value is None:
        return None
    return str(value).replace("\x00", "").encode("utf-8", "replace").decode("utf-8")


def _write_quarantine(conn: psycopg.Connection, rows: list[tuple[Any, ...]]) -> None:
    with conn.cursor() as cur, cur.copy(
        "COPY bronze.quarantine (origin, line_number, byte_offset, namespace, source, source_event_id, "
        "error_code, reason, raw, conflict_event_id) FROM STDIN"
    ) as copy:
        for row in rows:
            copy.write_row(row)


def quarantine_single(conn: psycopg.Connection, origin: str, raw: bytes, code: str, reason: str) -> None:
    """Record a rejection that happened before any line could be read (e.g. an unreadable file)."""
    with conn.transaction():
        _write_quarantine(conn, [(origin, None, None, None, None, None, code, reason, raw, None)])

