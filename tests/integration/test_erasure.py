"""Erasure: a request and an approval by two different principals, both verified by the database.

A principal is the holder of a valid capability token that grants ``admin`` in the event's
namespace, checked inside ``bronze.request_erasure`` / ``bronze.approve_erasure``; without a token
only the administrative login acts, as ``local:<user>``. No caller can name someone else: the
engine login that once deleted an event by passing ``'agent:escalated2'`` as the approver now gets
a refusal, and so does the local admin approving its own request under another name. The same
holds for a request of every event of one actor, or of a whole namespace.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest

from medallion.bronze import erasure
from medallion.bronze.erasure import ErasureError, approve_erasure, list_requests, request_erasure
from medallion.bronze.ingest import ingest_events
from medallion.bronze.integrity import verify
from medallion.serve.capabilities import grant, revoke

NS = "team-a"
OTHER = "team-b"
LOCAL = "local:tester"


def _event(i: int, ns: str = NS) -> dict[str, Any]:
    return {"namespace": ns, "source": "slack", "source_event_id": f"C01/{i}", "kind": "transcript",
            "actor": "user:alice", "content": f"message number {i} in {ns}", "provenance_root": f"slack://C01/p{i}"}


@pytest.fixture
def ids(engine_conn: psycopg.Connection) -> dict[str, list[int]]:
    """Four events in each of two namespaces; their ids per namespace."""
    result = ingest_events(engine_conn, [_event(i) for i in range(4)] + [_event(i, OTHER) for i in range(4)])
    ids = [s.event_id for s in result.statuses]
    return {NS: ids[:4], OTHER: ids[4:]}


def _token(admin_conn: psycopg.Connection, principal: str, verbs: list[str], namespaces: list[str],
           **kwargs: Any) -> str:
    return grant(admin_conn, principal=principal, verbs=verbs, namespaces=namespaces, created_by="test", **kwargs)[1]


def _exists(admin_conn: psycopg.Connection, event_id: int) -> bool:
    return admin_conn.execute("SELECT count(*) FROM bronze.events WHERE event_id = %s", (event_id,)).fetchone()[0] == 1


def test_erasure_needs_another_admin_and_leaves_a_tombstone(
    engine_conn: psycopg.Connection, admin_conn: psycopg.Connection, ids: dict[str, list[int]]
) -> None:
    """B7: alice asks, alice cannot approve, bob needs admin on the namespace; then the row goes, a tombstone stays."""
    alice = _token(admin_conn, "user:alice", ["admin"], [NS])
    target = ids[NS][2]
    key = admin_conn.execute("SELECT namespace, source, source_event_id, kind, content_hash, chain_hash "
                             "FROM bronze.events WHERE event_id = %s", (target,)).fetchone()
    request_id = request_erasure(engine_conn, target, "user asked to be forgotten", token=alice)
    assert list_requests(engine_conn, "pending")[0]["requested_by"] == "user:alice"
    with pytest.raises(ErasureError, match="cannot approve their own") as own:
        approve_erasure(engine_conn, request_id, token=alice)
    assert own.value.denied
    bob_elsewhere = _token(admin_conn, "user:bob", ["admin"], [OTHER])
    bob_no_admin = _token(admin_conn, "user:bob", ["search", "read", "list", "remember"], [NS])
    for token in (bob_elsewhere, bob_no_admin):
        with pytest.raises(ErasureError, match="admin") as refused:
            approve_erasure(engine_conn, request_id, token=token)
        assert refused.value.denied
    assert _exists(admin_conn, target)

    bob = _token(admin_conn, "user:bob", ["admin"], [NS])
    assert approve_erasure(engine_conn, request_id, token=bob) == target
    assert not _exists(admin_conn, target)
    tomb = admin_conn.execute(
        "SELECT namespace, source, source_event_id, kind, content_hash, chain_hash, requested_by, approved_by, reason "
        "FROM bronze.tombstones WHERE event_id = %s", (target,)).fetchone()
    assert tomb[:6] == key and tomb[6:] == ("user:alice", "user:bob", "user asked to be forgotten")
    assert verify(engine_conn) == []
    with pytest.raises(ErasureError, match="already executed"):
        approve_erasure(engine_conn, request_id, token=bob)


def test_a_search_token_cannot_file_an_erasure_in_another_namespace(
    engine_conn: psycopg.Connection, admin_conn: psycopg.Connection, ids: dict[str, list[int]]
) -> None:
    """Security issue point 2: a search-only token of one namespace filed a request for another's event.

    Requesting needs admin in the event's namespace; a foreign event and a missing one get the same
    answer, so the refusal reveals nothing about other namespaces.
    """
    searcher = _token(admin_conn, "agent:reader", ["search"], [NS])
    atlas_admin = _token(admin_conn, "user:atlas-admin", ["admin"], [NS])
    foreign = ids[OTHER][0]
    missing = max(ids[OTHER]) + 10_000
    for token, event in ((searcher, foreign), (searcher, ids[NS][0]), (atlas_admin, foreign)):
        with pytest.raises(ErasureError, match="no event .* this capability may erase") as refused:
            request_erasure(engine_conn, event, "take it", token=token)
        assert refused.value.denied
    with pytest.raises(ErasureError) as on_missing:
        request_erasure(engine_conn, missing, "take it", token=atlas_admin)
    with pytest.raises(ErasureError) as on_foreign:
        request_erasure(engine_conn, foreign, "take it", token=atlas_admin)
    assert str(on_missing.value).replace(str(missing), "N") == str(on_foreign.value).replace(str(foreign), "N")
    assert list_requests(engine_conn) == []


def test_no_caller_can_name_the_approver(
    engine_conn: psycopg.Connection, admin_conn: psycopg.Connection, ids: dict[str, list[int]]
) -> None:
    """Security issue point 3: the two-person rule is not a string.

    The engine login cannot pass a name where a token is expected (the attack
    ``bronze.approve_erasure(2, 'agent:escalated2')``), nor act as the local admin; the local admin
    cannot approve its own request, whatever name it gives the second time.
    """
    _token(admin_conn, "agent:escalated2", ["admin"], ["*"])  # a real principal of that name exists
    target = ids[NS][1]
    request_id = request_erasure(admin_conn, target, "mine", token=None, local_name=LOCAL)
    with pytest.raises(ErasureError, match="not a valid capability"):
        approve_erasure(engine_conn, request_id, token="agent:escalated2")
    with pytest.raises(psycopg.errors.InsufficientPrivilege), engine_conn.transaction():
        engine_conn.execute("SELECT bronze.approve_erasure(%s, NULL, 'local:someone-else')", (request_id,))
    with pytest.raises(ErasureError, match="cannot approve their own"):
        approve_erasure(admin_conn, request_id, token=None, local_name=LOCAL)
    with pytest.raises(ErasureError, match="administrative login"):
        approve_erasure(engine_conn, request_id, token=None, local_name="local:other-admin")
    assert _exists(admin_conn, target)
    # A real second person, with a token of their own, approves.
    approver = _token(admin_conn, "user:other-admin", ["admin"], [NS])
    assert approve_erasure(engine_conn, request_id, token=approver) == target
    assert admin_conn.execute("SELECT requested_by, approved_by FROM bronze.tombstones WHERE event_id = %s",
                              (target,)).fetchone() == (LOCAL, "user:other-admin")


def test_two_local_names_are_not_two_people(
    engine_conn: psycopg.Connection, admin_conn: psycopg.Connection, ids: dict[str, list[int]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Rule 3: the local admin's name comes from its user id, not from USER; and any two `local:` names are one
    administrative login, so the second approval must come with a token."""
    from medallion.serve.capabilities import local_principal

    before = local_principal()
    monkeypatch.setenv("USER", "someone-else")
    monkeypatch.setenv("LOGNAME", "someone-else")
    assert local_principal() == before
    request_id = request_erasure(admin_conn, ids[NS][0], "mine", token=None, local_name="local:alice")
    with pytest.raises(ErasureError, match="cannot approve their own"):
        approve_erasure(admin_conn, request_id, token=None, local_name="local:bob")
    assert _exists(admin_conn, ids[NS][0])


def test_expired_or_revoked_admin_cannot_approve(
    engine_conn: psycopg.Connection, admin_conn: psycopg.Connection, ids: dict[str, list[int]]
) -> None:
    """B7: only a currently valid admin capability approves; expired and revoked ones are refused."""
    target = ids[NS][0]
    request_id = request_erasure(admin_conn, target, "privacy", token=None, local_name=LOCAL)
    expired = _token(admin_conn, "user:carol", ["admin"], [NS], expires_at=datetime.now(UTC) + timedelta(minutes=5))
    admin_conn.execute("UPDATE auth.capabilities SET expires_at = clock_timestamp() - interval '5 minutes' "
                       "WHERE principal = 'user:carol'")  # a grant cannot be made already expired
    cap_id, revoked = grant(admin_conn, principal="user:dave", verbs=["admin"], namespaces=[NS], created_by="test")
    assert revoke(admin_conn, cap_id)
    for token in (expired, revoked):
        with pytest.raises(ErasureError, match="not a valid capability"):
            approve_erasure(engine_conn, request_id, token=token)
    assert _exists(admin_conn, target)
    fresh = _token(admin_conn, "user:erin", ["admin"], [NS], expires_at=datetime.now(UTC) + timedelta(hours=1))
    assert approve_erasure(engine_conn, request_id, token=fresh) == target
    assert verify(engine_conn) == []


def test_missing_and_duplicate_requests_are_refused(
    engine_conn: psycopg.Connection, admin_conn: psycopg.Connection, ids: dict[str, list[int]]
) -> None:
    """B7: a request for an event that does not exist, or a second pending one, is refused; nothing recorded."""
    with pytest.raises(ErasureError, match="does not exist"):
        request_erasure(admin_conn, max(ids[OTHER]) + 10_000, "no such event", token=None, local_name=LOCAL)
    with pytest.raises(ErasureError, match="does not exist"):
        approve_erasure(admin_conn, 987_654, token=None, local_name=LOCAL)
    request_erasure(admin_conn, ids[NS][0], "first", token=None, local_name=LOCAL)
    with pytest.raises(ErasureError, match="already pending"):
        request_erasure(admin_conn, ids[NS][0], "second", token=None, local_name=LOCAL)
    assert len(list_requests(engine_conn)) == 1


def test_erasure_list_is_filtered_to_the_callers_namespaces(
    engine_conn: psycopg.Connection, admin_conn: psycopg.Connection, ids: dict[str, list[int]]
) -> None:
    """Security issue point 2: `erase list` showed every namespace's requests and reasons to any token."""
    request_erasure(admin_conn, ids[NS][0], "atlas reason", token=None, local_name=LOCAL)
    request_erasure(admin_conn, ids[OTHER][0], "borealis secret reason", token=None, local_name=LOCAL)
    assert {r["namespace"] for r in list_requests(engine_conn, namespaces=[NS])} == {NS}
    assert {r["namespace"] for r in list_requests(engine_conn, namespaces=["*"])} == {NS, OTHER}


# ------------------------------------------------- every event of one actor, or of a whole namespace
def _actor_events(engine_conn: psycopg.Connection) -> dict[str, list[int]]:
    """Events of alice and bob in NS, and one of alice in OTHER; their ids by (actor, namespace) label."""
    events = [{**_event(10 + i), "actor": "user:alice"} for i in range(3)]
    events += [{**_event(20 + i), "actor": "user:bob"} for i in range(2)]
    events += [{**_event(30, OTHER), "actor": "user:alice"}]
    ids = [s.event_id for s in ingest_events(engine_conn, events).statuses]
    return {"alice": ids[:3], "bob": ids[3:5], "alice-other": ids[5:]}


def _live(admin_conn: psycopg.Connection, ns: str) -> set[int]:
    return {r[0] for r in admin_conn.execute("SELECT event_id FROM bronze.events WHERE namespace = %s", (ns,))}


def test_an_actors_events_go_in_one_request_and_one_approval(
    engine_conn: psycopg.Connection, admin_conn: psycopg.Connection
) -> None:
    """Every event of one actor in one namespace: one request, one approval by another admin, a tombstone
    for each event naming the request; the actor's events elsewhere and everyone else's stay."""
    ids = _actor_events(engine_conn)
    alice = _token(admin_conn, "user:alice", ["admin"], [NS])
    request_id = erasure.request_scope(engine_conn, NS, "data-subject request", actor="user:alice", token=alice)
    [listed] = list_requests(engine_conn, "pending")
    assert (listed["scope"], listed["actor"], listed["event_id"], listed["events"]) == ("actor", "user:alice", None, 3)
    with pytest.raises(ErasureError, match="cannot approve their own") as own:
        erasure.approve(engine_conn, request_id, token=alice)
    assert own.value.denied
    elsewhere = _token(admin_conn, "user:bob", ["admin"], [OTHER])
    with pytest.raises(ErasureError, match="no erasure request .* this capability may approve") as refused:
        erasure.approve(engine_conn, request_id, token=elsewhere)
    assert refused.value.denied and _live(admin_conn, NS) >= set(ids["alice"])

    bob = _token(admin_conn, "user:bob", ["admin"], [NS])
    done = erasure.approve(engine_conn, request_id, token=bob)
    assert (done.namespace, done.erased, done.event_id, done.actor) == (NS, 3, None, "user:alice")
    assert _live(admin_conn, NS) == set(ids["bob"]) and _live(admin_conn, OTHER) == set(ids["alice-other"])
    tombs = admin_conn.execute("SELECT event_id, request_id, requested_by, approved_by FROM bronze.tombstones "
                               "ORDER BY event_id").fetchall()
    assert tombs == [(i, request_id, "user:alice", "user:bob") for i in ids["alice"]]
    assert verify(engine_conn) == []
    [executed] = list_requests(engine_conn, "executed")
    assert executed["events"] == 3 and executed["approved_by"] == "user:bob"
    with pytest.raises(ErasureError, match="already executed"):
        erasure.approve(engine_conn, request_id, token=bob)


def test_a_whole_namespace_goes_and_the_chain_still_verifies(
    engine_conn: psycopg.Connection, admin_conn: psycopg.Connection, ids: dict[str, list[int]]
) -> None:
    """Every event of a namespace: the local admin asks, an admin token approves; the namespace is empty,
    each event has its tombstone, another namespace is untouched, and an erased key cannot come back."""
    request_id = erasure.request_scope(admin_conn, NS, "tenant left", actor=None, token=None, local_name=LOCAL)
    with pytest.raises(ErasureError, match="cannot approve their own"):
        erasure.approve(admin_conn, request_id, token=None, local_name="local:someone-else")
    done = erasure.approve(engine_conn, request_id, token=_token(admin_conn, "user:ops", ["admin"], [NS]))
    assert (done.erased, done.actor, done.namespace) == (4, None, NS)
    assert _live(admin_conn, NS) == set() and _live(admin_conn, OTHER) == set(ids[OTHER])
    assert admin_conn.execute("SELECT count(*) FROM bronze.tombstones WHERE request_id = %s",
                              (request_id,)).fetchone()[0] == 4
    assert verify(engine_conn) == []
    again = ingest_events(engine_conn, [_event(0)])
    assert again.statuses[0].status == "rejected" and again.statuses[0].code == "erased"


def test_a_scope_that_matches_nothing_or_is_pending_is_one_sentence(
    engine_conn: psycopg.Connection, admin_conn: psycopg.Connection, ids: dict[str, list[int]]
) -> None:
    """No event of the actor, an empty namespace, a second identical request: refused, nothing recorded.
    A token without admin there gets the same answer whether the namespace holds events or not."""
    for actor, namespace, message in (("user:nobody", NS, "actor user:nobody has no events in namespace team-a"),
                                      (None, "team-empty", "namespace team-empty has no events to erase")):
        with pytest.raises(ErasureError, match=message) as caught:
            erasure.request_scope(admin_conn, namespace, "r", actor=actor, token=None, local_name=LOCAL)
        assert not caught.value.denied and "\n" not in str(caught.value)
    searcher = _token(admin_conn, "agent:reader", ["search", "admin"], [OTHER])
    answers = set()
    for namespace in (NS, "team-empty"):
        with pytest.raises(ErasureError) as refused:
            erasure.request_scope(engine_conn, namespace, "r", actor=None, token=searcher)
        assert refused.value.denied
        answers.add(str(refused.value).replace(namespace, "N"))
    assert len(answers) == 1
    first = erasure.request_scope(admin_conn, NS, "r", actor="user:alice", token=None, local_name=LOCAL)
    with pytest.raises(ErasureError, match=f"already pending approval \\(request {first}\\)"):
        erasure.request_scope(admin_conn, NS, "again", actor="user:alice", token=None, local_name=LOCAL)
    assert [r["request_id"] for r in list_requests(engine_conn)] == [first]


def test_a_scope_covers_what_matches_at_approval_and_only_its_approval_deletes(
    engine_conn: psycopg.Connection, admin_conn: psycopg.Connection
) -> None:
    """An event of the actor that lands after the request is erased by its approval (the request names the
    actor, not a list); the single-event and the scoped approvals do not take each other's requests; and
    the delete guard lets a scoped request remove only the rows it tombstoned."""
    ids = _actor_events(engine_conn)
    request_id = erasure.request_scope(admin_conn, NS, "r", actor="user:alice", token=None, local_name=LOCAL)
    [late] = [s.event_id for s in ingest_events(engine_conn, [{**_event(40), "actor": "user:alice"}]).statuses]
    approver = _token(admin_conn, "user:bob", ["admin"], [NS])
    with pytest.raises(ErasureError, match="covers a scope"):
        approve_erasure(engine_conn, request_id, token=approver)
    single = request_erasure(admin_conn, ids["bob"][0], "r", token=None, local_name=LOCAL)
    with pytest.raises(psycopg.errors.InvalidParameterValue, match="names one event"), engine_conn.transaction():
        engine_conn.execute("SELECT bronze.approve_erasure_scope(%s, %s)", (single, approver))
    with pytest.raises(psycopg.errors.InsufficientPrivilege, match="DELETE on bronze.events is not allowed"), \
            admin_conn.transaction():
        admin_conn.execute("UPDATE bronze.erasure_requests SET approved_by = 'user:bob' WHERE request_id = %s",
                           (request_id,))
        admin_conn.execute("SELECT set_config('medallion.erasure_request', %s, true)", (str(request_id),))
        admin_conn.execute("DELETE FROM bronze.events WHERE event_id = %s", (ids["alice"][0],))  # no tombstone
    done = erasure.approve(engine_conn, request_id, token=approver)
    assert done.erased == 4 and not _live(admin_conn, NS) & {*ids["alice"], late}
    assert verify(engine_conn) == []


# ------------------------------------------------- requests closed without an approval (issue 30, point 6)
def test_a_request_whose_events_an_actor_erasure_took_is_closed_as_superseded(
    engine_conn: psycopg.Connection, admin_conn: psycopg.Connection
) -> None:
    """A request for one event stayed pending forever ("event 55 no longer exists") once an erasure of its
    actor had removed the event: now its approval says so and closes it, and listing closes the others."""
    ids = _actor_events(engine_conn)
    first = request_erasure(admin_conn, ids["alice"][0], "r", token=None, local_name=LOCAL)
    second = request_erasure(admin_conn, ids["alice"][1], "r", token=None, local_name=LOCAL)
    kept = request_erasure(admin_conn, ids["bob"][0], "r", token=None, local_name=LOCAL)
    scoped = erasure.request_scope(admin_conn, NS, "r", actor="user:alice", token=None, local_name=LOCAL)
    bob = _token(admin_conn, "user:bob", ["admin"], [NS])
    assert erasure.approve(engine_conn, scoped, token=bob).erased == 3
    with pytest.raises(ErasureError, match=f"event {ids['alice'][0]} no longer exists.*request {first} is closed "
                                           "as superseded") as gone:
        erasure.approve(engine_conn, first, token=bob)
    assert not gone.value.denied and "\n" not in str(gone.value)
    status = {r["request_id"]: (r["status"], r["closed_by"]) for r in list_requests(engine_conn)}
    assert status[first] == status[second] == ("superseded", "superseded")  # both closed at once
    assert status[kept] == ("pending", None) and status[scoped][0] == "executed"
    with pytest.raises(ErasureError, match=f"erasure request {first} was superseded"):
        erasure.approve(engine_conn, first, token=bob)
    assert erasure.close_superseded(engine_conn) == 0


def test_a_pending_request_can_be_cancelled_by_an_admin_of_its_namespace(
    engine_conn: psycopg.Connection, admin_conn: psycopg.Connection, ids: dict[str, list[int]]
) -> None:
    """`erase cancel`: the requester or another admin of the namespace closes a pending request; nothing
    is erased, it cannot be approved afterwards, and the event may be requested again."""
    target = ids[NS][0]
    request_id = request_erasure(admin_conn, target, "r", token=None, local_name=LOCAL)
    outsider = _token(admin_conn, "user:eve", ["admin"], [OTHER])
    with pytest.raises(ErasureError, match=f"no erasure request {request_id} this capability may cancel") as refused:
        erasure.cancel(engine_conn, request_id, token=outsider)
    assert refused.value.denied
    with pytest.raises(ErasureError, match="erasure request 987654 does not exist"):
        erasure.cancel(admin_conn, 987_654, token=None, local_name=LOCAL)
    assert erasure.cancel(admin_conn, request_id, token=None, local_name=LOCAL) == LOCAL
    bob = _token(admin_conn, "user:bob", ["admin"], [NS])
    with pytest.raises(ErasureError, match=f"erasure request {request_id} was cancelled"):
        erasure.approve(engine_conn, request_id, token=bob)
    with pytest.raises(ErasureError, match="already cancelled"):
        erasure.cancel(engine_conn, request_id, token=bob)
    assert _exists(admin_conn, target)
    [listed] = list_requests(engine_conn, "cancelled")
    assert listed["closed_by"] == LOCAL and listed["approved_by"] is None
    again = request_erasure(admin_conn, target, "r", token=None, local_name=LOCAL)
    assert erasure.approve(engine_conn, again, token=bob).event_id == target


def test_quarantined_lines_leave_only_with_their_executed_erasure(
    engine_conn: psycopg.Connection, admin_conn: psycopg.Connection, ids: dict[str, list[int]]
) -> None:
    """Issue 30, point 5: a conflicting copy of an erased event kept its raw line in quarantine. Its
    approval now takes it; no one else can delete quarantine, not the superuser with a pending request
    or another namespace's executed one."""
    conflict = ingest_events(engine_conn, [{**_event(0), "content": "a different message 0"}])
    assert conflict.statuses[0].status == "conflict"
    request_id = request_erasure(admin_conn, ids[NS][0], "r", token=None, local_name=LOCAL)
    with pytest.raises(psycopg.errors.InvalidParameterValue, match="has not been executed"):
        erasure.forget_erased(engine_conn, request_id)
    elsewhere = request_erasure(admin_conn, ids[OTHER][0], "r", token=None, local_name=LOCAL)
    erasure.approve(engine_conn, elsewhere, token=_token(admin_conn, "user:eve", ["admin"], [OTHER]))
    for pretend in (request_id, elsewhere):
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="DELETE on bronze.quarantine"), \
                admin_conn.transaction():
            admin_conn.execute("SELECT set_config('medallion.erasure_forget', %s, true)", (str(pretend),))
            admin_conn.execute("DELETE FROM bronze.quarantine WHERE namespace = %s", (NS,))
    erasure.approve(engine_conn, request_id, token=_token(admin_conn, "user:bob", ["admin"], [NS]))
    assert erasure.forget_erased(engine_conn, request_id)["quarantine"] == 1
    assert admin_conn.execute("SELECT count(*) FROM bronze.quarantine").fetchone()[0] == 0
