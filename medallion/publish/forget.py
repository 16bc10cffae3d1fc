"""An approved erasure, carried through every copy: the one call that approves a request and leaves
nothing of what it erased for a search, a recall, the wiki or a mart to show.

Bronze's approval (:func:`medallion.bronze.erasure.approve`) deletes the events and leaves their
tombstones; the copies were elsewhere. In the same call this module then deletes the quarantined
lines, tool-call rows, Gold mart rows and drift details that name or quote them
(:func:`~medallion.bronze.erasure.forget_erased`, which finds them through the erased events' Silver
rows, so it runs before Silver is re-derived), re-derives the namespace (the Silver rows go), drops
the memoised model outputs and embeddings that only the erased content produced, closes requests
that the erasure left nothing to do (``superseded``) and recompiles the namespace's wiki pages.

It lives above ``serve`` because the wiki is rendered through the tools; the rest is the engine's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import psycopg

from medallion.bronze import erasure
from medallion.distill.types import EventInput
from medallion.publish.wiki import compile_wiki
from medallion.serve.tools import open_tools
from medallion.settings import Settings
from medallion.silver import chunks as chunking
from medallion.silver.derive import derive
from medallion.silver.distill_memo import cache_key
from medallion.silver.embed import text_hash
from medallion.silver.report import DeriveReport

# The events a pending request covers now: its one event, or every event of its actor or namespace.
_COVERED = (
    "SELECT e.event_id, e.namespace, e.source, e.source_event_id, e.kind, e.actor, e.content, e.occurred_at, "
    "e.received_at, e.authority, e.provenance_root, e.metadata "
    "FROM bronze.erasure_requests r LEFT JOIN bronze.erasure_scopes s USING (request_id) "
    "JOIN bronze.events e ON CASE WHEN r.event_id IS NOT NULL THEN e.event_id = r.event_id "
    "ELSE e.namespace = r.namespace AND (s.actor IS NULL OR e.actor = s.actor) END "
    "WHERE r.request_id = %s AND r.status = 'pending'"
)


@dataclass
class Forgotten:
    """What one approval erased and removed: the Bronze events, then the copies, by kind."""

    approved: erasure.Approved
    rederived: DeriveReport
    removed: dict[str, int] = field(default_factory=dict)
    superseded: int = 0
    wiki_pages: int | None = None  # pages of the namespace after the recompile; None: it had no wiki

    def as_dict(self) -> dict[str, object]:
        """Ids and counts only: what a command prints and a log may carry."""
        return {"request_id": self.approved.request_id, "namespace": self.approved.namespace,
                "event_id": self.approved.event_id, "actor": self.approved.actor, "erased": self.approved.erased,
                "removed": dict(self.removed), "superseded": self.superseded, "wiki_pages": self.wiki_pages,
                "rederived": {"namespace": self.approved.namespace, "events": self.rederived.events,
                              "facts": self.rederived.facts}}


def approve_and_forget(conn: psycopg.Connection, engine: psycopg.Connection, settings: Settings, request_id: int, *,
                       token: str | None, local_name: str | None = None,
                       progress: Callable[[int, int, int], None] | None = None) -> Forgotten:
    """Approve request ``request_id`` on ``conn`` (the approver identified as in
    :func:`medallion.bronze.erasure.approve`) and remove every copy of what it erased, on the engine
    login ``engine``. Refusals are :class:`~medallion.bronze.erasure.ErasureError`, before anything goes."""
    covered = _covered_events(engine, request_id)  # read now: their content is gone once approved
    done = erasure.approve(conn, request_id, token=token, local_name=local_name)
    erased = {r[0] for r in engine.execute("SELECT event_id FROM bronze.tombstones WHERE request_id = %s",
                                           (request_id,))}
    gone = [e for e in covered if e.event_id in erased]
    facts = [r[0] for r in engine.execute("SELECT fact_id FROM silver.facts WHERE bronze_event_id = ANY(%s)",
                                          (sorted(erased),))]
    embedded_before = _embedded(engine, done.namespace)
    distill_keys = {cache_key(e) for e in gone}
    embedded_before |= _memoised_statements(engine, distill_keys)
    removed = erasure.forget_erased(engine, request_id)
    cached = _drop_cache(engine, distill_keys, facts)
    report = derive(engine, settings, namespaces=[done.namespace], progress=progress)
    cached += _drop_cache(engine, embedded_before - _embedded(engine, done.namespace), [])
    removed["derivation_cache"] = cached
    superseded = erasure.close_superseded(engine)
    return Forgotten(done, report, removed, superseded, _recompile_wiki(settings, engine, done.namespace))


def _covered_events(engine: psycopg.Connection, request_id: int) -> list[EventInput]:
    """The events request ``request_id`` covers, as the derivation reads them (the memo keys need them)."""
    rows = engine.execute(_COVERED, (request_id,)).fetchall()
    if not engine.autocommit:
        engine.commit()
    return [EventInput(*row[:11], metadata=row[11] or {}) for row in rows]


def _embedded(engine: psycopg.Connection, namespace: str) -> set[str]:
    """The embedding memo keys the namespace's Silver rows use: every statement, and every chunk with
    the context it was embedded with."""
    keys = {text_hash(r[0]) for r in engine.execute(
        "SELECT statement FROM silver.facts WHERE namespace = %(ns)s "
        "UNION SELECT statement FROM silver.working_memory WHERE namespace = %(ns)s", {"ns": namespace})}
    keys |= {text_hash(chunking.embed_text(r[0], r[1])) for r in engine.execute(
        "SELECT context, text FROM silver.chunks WHERE namespace = %s", (namespace,))}
    if not engine.autocommit:
        engine.commit()
    return keys


def _memoised_statements(engine: psycopg.Connection, distill_keys: Iterable[str]) -> set[str]:
    """Embedding memo keys of every statement the memoised distiller outputs hold, including those
    no fact kept (a skipped duplicate's statement is embedded all the same)."""
    rows = engine.execute("SELECT output FROM silver.derivation_cache WHERE input_hash = ANY(%s) "
                          "AND jsonb_typeof(output) = 'array'", (sorted(distill_keys),)).fetchall()
    if not engine.autocommit:
        engine.commit()
    return {text_hash(c["statement"]) for (output,) in rows for c in output
            if isinstance(c, dict) and isinstance(c.get("statement"), str)}


def _drop_cache(engine: psycopg.Connection, keys: Iterable[str], facts: list[str]) -> int:
    """Delete memoised outputs under any fingerprint: those of ``keys``, and model verdicts that chose
    one of ``facts``. A text another namespace shares is embedded again when that namespace needs it."""
    with engine.transaction():
        cur = engine.execute(
            "DELETE FROM silver.derivation_cache WHERE input_hash = ANY(%s) "
            "OR (cardinality(%s::text[]) > 0 AND output ->> 'target_fact_id' = ANY(%s))",
            (sorted(keys), facts, facts))
    return cur.rowcount


def _recompile_wiki(settings: Settings, engine: psycopg.Connection, namespace: str) -> int | None:
    """Render the namespace's wiki pages again (a page naming an erased fact is rewritten or removed),
    when the namespace has a compiled wiki; the number of its pages, or None."""
    compiled = engine.execute("SELECT count(*) FROM gold.wiki_pages WHERE namespace = %s", (namespace,)).fetchone()
    if not engine.autocommit:
        engine.commit()
    if not (compiled and compiled[0]) and not (settings.wiki_root / namespace).is_dir():
        return None
    with open_tools(None, settings) as tools:
        result = compile_wiki(settings, engine, tools, [namespace])
    return len(result.pages)
