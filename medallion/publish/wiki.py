"""The compiled wiki (G10): Markdown pages rendered from the ledger, a build artifact.

One page per entity with current facts (``<wiki>/<namespace>/entities/<slug>.md``): its current
beliefs with ``[fact:<id>]`` markers, relations both ways, the history of every slot and the sources
with their provenance roots. A concept page (``concepts/<predicate>-<value>.md``) is compiled where
two or more subjects share a belief and at least two sources support it: a synthesis no single
event states. Pages show what consumers see (overlays applied: an edit wins, a redaction stays
masked). Rendering is deterministic: the same ledger gives byte-identical pages, which is what lets
the drift audit tell a hand edit (``gold.wiki_pages`` keeps every page's sha256). Never hand-merged:
each run rewrites the wiki and removes pages that no longer exist.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg

from medallion.serve import served
from medallion.serve.tools import Tools
from medallion.settings import Settings


@dataclass(frozen=True)
class Page:
    """One rendered page."""

    namespace: str
    path: str  # relative to the wiki root
    kind: str
    title: str
    content: str
    fact_ids: tuple[str, ...]

    @property
    def content_hash(self) -> str:
        return hashlib.sha256(self.content.encode("utf-8")).hexdigest()


@dataclass
class WikiResult:
    """What a render produced."""

    pages: list[Page] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    ledger_hash: str = ""


def slugify(text: str) -> str:
    """A file-system-safe, stable slug (ASCII, lower case, hyphens)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    return slug[:80] or hashlib.sha256(text.encode()).hexdigest()[:12]


def _date(value: str | None) -> str:
    return value[:10] if value else "now"


def _value(fact: dict[str, Any]) -> str:
    value = fact["value"]
    return value if isinstance(value, str) else str(value)


def render(tools: Tools, namespaces: Sequence[str] | None = None) -> WikiResult:
    """Render every page of ``namespaces`` (all when None) from the ledger, as consumers see it."""
    result = WikiResult()
    with tools.scope(["*"]) as conn:  # the local admin's view; callers pass admin tools
        all_namespaces = [r[0] for r in conn.execute(
            "SELECT DISTINCT namespace FROM silver.facts ORDER BY 1").fetchall()]
        ledger = conn.execute(
            "SELECT coalesce(encode(sha256(string_agg(fact_id || ':' || coalesce(valid_to::text, '') || ':' "
            "|| contested::text, ',' ORDER BY fact_id)::bytea), 'hex'), '') FROM silver.facts").fetchone()[0]
        overlays = conn.execute(
            "SELECT coalesce(string_agg(bronze_event_id::text || status, ',' ORDER BY bronze_event_id), '') "
            "FROM silver.overlays").fetchone()[0]
    result.ledger_hash = hashlib.sha256(f"{ledger}|{overlays}".encode()).hexdigest()
    for namespace in namespaces if namespaces is not None else all_namespaces:
        result.pages.extend(_render_namespace(tools, namespace))
    return result


def _render_namespace(tools: Tools, namespace: str) -> list[Page]:
    with tools.scope([namespace]) as conn:
        facts = served.served_facts(conn, "f.namespace = %(ns)s", {"ns": namespace},
                                    order="e.canonical_name, f.predicate, f.valid_from, f.recorded_at, f.fact_id")
        entities = {r[0]: (r[1], list(r[2] or []), r[3]) for r in conn.execute(
            "SELECT entity_id, canonical_name, aliases, entity_type FROM silver.entities WHERE namespace = %s",
            (namespace,)).fetchall()}
        subject_of = dict(conn.execute(
            "SELECT fact_id, subject_id FROM silver.facts WHERE namespace = %s", (namespace,)).fetchall())
        edges = conn.execute(
            "SELECT g.fact_id, g.subject_id, g.object_id, g.predicate FROM silver.edges g "
            "JOIN silver.facts f ON f.fact_id = g.fact_id WHERE g.namespace = %s AND f.valid_to IS NULL "
            "ORDER BY g.predicate, g.fact_id", (namespace,)).fetchall()
    by_subject: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for fact in facts:
        by_subject[subject_of[fact["fact_id"]]].append(fact)
    slugs = _unique_slugs({eid: name for eid, (name, _, _) in entities.items() if eid in by_subject})
    statements = {f["fact_id"]: f["statement"] for f in facts}
    pages = []
    for entity_id in sorted(by_subject, key=lambda e: slugs[e]):
        name, aliases, entity_type = entities[entity_id]
        subject_facts = by_subject[entity_id]
        if not any(f["current"] for f in subject_facts):
            continue
        outgoing = [(fid, obj, pred) for fid, subj, obj, pred in edges if subj == entity_id]
        incoming = [(fid, subj, pred) for fid, subj, obj, pred in edges if obj == entity_id]
        content = _entity_page(namespace, name, aliases, entity_type, subject_facts, outgoing, incoming,
                               entities, slugs, statements)
        pages.append(Page(namespace, f"{namespace}/entities/{slugs[entity_id]}.md", "entity", name, content,
                          tuple(sorted(f["fact_id"] for f in subject_facts))))
    pages.extend(_concept_pages(namespace, [f for f in facts if f["current"]], entities, subject_of, slugs))
    return pages


def _unique_slugs(names: dict[str, str]) -> dict[str, str]:
    """A slug per entity; names that slugify alike get the entity id's prefix appended."""
    by_slug: dict[str, list[str]] = defaultdict(list)
    for entity_id, name in names.items():
        by_slug[slugify(name)].append(entity_id)
    slugs = {}
    for slug, ids in by_slug.items():
        for entity_id in ids:
            slugs[entity_id] = slug if len(ids) == 1 else f"{slug}-{entity_id[:8]}"
    return slugs


def _marker(fact_id: str) -> str:
    return f"[fact:{fact_id}]"


def _entity_page(namespace: str, name: str, aliases: list[str], entity_type: str, facts: list[dict[str, Any]],
                 outgoing: list[tuple[str, str, str]], incoming: list[tuple[str, str, str]],
                 entities: dict[str, tuple[str, list[str], str]], slugs: dict[str, str],
                 statements: dict[str, str]) -> str:
    lines = [f"# {name}", "", f"*{entity_type}* in namespace `{namespace}`"
             + (f" · also known as {', '.join(sorted(aliases))}" if aliases else ""), ""]
    current = [f for f in facts if f["current"]]
    lines += ["## What is believed now", ""]
    for fact in sorted(current, key=lambda f: (f["predicate"], _value(f), f["fact_id"])):
        flags = ["contested: a person must decide"] if fact["contested"] else []
        flags += [f"{o['action']} by {o['author']}" for o in fact.get("overlays", [])]
        lines.append(f"- **{fact['predicate']}**: {fact['statement']} {_marker(fact['fact_id'])}"
                     f" — since {_date(fact['valid_from'])}, authority {fact['authority']}, confidence "
                     f"{fact['confidence']:.2f}" + (f" ({'; '.join(flags)})" if flags else ""))
    lines.append("")
    if outgoing or incoming:
        lines += ["## Relations", ""]
        for fact_id, obj, pred in outgoing:
            target = entities.get(obj, (obj, [], ""))[0]
            link = f"[{target}]({slugs[obj]}.md)" if obj in slugs else target
            lines.append(f"- {pred} → {link} {_marker(fact_id)}")
        for fact_id, subj, pred in incoming:
            source = entities.get(subj, (subj, [], ""))[0]
            link = f"[{source}]({slugs[subj]}.md)" if subj in slugs else source
            lines.append(f"- {link} → {pred} {_marker(fact_id)}: {statements.get(fact_id, '')}")
        lines.append("")
    history = [f for f in facts if not f["current"]]
    if history:
        lines += ["## History", "", "| predicate | value | valid from | valid to | authority | fact |",
                  "|---|---|---|---|---|---|"]
        for fact in sorted(facts, key=lambda f: (f["predicate"], f["valid_from"] or "", f["fact_id"])):
            if not any(h["predicate"] == fact["predicate"] for h in history):
                continue
            value = _value(fact).replace("|", "\\|")
            lines.append(f"| {fact['predicate']} | {value} | {_date(fact['valid_from'])} | "
                         f"{_date(fact['valid_to'])} | {fact['authority']} | {_marker(fact['fact_id'])} |")
        lines.append("")
    lines += ["## Sources", ""]
    sources = sorted({(f["provenance"]["source"], f["provenance"]["source_event_id"] or "",
                       f["provenance"]["provenance_root"], f["provenance"]["bronze_event_id"]) for f in facts})
    for source, seid, root, event_id in sources:
        lines.append(f"- `{root}` ({source}/{seid}, Bronze event {event_id})")
    lines.append("")
    return "\n".join(lines)


def _concept_pages(namespace: str, current: list[dict[str, Any]], entities: dict[str, tuple[str, list[str], str]],
                   subject_of: dict[str, str], slugs: dict[str, str]) -> list[Page]:
    """Beliefs shared by two or more subjects and supported by two or more sources."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for fact in current:
        if fact["predicate"] == "states" or fact["contested"]:
            continue
        groups[(fact["predicate"], _value(fact).strip().lower())].append(fact)
    pages = []
    for (predicate, value), members in sorted(groups.items()):
        subjects = {subject_of[f["fact_id"]] for f in members}
        sources = {(f["provenance"]["source"], f["provenance"]["source_event_id"]) for f in members}
        if len(subjects) < 2 or len(sources) < 2:
            continue
        title = f"{predicate}: {_value(members[0])}"
        lines = [f"# {title}", "", f"A synthesis in namespace `{namespace}`: {len(subjects)} subjects share this "
                 f"belief, supported by {len(sources)} sources.", ""]
        for fact in sorted(members, key=lambda f: (entities[subject_of[f["fact_id"]]][0], f["fact_id"])):
            subject = subject_of[fact["fact_id"]]
            name = entities[subject][0]
            lines.append(f"- [{name}](../entities/{slugs.get(subject, slugify(name))}.md): {fact['statement']} "
                         f"{_marker(fact['fact_id'])} (`{fact['provenance']['provenance_root']}`)")
        lines.append("")
        pages.append(Page(namespace, f"{namespace}/concepts/{slugify(predicate + ' ' + value)}.md", "concept", title,
                          "\n".join(lines), tuple(sorted(f["fact_id"] for f in members))))
    return pages


def write(conn: psycopg.Connection, result: WikiResult, root: Path, namespaces: Sequence[str] | None = None) -> None:
    """Write the pages under ``root``, remove stale ones, and record every page's hash in gold.wiki_pages."""
    root.mkdir(parents=True, exist_ok=True)
    wanted = {page.path for page in result.pages}
    scope = set(namespaces) if namespaces is not None else None
    for existing in sorted(root.glob("*/*/*.md")):
        relative = existing.relative_to(root).as_posix()
        namespace = relative.split("/", 1)[0]
        if relative not in wanted and (scope is None or namespace in scope):
            existing.unlink()
            result.removed.append(relative)
    for page in result.pages:
        path = root / page.path
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_bytes() != page.content.encode("utf-8"):
            path.write_bytes(page.content.encode("utf-8"))
    with conn.transaction():
        conn.execute("DELETE FROM gold.wiki_pages WHERE (%(ns)s::text[] IS NULL OR namespace = ANY(%(ns)s))",
                     {"ns": None if namespaces is None else list(namespaces)})
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO gold.wiki_pages (namespace, path, kind, title, content_hash, fact_ids, ledger_hash) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s)",
                [(p.namespace, p.path, p.kind, p.title, p.content_hash, list(p.fact_ids), result.ledger_hash)
                 for p in result.pages])


def compile_wiki(settings: Settings, conn: psycopg.Connection, tools: Tools,
                 namespaces: Sequence[str] | None = None) -> WikiResult:
    """Render and write the wiki for ``namespaces`` (all when None)."""
    result = render(tools, namespaces)
    write(conn, result, settings.wiki_root, namespaces)
    return result
