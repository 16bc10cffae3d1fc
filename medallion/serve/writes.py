"""The write verbs of the tools: remember, overlay (and its approvals), and asking to erase.

Every write goes to Bronze through the event contract on the session's engine login, capped by the
capability's maximum authority; the derivation then runs for the namespace, so a writer is answered
with what the memory now believes. Nothing here deletes: retracting an overlay, overwriting a
person's overlay and erasing an event are requests that another person approves (G7).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import psycopg

from medallion.bronze import erasure
from medallion.bronze.contract import OverlayPayload, TextQuoteSelector
from medallion.bronze.ingest import IngestResult, ingest_events, ingest_jsonl, overlay_actor
from medallion.serve import beliefs, capabilities, ids, served, verbs
from medallion.serve.session import Denied, Session, ToolError
from medallion.silver import overlays
from medallion.silver.derive import derive


class Writes(Session):
    """The write verbs; :class:`~medallion.serve.tools.Tools` adds the reads."""

    @verbs.serves(verbs.Remember)
    def remember(self, *, namespace: str, content: str, kind: str = "note", source: str | None = None,
                 source_event_id: str | None = None, actor: str | None = None, authority: int | None = None,
                 occurred_at: str | None = None, provenance_root: str | None = None,
                 metadata: dict[str, Any] | None = None, derive_now: bool = True) -> dict[str, Any]:
        """Write one event to Bronze through the B2 contract, then derive it (unless ``derive_now`` is False).

        The answer carries the event's key and, once derived, ``beliefs``: the facts the event added,
        those it superseded or put in dispute, what it repeated of what was already known
        (``skipped``) and what went to working memory (see ``serve/beliefs.py``). Writing the same
        event again answers with the same beliefs.
        """
        def run() -> dict[str, Any]:
            cap = self.authorize("remember", namespace)
            src = source or self.origin
            seid = source_event_id or hashlib.sha256(f"{kind}\n{content}".encode()).hexdigest()[:32]
            event = {
                "namespace": namespace, "source": src, "source_event_id": seid, "kind": kind, "content": content,
                "provenance_root": provenance_root or f"{src}://{seid}", "actor": actor or self.author(cap),
                "occurred_at": occurred_at or datetime.now(UTC).isoformat(), "metadata": metadata or {},
            }
            if authority is not None:
                event["authority"] = authority
            result = ingest_events(self.engine, [event], origin=self.origin,
                                   max_content_bytes=self.settings.max_content_bytes, **_limits(cap))
            outcome = _single_outcome(result)
            if outcome["status"] == "inserted" and derive_now:
                derive(self.engine, self.settings, namespaces=[namespace])
            written = {**outcome, "namespace": namespace, "source": src, "source_event_id": seid}
            if derive_now and outcome.get("event_id") is not None:
                written["beliefs"] = self._beliefs(namespace, outcome["event_id"], cap)
            return written
        return self.call("remember", namespace, None, run,
                         logged=lambda r: [r, *(r.get("beliefs") or {}).get("added", [])])

    @verbs.serves(verbs.Ingest)
    def ingest(self, *, data: bytes, origin: str, batch_size: int = 5000,
               progress: Callable[[int, int], None] | None = None) -> IngestResult:
        """Land a JSONL document of events in Bronze (``medallion ingest``), under the caller's capability.

        The same write path as :meth:`remember`: the remember verb, the capability's namespaces, its
        highest authority, and overlays only with its overlay verb and authored by its principal
        (``_limits``, enforced in ``bronze/ingest.py``). Nothing is derived here; the answer is the
        per-line outcome. ``progress(done, total)`` is called after each batch.
        """
        def run() -> IngestResult:
            cap = self.authorize_verb("remember")
            return ingest_jsonl(self.engine, data, origin=origin, max_content_bytes=self.settings.max_content_bytes,
                                batch_size=batch_size, progress=progress, **_limits(cap))
        return self.call("ingest", None, origin, run, logged=lambda _: [])

    def _beliefs(self, namespace: str, event_id: int, cap: capabilities.Capability | None) -> dict[str, Any]:
        """What the derivation made of one event; why not, when it parked the event."""
        with self.scope([namespace]) as conn:
            found: dict[str, Any] = beliefs.of_event(self.engine, conn, namespace, event_id,
                                                     may_read=cap is None or cap.allows("read", namespace))
        parked = self.engine.execute("SELECT step, reason FROM silver.derivation_failures WHERE bronze_event_id = %s "
                                     "ORDER BY last_attempt_at DESC LIMIT 1", (event_id,)).fetchone()
        if parked:
            found["not_derived"] = f"the {parked[0]} step failed ({parked[1]}); the next derivation retries it"
        return found

    @verbs.serves(verbs.Overlay)
    def overlay(self, fact_id: str, action: str, *, quote: str, text: str | None = None, note: str | None = None,
                prefix: str = "", suffix: str = "", reason: str | None = None) -> dict[str, Any]:
        """Edit, annotate or redact a span of a fact (G6). Overwriting a person's overlay needs approval.

        ``fact_id`` is the id or any unique prefix of it (``serve/ids.py``).
        """
        given = fact_id

        def run() -> dict[str, Any]:
            namespaces = self.readable("overlay")
            with self.scope(namespaces) as conn:
                fact_id = ids.resolve_fact(conn, given, where="in the namespaces this caller can overlay")
                row = conn.execute("SELECT namespace, statement, bronze_event_id, subject_id, predicate FROM "
                                   "silver.facts WHERE fact_id = %s", (fact_id,)).fetchone()
                namespace, statement, event_id, subject_id, pred = row
                existing = conn.execute(
                    "SELECT bronze_event_id, span_start, span_end FROM silver.overlays WHERE fact_id = %s AND status "
                    "IN ('anchored', 'reanchored') AND action <> 'annotate'", (fact_id,)).fetchall()
            cap = self.authorize("overlay", namespace)
            try:
                payload = OverlayPayload(fact_id=fact_id, action=action,  # type: ignore[arg-type]
                                         selector=TextQuoteSelector(exact=quote, prefix=prefix, suffix=suffix),
                                         text=text, note=note)
            except ValueError as exc:
                raise ToolError(f"invalid overlay: {str(exc).splitlines()[-1]}") from None
            span = overlays.locate(statement, quote, prefix, suffix)
            if span is None:
                raise ToolError(f"the quote {quote!r} is not in fact {fact_id}'s statement")
            hint = {"anchor": {"bronze_event_id": event_id, "subject_id": subject_id, "predicate": pred}}
            clash = [e for e, s, t in existing if action != "annotate" and s is not None and s < span[1]
                     and span[0] < t]
            if clash:
                approval_id = self._request_change("overlay_overwrite", clash[-1], fact_id, cap,
                                                   {"payload": payload.model_dump(), "metadata": hint}, reason)
                return {"status": "pending_approval", "approval_id": approval_id, "fact_id": fact_id,
                        "namespace": namespace,
                        "reason": "this span already carries a person's overlay; another person must approve"}
            return self._write_overlay(namespace, payload, hint, cap)
        return self.call("overlay", None, given, run)

    def _write_overlay(self, namespace: str, payload: OverlayPayload, metadata: dict[str, Any],
                       cap: capabilities.Capability | None, approval_id: int | None = None) -> dict[str, Any]:
        """Land an overlay event (authored by the caller's verified principal) and derive its namespace.

        With ``approval_id`` the event carries out that approval: the event and the decision, taken
        by ``gold.approve_overlay`` from the caller's token (or the administrative login for the local
        admin), commit together or not at all.
        """
        author = self.author(cap)
        if approval_id is not None:
            metadata = {**metadata, "approval_id": approval_id}
        content = payload.model_dump_json()
        seid = hashlib.sha256(f"{author}\n{content}\n{json.dumps(metadata, sort_keys=True)}".encode()).hexdigest()[:32]
        actor = overlay_actor(author)
        event = {"namespace": namespace, "source": "overlay", "source_event_id": seid, "kind": "overlay",
                 "content": content, "provenance_root": f"overlay://{payload.fact_id}", "actor": actor,
                 "occurred_at": datetime.now(UTC).isoformat(), "metadata": metadata}
        conn = self.engine if approval_id is None or cap is not None else self.admin_login()
        with conn.transaction():
            result = ingest_events(conn, [event], origin=self.origin, **_limits(cap, approved=approval_id is not None))
            outcome = _single_outcome(result)
            if approval_id is not None:
                if outcome["status"] != "inserted":
                    raise ToolError(f"approval request {approval_id} was already carried out by an earlier event")
                try:
                    conn.execute("SELECT gold.approve_overlay(%s, %s, %s, %s)",
                                 (approval_id, outcome.get("event_id"), self.token if cap else None,
                                  None if cap else author))
                except psycopg.errors.InsufficientPrivilege as exc:
                    raise Denied(_db_message(exc)) from None
                except psycopg.Error as exc:
                    raise ToolError(_db_message(exc)) from None
        if outcome["status"] in ("inserted", "duplicate"):
            derive(self.engine, self.settings, namespaces=[namespace])
            anchored = self.engine.execute(
                "SELECT status, fact_id FROM silver.overlays WHERE bronze_event_id = %s", (outcome.get("event_id"),)
            ).fetchone() if outcome.get("event_id") else None
            if anchored:
                outcome["anchor_status"], outcome["anchored_fact_id"] = anchored
        return {**outcome, "fact_id": payload.fact_id, "namespace": namespace, "action": payload.action}

    def _request_change(self, kind: str, overlay_event_id: int, fact_id: str, cap: capabilities.Capability | None,
                        proposal: dict[str, Any], reason: str | None) -> int:
        """File a request to overwrite or retract a person's overlay; returns its approval id.

        The database files it (``gold.request_overlay_change``) and names the requester itself, from
        the caller's token or, for the local admin, from the administrative login: no caller names who
        asked, and the approval later checks that its approver is another person.
        """
        conn, token, local = ((self.engine, self.token, None) if cap is not None else
                              (self.admin_login(), None, self.author(None)))
        try:
            return int(conn.execute("SELECT gold.request_overlay_change(%s, %s, %s, %s, %s, %s, %s)",
                                    (kind, overlay_event_id, fact_id, json.dumps(proposal), reason, token,
                                     local)).fetchone()[0])
        except psycopg.errors.InsufficientPrivilege as exc:
            raise Denied(_db_message(exc)) from None
        except psycopg.Error as exc:
            raise ToolError(_db_message(exc)) from None

    @verbs.serves(verbs.Retract)
    def retract(self, overlay_id: int, *, reason: str) -> dict[str, Any]:
        """Ask to delete a person's overlay (G7): a request another admin approves, never immediate."""
        def run() -> dict[str, Any]:
            namespaces = self.readable("overlay")
            with self.scope(namespaces) as conn:
                row = conn.execute(
                    "SELECT namespace, fact_id, target_fact_id, exact, prefix, suffix FROM silver.overlays "
                    "WHERE bronze_event_id = %s AND status IN ('anchored', 'reanchored', 'unanchored')",
                    (overlay_id,)).fetchone()
            if row is None:
                raise ToolError(f"no active overlay {overlay_id} this caller can retract")
            namespace, fact_id, target, exact, prefix, suffix = row
            cap = self.authorize("overlay", namespace)
            payload = OverlayPayload(fact_id=fact_id or target, action="annotate",
                                     selector=TextQuoteSelector(exact=exact, prefix=prefix, suffix=suffix),
                                     note=f"Retracts overlay {overlay_id}: {reason}")
            approval_id = self._request_change("overlay_retract", overlay_id, fact_id or target, cap,
                                               {"payload": payload.model_dump(), "metadata": {}}, reason)
            return {"status": "pending_approval", "approval_id": approval_id, "overlay_id": overlay_id,
                    "namespace": namespace, "reason": "retracting a person's overlay needs another person's approval"}
        return self.call("retract", None, str(overlay_id), run)

    @verbs.serves(verbs.Approve)
    def approve(self, approval_id: int) -> dict[str, Any]:
        """Approve a pending overlay overwrite or retraction (G7): needs ``admin`` and a second person.

        ``gold.approve_overlay`` decides: the approver is not the requester, and did not mint the
        requester's capability, directly or through a chain (migration 0024).
        """
        def run() -> dict[str, Any]:
            cap = self.check_token()
            if cap is not None and "admin" not in cap.verbs:
                raise Denied("approving needs the admin capability")
            row = self.engine.execute(
                "SELECT namespace, proposal, overlay_event_id, requested_by, status, kind FROM gold.approvals "
                "WHERE approval_id = %s", (approval_id,)).fetchone()
            if row is None or (cap is not None and not cap.allows("admin", row[0])):
                raise ToolError(f"no approval request {approval_id} this caller can decide")
            namespace, proposal, replaced, requested_by, status, kind = row
            if status != "pending":
                raise ToolError(f"approval request {approval_id} is already {status}")
            if requested_by == self.author(cap):
                raise Denied("the person who asked cannot approve their own request; another admin must")
            payload = OverlayPayload.model_validate(proposal["payload"])
            link = "retracts" if kind == "overlay_retract" else "replaces"
            written = self._write_overlay(namespace, payload, {**proposal["metadata"], link: replaced}, cap,
                                          approval_id=approval_id)
            return {**written, "approval_id": approval_id, "status": "approved"}
        return self.call("approve", None, str(approval_id), run)

    @verbs.serves(verbs.RequestErasure)
    def request_erasure(self, *, reason: str, event_id: int | None = None,
                        fact_id: str | None = None) -> dict[str, Any]:
        """Ask for an event to be erased (B7): a request that a different person with ``admin`` approves.

        The target is an event id, or a fact id (or a unique prefix of one), which stands for the
        event that stated it. Nothing is deleted here: the request is filed through
        ``bronze.request_erasure``, which verifies the requester inside the database (``admin`` in the
        event's namespace); the approval (``medallion erase approve``) deletes the event, keeps a
        tombstone and re-derives the namespace. The answer lists the facts the event stated, which go
        with it.
        """
        def run() -> dict[str, Any]:
            cap = self.check_token()
            where = "in the namespaces where this caller may ask for an erasure"
            scope = self.readable("admin")
            with self.scope(scope) as conn:
                target = event_id
                if fact_id is not None:
                    full = ids.resolve_fact(conn, fact_id, where=where)
                    target = conn.execute("SELECT bronze_event_id FROM silver.facts WHERE fact_id = %s",
                                          (full,)).fetchone()[0]
                row = conn.execute("SELECT namespace FROM gold.event_provenance WHERE event_id = %s",
                                   (target,)).fetchone()
                if row is None:
                    raise ToolError(f"no event {target} {where}")
                namespace = row[0]
                stated = [beliefs.brief(f) for f in served.served_facts(
                    conn, "f.bronze_event_id = %(event)s", {"event": target})]
            self.authorize("admin", namespace)
            conn_for, who = ((self.engine, {"token": self.token}) if cap is not None else
                             (self.admin_login(), {"token": None, "local_name": self.author(None)}))
            try:
                request_id = erasure.request_erasure(conn_for, int(target), reason.strip(), **who)
            except erasure.ErasureError as exc:
                raise (Denied if exc.denied else ToolError)(str(exc)) from None
            return {"status": "pending_approval", "request_id": request_id, "event_id": target,
                    "namespace": namespace, "requested_by": self.author(cap), "facts": stated,
                    "next": f"nothing is erased until a different person with the admin right approves request "
                            f"{request_id} (medallion erase approve {request_id})"}
        return self.call("request_erasure", None, fact_id or (str(event_id) if event_id is not None else None), run,
                         logged=lambda r: r["facts"])


def _limits(cap: capabilities.Capability | None, *, approved: bool = False) -> dict[str, Any]:
    """What a capability lets its holder write, as the arguments every write lands with (None: the local admin).

    Its namespaces, its highest authority, and overlays only with its overlay verb (or, ``approved``,
    an approval the caller may decide), authored by its principal: ``bronze/ingest.py`` enforces
    them, for every write of the tools alike.
    """
    if cap is None:
        return {}
    return {"max_authority": cap.max_authority, "allowed_namespaces": cap.namespaces, "writer": cap.principal,
            "may_overlay": approved or "overlay" in cap.verbs}


def _db_message(exc: psycopg.Error) -> str:
    """The database's one-sentence message of an error raised by one of the project's functions."""
    diag = getattr(exc, "diag", None)
    primary = diag.message_primary if diag is not None else None
    return primary or str(exc).splitlines()[0]


def _single_outcome(result: Any) -> dict[str, Any]:
    """The ingest outcome of one event as a small dict; a rejection or conflict is a ToolError."""
    [status] = result.statuses
    if status.status in ("rejected", "conflict"):
        raise ToolError(f"{status.status}: {status.reason or status.code}")
    return {"status": status.status, "event_id": status.event_id}
