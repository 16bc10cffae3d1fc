"""The tool verbs on the command line: current, history, list, read, search, relate, follow, recall, remember."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from medallion.interfaces.cli.shared import (
    LISTED_COLUMNS,
    JsonOpt,
    NamespaceOpt,
    app,
    argument,
    checked_namespace,
    emit_json,
    fact_rows,
    iso_option,
    option,
    out,
    plain,
    show_rows,
    statement_rows,
    tool_session,
    visible,
)
from medallion.serve import verbs

AS_OF_DATE = "On the command line a date alone, e.g. 2026-11-10, means midnight UTC at its start."


@app.command("current")
def current_cmd(subject: Annotated[str, argument(verbs.Current, "subject")],
                predicate: Annotated[str, argument(verbs.Current, "predicate")], namespace: NamespaceOpt,
                as_json: JsonOpt = False) -> None:
    """Every open version of a slot (several for many-valued predicates or a contested pair)."""
    with tool_session() as tools:
        fact_rows(tools.current(subject, predicate, namespace=namespace), as_json, f"{subject} {predicate}")


@app.command("history")
def history_cmd(subject: Annotated[str, argument(verbs.History, "subject")],
                predicate: Annotated[str, argument(verbs.History, "predicate")], namespace: NamespaceOpt,
                as_json: JsonOpt = False) -> None:
    """All versions of a slot, ordered by valid_from."""
    with tool_session() as tools:
        fact_rows(tools.history(subject, predicate, namespace=namespace), as_json, f"history of {subject} {predicate}")


@app.command("list")
def list_cmd(
    namespace: NamespaceOpt,
    subject: Annotated[str | None, option(verbs.ListFacts, "subject")] = None,
    predicate: Annotated[str | None, option(verbs.ListFacts, "predicate")] = None,
    include_superseded: Annotated[bool, option(verbs.ListFacts, "include_superseded")] = False,
    limit: Annotated[int, option(verbs.ListFacts, "limit")] = 100,
    as_json: JsonOpt = False,
) -> None:
    """Facts of a namespace (current ones unless --include-superseded)."""
    with tool_session() as tools:
        rows = tools.list(namespace=namespace, subject=subject, predicate=predicate,
                          include_superseded=include_superseded, limit=limit)
    show_rows(rows, as_json, f"facts in {namespace}", LISTED_COLUMNS)  # a listing ranks nothing: no score


@app.command("read")
def read_cmd(
    fact_id: Annotated[str | None, argument(verbs.Read, "fact_id")] = None,
    path: Annotated[str | None, option(verbs.Read, "path")] = None,
    namespace: Annotated[str | None, option(verbs.Read, "namespace", "--namespace", "-n",
                                            callback=checked_namespace)] = None,
    as_json: JsonOpt = False,
) -> None:
    """One fact with its provenance and overlays, or a document's current version."""
    with tool_session() as tools:
        rows = tools.read(fact_id, path=path, namespace=namespace)
    if as_json:
        emit_json(rows)
        return
    for row in rows:
        if "content" in row:
            out.print(Text.assemble((visible(row["path"]), "bold"), f" @ {row['version_hash'][:12]}"))
            out.print(plain(row["content"], keep_lines=True))
            continue
        if row.get("withheld"):  # its data subject asked to forget it: no content, who asked
            out.print(plain(f"{row['fact_id']}: {row['statement']}"))
            continue
        out.print(plain(f"{row['statement']}  [{row['predicate']}, authority {row['authority']}, "
                        f"valid {(row['valid_from'] or '')[:10]} → {(row['valid_to'] or 'now')[:10]}]"))
        out.print(_provenance_table(row.get("provenance") or {}))
        for overlay in row.get("overlays", []):
            out.print(plain(f"  overlay {overlay['overlay_id']}: {overlay['action']} by {overlay['author']}"))


PROVENANCE_LABELS = {"bronze_event_id": "Bronze event", "namespace": "namespace", "source": "source",
                     "source_event_id": "source event id", "provenance_root": "provenance root"}


def _provenance_table(provenance: dict[str, Any]) -> Table:
    """Where a fact came from, one row per field: the Bronze event, its source and its root."""
    table = Table("provenance", "", show_header=False, box=None, padding=(0, 2, 0, 2))
    for key, value in provenance.items():
        table.add_row(plain(PROVENANCE_LABELS.get(key, key.replace("_", " "))), plain("" if value is None else value))
    return table


@app.command("search")
def search_cmd(
    query: Annotated[str, argument(verbs.Search, "query")],
    namespace: NamespaceOpt,
    k: Annotated[int, option(verbs.Search, "k", "-k")] = 10,
    as_of: Annotated[str | None, option(verbs.Search, "as_of", also=AS_OF_DATE)] = None,
    subject: Annotated[str | None, option(verbs.Search, "subject")] = None,
    predicate: Annotated[str | None, option(verbs.Search, "predicate")] = None,
    min_authority: Annotated[int | None, option(verbs.Search, "min_authority")] = None,
    include_superseded: Annotated[bool, option(verbs.Search, "include_superseded")] = False,
    every_item: Annotated[bool, typer.Option(
        "--every-item", help="Every matching fact and chunk (default: one result per source event).")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Hybrid search (vector + full text, fused) over facts and chunks, verified against the ledger.

    Each result is a different source event; its other facts and its chunk are under same_event."""
    when = iso_option(as_of, "--as-of", date_is_utc_midnight=True)
    with tool_session() as tools:
        rows = tools.search(query, namespace=namespace, k=k, as_of=when, subject=subject, predicate=predicate,
                            min_authority=min_authority, include_superseded=include_superseded,
                            per_event=not every_item)
    statement_rows(rows, as_json, f"search: {query}")


@app.command("relate")
def relate_cmd(a: Annotated[str, argument(verbs.Relate, "a")], b: Annotated[str, argument(verbs.Relate, "b")],
               namespace: NamespaceOpt, max_depth: Annotated[int, option(verbs.Relate, "max_depth")] = 3,
               as_json: JsonOpt = False) -> None:
    """How two entities are related (paths over current relations, each hop with its fact)."""
    with tool_session() as tools:
        paths = tools.relate(a, b, namespace=namespace, max_depth=max_depth)
    if as_json:
        emit_json(paths)
        return
    if not paths:
        out.print(plain(f"no relation between {a} and {b} within {max_depth} hops"))
    for path in paths:
        out.print(plain(" → ".join(path["path"]) + "   (" + "; ".join(f["statement"] or "" for f in path["facts"])
                        + ")"))


@app.command("follow")
def follow_cmd(
    entity: Annotated[str, argument(verbs.Follow, "entity")],
    predicates: Annotated[list[str], argument(verbs.Follow, "predicates")],
    namespace: NamespaceOpt,
    as_of: Annotated[str | None, option(verbs.Follow, "as_of", also=AS_OF_DATE)] = None,
    as_json: JsonOpt = False,
) -> None:
    """Follow a chain of predicates from an entity over current facts: each hop's facts, then the values."""
    with tool_session() as tools:
        walked = tools.follow(entity, predicates, namespace=namespace,
                              as_of=iso_option(as_of, "--as-of", date_is_utc_midnight=True))
    if as_json:
        emit_json(walked)
        return
    for i, hop in enumerate(walked["hops"], start=1):
        out.print(plain(f"{i}. {hop['key']}{' (inverse)' if hop['inverse'] else ''}"))
        for fact in hop["facts"]:
            out.print(plain(f"   {fact['statement']}  [{fact['fact_id'][:12]}]"))
        if not hop["facts"]:
            out.print("   nothing believed here", markup=False)
    out.print(plain("values: " + (", ".join(str(v) for v in walked["values"]) or "none")))


@app.command("recall")
def recall_cmd(query: Annotated[str, argument(verbs.Recall, "query")], namespace: NamespaceOpt,
               stakes: Annotated[str, option(verbs.Recall, "stakes")] = "low",
               as_json: JsonOpt = False) -> None:
    """The retrieval cascade (G5): says which hop answered."""
    with tool_session() as tools:
        answer = tools.recall(query, namespace=namespace, stakes=stakes)
    if as_json:
        emit_json(answer)
        return
    out.print(plain(f"hop: {answer['hop']} ({answer['reason']})"))
    for item in answer["answers"]:
        out.print(plain(f"  {item.get('statement') or ' → '.join(item.get('path', []))}"))


@app.command("remember")
def remember_cmd(
    namespace: NamespaceOpt,
    content: Annotated[str, option(verbs.Remember, "content")],
    kind: Annotated[str, option(verbs.Remember, "kind")] = "note",
    source_event_id: Annotated[str | None, option(verbs.Remember, "source_event_id")] = None,
    source: Annotated[str, option(verbs.Remember, "source")] = "cli",
    actor: Annotated[str | None, option(verbs.Remember, "actor")] = None,
    no_derive: Annotated[bool, typer.Option("--no-derive", help="Land in Bronze only; derive later.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Write one event to Bronze through the contract (and derive it)."""
    with tool_session() as tools:
        result = tools.remember(namespace=namespace, content=content, kind=kind, source=source,
                                source_event_id=source_event_id, actor=actor, derive_now=not no_derive)
    if as_json:
        emit_json(result)
        return
    out.print(plain(f"{result['status']}: event {result['event_id']} ({result['source']}/{result['source_event_id']})"))
    for outcome, facts in (result.get("beliefs") or {}).items():
        for fact in facts:
            out.print(plain(f"  {outcome}: {fact.get('statement')}  [{(fact.get('fact_id') or '')[:12]}]"))
