"""Hindsight as an optional peer cache (A2, and the first hop of the G5 cascade).

Hindsight is fast and possibly lossy; the ledger is the truth. This module is the one small
interface between them, and it only ever pushes one way:

* :func:`mirror` retains each authoritative current fact (``silver.facts`` open, not contested,
  ``authority <= max_authority``) into the bank named after its namespace, under a document id
  that is the fact's *slot*, so re-mirroring a slot replaces what Hindsight held for it (Hindsight's
  retain with an existing document id replaces that document). Documents of slots the ledger no
  longer holds an authoritative current fact for are invalidated in Hindsight (kept there for its
  own audit, excluded from its recall). Nothing is ever read back into the ledger: no two-way sync.
* :func:`sample_audit` draws N authoritative slots and classifies Hindsight's copy of each as
  ``agree`` / ``disagree`` / ``missing`` / ``stale`` for the drift report (A1 d).
* :func:`recall` is the Hindsight hop of the cascade; given the ledger connection it drops any
  answer whose fact the ledger no longer holds as current, so a superseded fact is never served.

The mirror keeps no state of its own (no migration): what was mirrored is read back from
Hindsight's document listing and compared with the ledger each run.

What is mirrored is the fact *as served* (composed with people's overlays, G6): a redacted
span never reaches Hindsight.

``hindsight-client`` is asynchronous (its sync wrappers and ``asyncio.run`` conflict on close, and
both fail inside a running loop, e.g. under Dagster or the MCP server). :class:`HindsightPeer`
therefore owns one event loop on a small daemon thread: every call is scheduled onto that loop, so
the client's HTTP session lives on one loop for its whole life, whatever the caller's context.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

import psycopg

from dagster_project.gold.served import OVERLAYS_JOIN, REDACTED, compose

T = TypeVar("T")

RECALL_TYPES = ["world", "experience"]  # a background worker also writes observations; those are derived
SOURCE_TYPES = frozenset(RECALL_TYPES)
DEFAULT_TIMEOUT = 60.0
PAGE = 1000
STATUSES = ("agree", "disagree", "missing", "stale")
_SPACE = re.compile(r"\s+")

_FACTS_SQL = """
SELECT f.fact_id, f.namespace, f.subject_id, f.predicate, f.cardinality, f.value, f.value_text, f.statement,
       f.valid_from, f.valid_to, f.authority, f.contested, ov.overlays
FROM silver.facts f
""" + OVERLAYS_JOIN + """WHERE (%(ns)s::text[] IS NULL OR f.namespace = ANY(%(ns)s)) {extra}
ORDER BY f.namespace, f.subject_id, f.predicate, f.valid_from, f.fact_id
"""
_AUTHORITATIVE = "AND f.valid_to IS NULL AND NOT f.contested AND f.authority <= %(max_authority)s"


class HindsightError(RuntimeError):
    """A Hindsight call failed (unreachable, or an HTTP error other than 'not found')."""


@dataclass(frozen=True)
class Memory:
    """One of Hindsight's active source memories (world / experience) for a document."""

    memory_id: str
    document_id: str | None
    text: str
    metadata: dict[str, str]
    fact_type: str | None
    chunk_id: str | None = None

    @property
    def fact_id(self) -> str | None:
        return self.metadata.get("fact_id")


@dataclass(frozen=True)
class LedgerFact:
    """A ledger fact as served (overlays applied), with the Hindsight document id of its slot."""

    fact_id: str
    namespace: str
    document_id: str
    subject_id: str
    predicate: str
    value_text: str
    statement: str
    valid_from: datetime
    current: bool
    authority: int
    contested: bool

    @property
    def statement_sha(self) -> str:
        return _sha(self.statement)

    def metadata(self) -> dict[str, str]:
        """What Hindsight keeps next to the text: enough to tell a stale copy from a conflicting one."""
        return {"fact_id": self.fact_id, "value_text": self.value_text, "valid_from": self.valid_from.isoformat(),
                "subject_id": self.subject_id, "predicate": self.predicate, "authority": str(self.authority),
                "statement_sha": self.statement_sha, "mirrored_by": "medallion-memory"}


def _sha(text: str, n: int = 16) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:n]


def slot_id(namespace: str, subject_id: str, predicate: str, cardinality: str, value_text: str) -> str:
    """The Hindsight document id of a slot: ``subject:predicate``, plus a value hash when many-valued.

    A single-valued slot has one document, so a newer version replaces the older one there; each value
    of a many-valued slot is its own document, so mirroring one value never erases its siblings.
    """
    base = f"{subject_id}:{predicate}"
    if cardinality == "many":
        return f"{base}:{_sha(chr(31).join((namespace, subject_id, predicate, value_text)))}"
    return base


def _normal(text: str) -> str:
    """Whitespace-insensitive comparison key (Hindsight may split a long text into chunks)."""
    return _SPACE.sub("", text or "").casefold()


class HindsightPeer:
    """A Hindsight server as a peer cache. Bank id = the medallion namespace; document id = the slot.

    Constructed from the server's base URL; :meth:`close` (or ``with``) ends its loop thread.
    """

    def __init__(self, base_url: str, *, api_key: str | None = None, timeout: float = DEFAULT_TIMEOUT,
                 concurrency: int = 8, batch_size: int = 100) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.concurrency = max(1, concurrency)
        self.batch_size = max(1, batch_size)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._serve, name="hindsight-peer", daemon=True)
        self._thread.start()
        self._closed = False
        self._lock = threading.Lock()
        try:
            self._client = self._run(self._make_client(api_key))
        except BaseException:
            self._stop_loop()
            raise

    # ------------------------------------------------------------------ loop plumbing
    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_forever()

    async def _make_client(self, api_key: str | None) -> Any:
        from hindsight_client import Hindsight  # optional extra: imported only when a peer is used

        return Hindsight(base_url=self.base_url, api_key=api_key, timeout=self.timeout)

    def _run(self, coro: Coroutine[Any, Any, T], *, bounded: bool = True) -> T:
        """Run ``coro`` on the peer's loop and wait for it (each HTTP request also has its own timeout).

        ``bounded=False`` is for batches: their length, not one request, sets how long they take.
        """
        if self._closed:
            coro.close()
            raise HindsightError("this Hindsight peer is closed")
        if threading.current_thread() is self._thread:
            coro.close()
            raise HindsightError("a HindsightPeer method was called from its own loop thread (it would deadlock)")
        future = asyncio.run_coroutine_threadsafe(coro, self._loop)
        wait = self.timeout * 2 if bounded else None
        try:
            return future.result(wait)
        except TimeoutError as exc:
            future.cancel()
            raise HindsightError(f"Hindsight at {self.base_url} did not answer within {wait:.0f} s") from exc

    async def _call(self, make: Callable[[], Awaitable[T]], *, missing: T | None = None,
                    missing_ok: bool = False) -> T | None:
        """One client call; 'not found' (unknown bank or document) → ``missing`` when ``missing_ok``."""
        import aiohttp
        from hindsight_client_api.exceptions import ApiException

        try:
            return await make()
        except ApiException as exc:
            if exc.status == 404 and missing_ok:
                return missing
            raise HindsightError(f"Hindsight at {self.base_url} answered {exc.status}: "
                                 f"{(exc.body or exc.reason or '')!s:.300}") from exc
        except (aiohttp.ClientError, OSError) as exc:
            raise HindsightError(f"Hindsight at {self.base_url} is unreachable: {exc}") from exc

    def _stop_loop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        if not self._thread.is_alive():
            self._loop.close()

    def close(self) -> None:
        """Close the client's HTTP session on its own loop, then stop the loop thread. Idempotent."""
        with self._lock:
            if self._closed:
                return
            try:
                self._run(self._client.aclose())
            except HindsightError:
                pass
            finally:
                self._closed = True
                self._stop_loop()

    def __enter__(self) -> HindsightPeer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ async primitives
    async def _aretain(self, bank: str, document_id: str, text: str, metadata: dict[str, Any],
                       timestamp: str | None = None) -> None:
        meta = _str_metadata(metadata)
        await self._call(lambda: self._client.aretain(bank, text, document_id=document_id, metadata=meta,
                                                      timestamp=timestamp, update_mode="replace"))

    async def _alist(self, bank: str, document_id: str | None, offset: int = 0, limit: int = PAGE) -> Any:
        return await self._call(
            lambda: self._client.alist_memories(bank, document_id=document_id, state="valid", limit=limit,
                                                offset=offset), missing_ok=True)

    async def _avalue_of(self, bank: str, document_id: str) -> list[Memory]:
        page = await self._alist(bank, document_id)
        return _memories(page.items if page is not None else [])

    async def _ainvalidate(self, bank: str, document_id: str, reason: str) -> int:
        from hindsight_client_api.models.update_memory_request import UpdateMemoryRequest

        memories = await self._avalue_of(bank, document_id)
        for m in memories:
            request = UpdateMemoryRequest(state="invalidated", reason=reason)
            await self._call(lambda m=m, request=request: self._client.memory.update_memory(
                bank, m.memory_id, request, _request_timeout=self.timeout), missing_ok=True)
        return len(memories)

    async def _gather(self, coros: Iterable[Coroutine[Any, Any, T]]) -> list[T]:
        """Run calls concurrently, at most ``concurrency`` in flight (Hindsight embeds on every retain)."""
        gate = asyncio.Semaphore(self.concurrency)

        async def bounded(coro: Coroutine[Any, Any, T]) -> T:
            async with gate:
                return await coro

        return list(await asyncio.gather(*(bounded(c) for c in coros)))

    # ------------------------------------------------------------------ the interface
    def health(self) -> bool:
        """Whether the server answers its health check."""
        async def check() -> bool:
            try:
                await self._call(lambda: self._client.monitoring.health_endpoint_health_get())
                return True
            except HindsightError:
                return False
        return self._run(check())

    def retain(self, bank: str, document_id: str, text: str, metadata: dict[str, Any],
               timestamp: str | None = None) -> None:
        """Store ``text`` as document ``document_id`` of ``bank``, replacing what that document held."""
        self._run(self._aretain(bank, document_id, text, metadata, timestamp))

    def retain_many(self, bank: str, items: Sequence[tuple[str, str, dict[str, Any], str | None]]) -> None:
        """Several :meth:`retain` at once, ``(document_id, text, metadata, timestamp)`` each.

        Sent as batch requests of up to ``batch_size`` documents (each item carries its own document
        id, and each document is replaced as by :meth:`retain`): measured about twice as fast per
        document as concurrent single retains. Batches go one after another: concurrent batches were
        slower (measured 42 ms/document sequential vs 52–69 ms with 4–8 in flight).
        """
        async def one_batch(chunk: Sequence[tuple[str, str, dict[str, Any], str | None]]) -> None:
            batch = [{"content": t, "document_id": d, "metadata": _str_metadata(m), "timestamp": ts,
                      "update_mode": "replace"} for d, t, m, ts in chunk]
            await self._call(lambda: self._client.aretain_batch(bank, batch))

        async def all_batches() -> None:
            for i in range(0, len(items), self.batch_size):
                await one_batch(items[i:i + self.batch_size])

        self._run(all_batches(), bounded=False)

    def value_of(self, bank: str, document_id: str) -> list[Memory]:
        """Hindsight's active source memories for one document (empty when the bank or document is unknown)."""
        return self._run(self._avalue_of(bank, document_id))

    def values_of(self, bank: str, document_ids: Sequence[str]) -> dict[str, list[Memory]]:
        """:meth:`value_of` for several documents, concurrently."""
        found = self._run(self._gather(self._avalue_of(bank, d) for d in document_ids), bounded=False)
        return dict(zip(document_ids, found, strict=True))

    def documents(self, bank: str) -> dict[str, list[Memory]]:
        """Every active source memory of a bank grouped by document id (paged; one call per 1000)."""
        async def walk() -> dict[str, list[Memory]]:
            grouped: dict[str, list[Memory]] = {}
            offset = 0
            while True:
                page = await self._alist(bank, None, offset)
                if page is None:
                    return grouped
                for m in _memories(page.items):
                    if m.document_id:
                        grouped.setdefault(m.document_id, []).append(m)
                offset += len(page.items)
                if not page.items or offset >= page.total:
                    return grouped
        return self._run(walk(), bounded=False)

    def invalidate(self, bank: str, document_id: str, reason: str = "superseded in the medallion ledger") -> int:
        """Mark a document's active memories invalidated (kept for audit, out of recall). Returns how many."""
        return self._run(self._ainvalidate(bank, document_id, reason))

    def invalidate_many(self, bank: str, document_ids: Sequence[str],
                        reason: str = "superseded in the medallion ledger") -> int:
        """:meth:`invalidate` for several documents, concurrently. Returns the memories invalidated."""
        return sum(self._run(self._gather(self._ainvalidate(bank, d, reason) for d in document_ids), bounded=False))

    def delete(self, bank: str, document_id: str) -> bool:
        """Delete a document and its memories outright. False when there was nothing to delete."""
        async def go() -> bool:
            result = await self._call(lambda: self._client.documents.delete_document(
                bank, document_id, _request_timeout=self.timeout), missing_ok=True)
            return result is not None
        return self._run(go())

    def recall(self, bank: str, query: str, k: int = 5) -> list[dict[str, Any]]:
        """Hindsight's top ``k`` source memories for ``query`` (observations excluded: they are derived)."""
        async def go() -> list[dict[str, Any]]:
            resp = await self._call(lambda: self._client.arecall(bank, query, types=RECALL_TYPES), missing_ok=True)
            if resp is None:
                return []
            return [{"memory_id": r.id, "text": r.text, "document_id": r.document_id, "type": r.type,
                     "metadata": dict(r.metadata or {}), "mentioned_at": r.mentioned_at}
                    for r in resp.results[:k]]
        return self._run(go())


def _str_metadata(metadata: dict[str, Any]) -> dict[str, str]:
    """Hindsight's metadata is string-valued."""
    return {str(k): "" if v is None else str(v) for k, v in metadata.items()}


def _memories(items: Iterable[Any]) -> list[Memory]:
    """Source memories only, in chunk order (a long text is split into numbered chunks)."""
    found = [Memory(memory_id=i.id, document_id=i.document_id, text=i.text or "",
                    metadata={str(k): str(v) for k, v in (i.metadata or {}).items()},
                    fact_type=i.fact_type, chunk_id=i.chunk_id)
             for i in items if (i.fact_type in SOURCE_TYPES or i.fact_type is None)
             and (i.state or "valid") == "valid"]
    return sorted(found, key=lambda m: _chunk_index(m.chunk_id))


def _chunk_index(chunk_id: str | None) -> int:
    tail = (chunk_id or "").rsplit("_", 1)[-1]
    return int(tail) if tail.isdigit() else 0


# ---------------------------------------------------------------------- the ledger side
def ledger_facts(conn: psycopg.Connection, namespaces: Sequence[str] | None = None, *,
                 authoritative_only: bool = False, max_authority: int = 2,
                 fact_ids: Sequence[str] | None = None) -> list[LedgerFact]:
    """Ledger facts as served (people's overlays applied), optionally only the authoritative current ones."""
    extra = (_AUTHORITATIVE if authoritative_only else "") + (" AND f.fact_id = ANY(%(ids)s)" if fact_ids else "")
    rows = conn.execute(_FACTS_SQL.format(extra=extra), {"ns": list(namespaces) if namespaces else None,
                                                         "max_authority": max_authority,
                                                         "ids": list(fact_ids or [])})
    facts = []
    for (fact_id, ns, subject_id, predicate, cardinality, value, value_text, statement, valid_from, valid_to,
         authority, contested, overlays) in rows.fetchall():
        served_statement, served_value_text = statement, value_text
        if overlays:
            applied = [{**o, "span": tuple(o["span"])} for o in overlays]
            composed = compose({"statement": statement, "value": value}, applied)
            served_statement = composed["statement"]
            if isinstance(composed["value"], str):
                served_value_text = composed["value"]
            for exact in composed["_redacted"]:
                served_value_text = served_value_text.replace(exact, REDACTED)
        # a many-valued slot is keyed on the raw value, so an overlay never moves a fact to another document
        facts.append(LedgerFact(fact_id=fact_id, namespace=ns,
                                document_id=slot_id(ns, subject_id, predicate, cardinality, value_text),
                                subject_id=subject_id, predicate=predicate, value_text=served_value_text,
                                statement=served_statement, valid_from=valid_from, current=valid_to is None,
                                authority=authority, contested=contested))
    return facts


def _namespaces(conn: psycopg.Connection, namespaces: Sequence[str] | None) -> list[str]:
    if namespaces:
        return list(namespaces)
    return [r[0] for r in conn.execute("SELECT DISTINCT namespace FROM silver.facts ORDER BY 1").fetchall()]


def mirror(conn: psycopg.Connection, peer: HindsightPeer, namespaces: Sequence[str] | None = None,
           max_authority: int = 2) -> dict[str, Any]:
    """One-way mirror of authoritative current facts into Hindsight (A2). Returns counts and timings.

    Per namespace: Hindsight's documents are listed once; a slot is (re-)retained when Hindsight lacks
    it or holds another fact or wording for it (retain replaces the document), and skipped when it
    already holds this fact verbatim, so a re-mirror costs one listing plus the changes. Documents of
    ledger slots that have no authoritative current fact any more (superseded, contested, demoted)
    are invalidated. Documents Hindsight holds under ids the ledger never produced are left alone:
    the bank may be shared with agents writing their own memories.
    """
    started = time.perf_counter()
    counts = {"facts": 0, "retained": 0, "unchanged": 0, "invalidated_documents": 0, "invalidated_memories": 0}
    timings = {"ledger_s": 0.0, "list_s": 0.0, "retain_s": 0.0, "invalidate_s": 0.0}
    done_namespaces = []
    for ns in _namespaces(conn, namespaces):
        t = time.perf_counter()
        every = ledger_facts(conn, [ns], max_authority=max_authority)
        current = {f.document_id: f for f in every
                   if f.current and not f.contested and f.authority <= max_authority}
        gone = sorted({f.document_id for f in every} - set(current))
        timings["ledger_s"] += time.perf_counter() - t
        counts["facts"] += len(current)
        done_namespaces.append(ns)

        t = time.perf_counter()
        held = peer.documents(ns)
        timings["list_s"] += time.perf_counter() - t

        todo = [f for doc, f in current.items() if not _holds(held.get(doc, []), f)]
        counts["unchanged"] += len(current) - len(todo)
        t = time.perf_counter()
        if todo:
            peer.retain_many(ns, [(f.document_id, f.statement, f.metadata(), f.valid_from.isoformat()) for f in todo])
        timings["retain_s"] += time.perf_counter() - t
        counts["retained"] += len(todo)

        stale = [doc for doc in gone if held.get(doc)]
        t = time.perf_counter()
        if stale:
            counts["invalidated_memories"] += peer.invalidate_many(ns, stale)
        timings["invalidate_s"] += time.perf_counter() - t
        counts["invalidated_documents"] += len(stale)
    return {"namespaces": done_namespaces, **counts, "seconds": round(time.perf_counter() - started, 3),
            **{k: round(v, 3) for k, v in timings.items()}}


def _holds(memories: Sequence[Memory], fact: LedgerFact) -> bool:
    """Whether Hindsight already holds exactly this fact, as served, for its slot."""
    return bool(memories) and all(m.fact_id == fact.fact_id and m.metadata.get("statement_sha") == fact.statement_sha
                                  for m in memories) and _normal(" ".join(m.text for m in memories)) == _normal(
        fact.statement)


def _sample_key(seed: int, fact: LedgerFact) -> str:
    return hashlib.sha256(f"{seed}\x1f{fact.namespace}\x1f{fact.document_id}".encode()).hexdigest()


def sample_audit(conn: psycopg.Connection, peer: HindsightPeer, n: int = 20, seed: int = 0,
                 namespaces: Sequence[str] | None = None, max_authority: int = 2) -> list[dict[str, Any]]:
    """Draw ``n`` authoritative current slots and classify Hindsight's copy of each (A2).

    The sample is deterministic: slots are ranked by a hash of (seed, namespace, slot), so the same
    seed draws the same slots, and a slot once drawn stays drawn as the ledger grows.

    ``agree``: Hindsight's text is the ledger's current statement. ``stale``: it is a version of the
    slot the ledger has closed (by fact id, statement or value). ``disagree``: anything else.
    ``missing``: Hindsight holds nothing active for the slot.
    """
    every = ledger_facts(conn, namespaces, max_authority=max_authority)
    current = [f for f in every if f.current and not f.contested and f.authority <= max_authority]
    closed: dict[tuple[str, str], list[LedgerFact]] = {}
    for f in every:
        if not f.current:
            closed.setdefault((f.namespace, f.document_id), []).append(f)
    drawn = sorted(current, key=lambda f: _sample_key(seed, f))[:max(0, n)]
    drawn.sort(key=lambda f: (f.namespace, f.document_id))
    by_bank: dict[str, list[LedgerFact]] = {}
    for f in drawn:
        by_bank.setdefault(f.namespace, []).append(f)
    results = []
    for ns, facts in by_bank.items():
        held = peer.values_of(ns, [f.document_id for f in facts])
        for f in facts:
            results.append(classify(f, held[f.document_id], closed.get((ns, f.document_id), [])))
    return results


def classify(fact: LedgerFact, memories: Sequence[Memory], closed: Sequence[LedgerFact]) -> dict[str, Any]:
    """Compare Hindsight's memories for a slot with the ledger's current fact and its closed versions."""
    text = " ".join(m.text for m in memories)
    values = {m.metadata.get("value_text") for m in memories} - {None}
    values_seen = len(values) == 1
    hindsight_value = values.pop() if values_seen else (text or None)
    ids = {m.fact_id for m in memories} - {None}
    if not memories:
        status = "missing"
    elif _normal(text) == _normal(fact.statement):
        status = "agree"
    elif not ids & {fact.fact_id} and (
            ids & {c.fact_id for c in closed}
            or _normal(text) in {_normal(c.statement) for c in closed}
            or (hindsight_value is not None and values_seen and hindsight_value != fact.value_text
                and hindsight_value in {c.value_text for c in closed})):
        status = "stale"
    else:
        status = "disagree"
    return {"slot": fact.document_id, "namespace": fact.namespace, "fact_id": fact.fact_id,
            "ledger_value": fact.value_text, "ledger_statement": fact.statement,
            "hindsight_value": hindsight_value, "hindsight_text": text or None,
            "hindsight_fact_id": ",".join(sorted(ids)) or None, "status": status}


def as_findings(results: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The sample's non-agreeing slots as drift-report findings (``check = 'hindsight'``, A1 d)."""
    labels = {"disagree": "disagrees with", "missing": "is missing", "stale": "is stale against"}
    findings = []
    for r in results:
        if r["status"] == "agree":
            continue
        verb = labels[r["status"]]
        detail = (f"Hindsight {verb} the ledger for slot {r['slot']}: ledger {r['ledger_value']!r} "
                  f"(fact {r['fact_id']})" + (f", Hindsight {r['hindsight_value']!r}" if r["hindsight_value"] else ""))
        findings.append({"check": "hindsight", "severity": "warning", "namespace": r["namespace"],
                         "detail": detail, "status": r["status"], "slot": r["slot"], "fact_id": r["fact_id"]})
    return findings


def recall(peer: HindsightPeer, namespace: str, query: str, k: int = 5, *,
           conn: psycopg.Connection | None = None, max_authority: int = 2) -> list[dict[str, Any]]:
    """The Hindsight hop of the G5 cascade: Hindsight's answers as dicts with their ledger fact ids.

    Each answer carries ``statement``, ``document_id``, ``fact_id`` (from the mirror's metadata; None
    for memories the mirror did not write), ``value``, ``valid_from`` and ``hop = 'hindsight'``.

    With ``conn`` (the engine's ledger connection) Hindsight only ranks: answers whose fact the ledger
    does not hold as authoritative and current are dropped (a superseded fact is never served as
    current, nor a memory the mirror did not write), and the rest are served as the ledger serves them
    today (statement and value with overlays applied, so a redaction made since the last mirror still
    masks), marked ``verified``; Hindsight's own text stays in ``hindsight_statement``.
    """
    answers = []
    for r in peer.recall(namespace, query, k):
        meta = r["metadata"]
        answers.append({"statement": r["text"], "document_id": r["document_id"], "fact_id": meta.get("fact_id"),
                        "value": meta.get("value_text"), "valid_from": meta.get("valid_from"),
                        "memory_id": r["memory_id"], "type": r["type"], "namespace": namespace, "hop": "hindsight"})
    if conn is None:
        return answers
    ids = [a["fact_id"] for a in answers if a["fact_id"]]
    live = {f.fact_id: f for f in ledger_facts(conn, [namespace], authoritative_only=True,
                                               max_authority=max_authority, fact_ids=ids)} if ids else {}
    return [{**a, "statement": live[a["fact_id"]].statement, "value": live[a["fact_id"]].value_text,
             "hindsight_statement": a["statement"], "verified": True}
            for a in answers if a["fact_id"] in live]
