"""P6: LoCoMo evidence recall — medallion-memory against raw-turn baselines and the LoCoMo paper.

LoCoMo (snap-research/LoCoMo, CC BY-NC 4.0; ``locomo10.json``, read from ``../shared/data`` and never
copied into the repository) is ten long two-person conversations with 1,986 questions, each naming
the turns (``evidence``, ``D<session>:<turn>``) that answer it. One embedded server; each
conversation is its own namespace; each turn a Bronze event (``source_event_id`` =
``<sample_id>:<dia_id>``, ``occurred_at`` = the session's date time, actor = the speaker).

Configurations, all with the same embedding model (all-MiniLM-L6-v2) and in the same run:

(a) ``vector_turns``    pgvector cosine, exact, over raw turns embedded as "Speaker: text".
(b) ``bm25_turns``      Okapi BM25 (k1 = 1.2, b = 0.75) over raw turns, on PostgreSQL's English
                        lexemes (``to_tsvector('english', …)``: stemmed, stop words dropped).
    ``tsrank_turns``    (for reference) PostgreSQL full text: ``ts_rank_cd`` of an OR query of the
                        question's content words.
(c) ``medallion_heuristic``  the engine with the heuristic distiller: ``Tools.search`` (hybrid
                        facts + chunks, BM25 full text, contextual chunks, turn-level RRF, one
                        result per Bronze event), hits mapped to turns through provenance.
(d) ``medallion_observations``  the engine with LoCoMo's own ``observation`` facts as the
                        distiller's output (bench/locomo_replay.py), in namespaces of their own
                        (``locomo-<id>-obs``, derived separately, so (c) and (d) never mix; the
                        chunks' embeddings, same texts, come from the cache (c) filled).

Mapping and metrics. A fact maps to its Bronze event's ``source_event_id``, a chunk to its event's:
both → ``dia_id``. The hit list becomes a turn list in rank order, each turn at its first
occurrence. Per question (only questions with at least one valid evidence id; the count of the
others is reported):

* recall@k, k = 5, 10, 25, 50 — the share of the question's evidence turns among the first k
  retrieved turns, averaged over questions (the LoCoMo paper's retrieval recall);
* any-hit@k — the share of questions with at least one evidence turn in the first k;
* NDCG@10 — binary relevance over the retrieved turns;
* recall@1000 tokens — hits' texts (fact statements, chunk texts, turns) are taken in rank order
  while their whitespace-token count stays within 1,000; recall over the turns they map to.

Per category (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial) and overall,
both over all five categories and over 1–4. The medallion search asks for ``--search-k`` (50)
hits; search returns one result per Bronze event (the event's other facts and its chunk ride along
under ``same_event``), so the 50 hits are 50 turns unless the namespace runs out of candidates (the
mean count of distinct turns is reported). Before the failure analysis (bench/results/
locomo_before.json) several facts of one turn took several of the k places.

Evidence ids are cleaned as ``bench.locomo_data.clean_evidence`` says (list entries split, stray
colons and leading zeros fixed, dangling and malformed ids dropped); counts are in the result.

    python bench/locomo.py [--data PATH] [--conversations N] [--skip-baselines] [--output PATH]
                           [--misses PATH] [--search-k 50]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import psycopg
from pgvector.psycopg import register_vector

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.harness import RESULTS, bench_settings, machine  # noqa: E402
from bench.locomo_data import CATEGORIES, DEFAULT_PATH, ROOTS, dia_id, load, questions, to_events  # noqa: E402
from bench.locomo_replay import ObservationReplayDistiller  # noqa: E402
from medallion.bronze.ingest import ingest_events  # noqa: E402
from medallion.db.connection import connect, ensure_ready  # noqa: E402
from medallion.distill.providers.heuristic import HeuristicDistiller  # noqa: E402
from medallion.serve.search import tsquery  # noqa: E402
from medallion.serve.tools import open_tools  # noqa: E402
from medallion.settings import Settings  # noqa: E402
from medallion.silver.derive import derive  # noqa: E402
from medallion.silver.embed import load_model  # noqa: E402

KS = (5, 10, 25, 50)
BUDGET_TOKENS = 1000
OBS_SUFFIX = "-obs"
PAPER = {  # LoCoMo paper (Maharana et al., 2024), Table 3: DRAGON retriever
    "dragon_dialog_turns": {"R@5": 56.7, "R@10": 66.2, "R@25": 76.7, "R@50": 82.7},
    "dragon_observations": {"R@5": 56.2},
}
TARGETS = {"R@5": 65.0, "R@10": 75.0}
CONFIG_LABELS = {
    "vector_turns": "(a) pgvector cosine, raw turns",
    "bm25_turns": "(b) BM25, raw turns",
    "tsrank_turns": "(b') PG ts_rank_cd OR, raw turns",
    "medallion_heuristic": "(c) medallion, heuristic distiller",
    "medallion_observations": "(d) medallion, LoCoMo observations",
}

Item = tuple[str, tuple[str, ...]]  # (text served, dia_ids it maps to)


# --------------------------------------------------------------------------------------------------
# Metrics
# --------------------------------------------------------------------------------------------------

def turn_list(items: Iterable[Item]) -> list[str]:
    """Retrieved turns in rank order, each at its first occurrence."""
    seen: dict[str, None] = {}
    for _, turns in items:
        for t in turns:
            seen.setdefault(t, None)
    return list(seen)


def score(items: list[Item], evidence: list[str]) -> dict[str, float]:
    """Per-question metrics (see the module docstring)."""
    gold = set(evidence)
    turns = turn_list(items)
    out: dict[str, float] = {}
    for k in KS:
        found = len(gold & set(turns[:k]))
        out[f"R@{k}"] = found / len(gold)
        out[f"hit@{k}"] = float(found > 0)
    dcg = sum(1.0 / math.log2(i + 2) for i, t in enumerate(turns[:10]) if t in gold)
    idcg = sum(1.0 / math.log2(i + 2) for i in range(min(len(gold), 10)))
    out["NDCG@10"] = dcg / idcg
    used, budget_turns = 0, []
    for text, item_turns in items:
        n = len(text.split())
        if used + n > BUDGET_TOKENS:
            break
        used += n
        budget_turns.extend(item_turns)
    out[f"R@{BUDGET_TOKENS}tok"] = len(gold & set(budget_turns)) / len(gold)
    out["turns"] = float(len(turns))
    return out


def aggregate(per_question: list[dict[str, float]], qs: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Means (as percentages; ``turns`` as a count) per category, over all five, and over 1–4."""
    groups: dict[str, list[dict[str, float]]] = {"all": per_question,
                                                 "1-4": [m for m, q in zip(per_question, qs, strict=True)
                                                         if q["category"] != 5]}
    for cat, name in CATEGORIES.items():
        groups[name] = [m for m, q in zip(per_question, qs, strict=True) if q["category"] == cat]
    out = {}
    for name, rows in groups.items():
        if not rows:
            continue
        out[name] = {key: round(statistics.fmean(r[key] for r in rows) * (1 if key == "turns" else 100), 2)
                     for key in rows[0]}
        out[name]["n"] = len(rows)
    return out


# --------------------------------------------------------------------------------------------------
# Retrievers
# --------------------------------------------------------------------------------------------------

def hits_to_items(hits: list[dict[str, Any]]) -> list[Item]:
    """Tools.search hits → (text, dia_ids) through provenance (facts and chunks alike)."""
    items = []
    for h in hits:
        seid = (h.get("provenance") or {}).get("source_event_id")
        items.append((h["statement"] or "", (dia_id(seid),) if seid and ":" in seid else ()))
    return items


def run_medallion(settings: Settings, qs: list[dict[str, Any]], k: int, suffix: str = "",
                  search: Callable[..., list[dict[str, Any]]] | None = None) -> tuple[list[list[Item]], list[float]]:
    """Every question through ``Tools.search`` in its namespace; the hits as items, and each call's seconds."""
    results, seconds = [], []
    with open_tools(settings=settings, origin="bench") as tools:
        call = search or tools.search
        for q in qs:
            t0 = time.perf_counter()
            hits = call(q["question"], namespace=q["namespace"] + suffix, k=k)
            seconds.append(time.perf_counter() - t0)
            results.append(hits_to_items(hits))
    return results, seconds


class TurnBaselines:
    """Raw-turn retrievers in a scratch schema of the benchmark database (admin login)."""

    def __init__(self, settings: Settings, samples: list[dict[str, Any]]):
        self.conn = psycopg.connect(ensure_ready(settings), autocommit=True)
        register_vector(self.conn)
        self.model = load_model(settings.embedding_model)
        self.rows: list[tuple[str, str, str]] = []  # (namespace, dia_id, "Speaker: text")
        for sample in samples:
            for e in to_events(sample):
                text = f"{e['metadata']['speaker']}: {e['content']}"
                self.rows.append((e["namespace"], e["metadata"]["dia_id"], text))
        self.text = {(ns, d): t for ns, d, t in self.rows}
        self.bm25: dict[str, dict[str, Any]] = {}
        self.build_seconds: dict[str, float] = {}

    def build(self) -> None:
        t0 = time.perf_counter()
        vectors = self.model.encode([t for _, _, t in self.rows], batch_size=64, normalize_embeddings=True,
                                    convert_to_numpy=True, show_progress_bar=False)
        self.build_seconds["encode_turns"] = round(time.perf_counter() - t0, 2)
        t0 = time.perf_counter()
        self.conn.execute("DROP SCHEMA IF EXISTS bench_locomo CASCADE")
        self.conn.execute("CREATE SCHEMA bench_locomo")
        self.conn.execute("CREATE TABLE bench_locomo.turns (namespace text, dia_id text, text text, "
                          "embedding vector(384), tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) "
                          "STORED, PRIMARY KEY (namespace, dia_id))")
        with self.conn.cursor() as cur, cur.copy(
                "COPY bench_locomo.turns (namespace, dia_id, text, embedding) FROM STDIN") as copy:
            for (ns, d, text), vec in zip(self.rows, vectors, strict=True):
                copy.write_row((ns, d, text, str(vec.tolist())))
        self.conn.execute("CREATE INDEX ON bench_locomo.turns USING gin (tsv)")
        self.conn.execute("ANALYZE bench_locomo.turns")
        # BM25 statistics from the same lexemes PostgreSQL's English configuration produces
        for ns, d, lexeme, tf in self.conn.execute(
                "SELECT t.namespace, t.dia_id, u.lexeme, cardinality(u.positions) "
                "FROM bench_locomo.turns t, unnest(t.tsv) u").fetchall():
            idx = self.bm25.setdefault(ns, {"tf": {}, "len": Counter(), "df": Counter()})
            idx["tf"].setdefault(d, {})[lexeme] = tf
            idx["len"][d] += tf
            idx["df"][lexeme] += 1
        for ns, d, _ in self.rows:  # turns with no lexeme at all still count as documents
            self.bm25[ns]["len"].setdefault(d, 0)
        self.build_seconds["table_and_bm25_index"] = round(time.perf_counter() - t0, 2)

    def item(self, ns: str, d: str) -> Item:
        return (self.text[(ns, d)], (d,))

    def vector(self, qs: list[dict[str, Any]], k: int) -> tuple[list[list[Item]], list[float]]:
        qv = self.model.encode([q["question"] for q in qs], batch_size=64, normalize_embeddings=True,
                               convert_to_numpy=True, show_progress_bar=False)
        results, seconds = [], []
        for q, vec in zip(qs, qv, strict=True):
            t0 = time.perf_counter()
            rows = self.conn.execute(
                "SELECT dia_id FROM bench_locomo.turns WHERE namespace = %s ORDER BY embedding <=> %s, dia_id "
                "LIMIT %s", (q["namespace"], vec, k)).fetchall()
            seconds.append(time.perf_counter() - t0)
            results.append([self.item(q["namespace"], r[0]) for r in rows])
        return results, seconds

    def bm25_search(self, qs: list[dict[str, Any]], k: int, k1: float = 1.2, b: float = 0.75
                    ) -> tuple[list[list[Item]], list[float]]:
        results, seconds = [], []
        for q in qs:
            t0 = time.perf_counter()
            terms = [r[0] for r in self.conn.execute("SELECT lexeme FROM unnest(to_tsvector('english', %s))",
                                                     (q["question"],)).fetchall()]
            idx = self.bm25[q["namespace"]]
            n_docs = len(idx["len"])
            avg = sum(idx["len"].values()) / n_docs
            scores: dict[str, float] = {}
            for term in terms:
                df = idx["df"].get(term, 0)
                if not df:
                    continue
                idf = math.log((n_docs - df + 0.5) / (df + 0.5) + 1)
                for d, tfs in idx["tf"].items():
                    tf = tfs.get(term)
                    if tf:
                        scores[d] = scores.get(d, 0.0) + idf * tf * (k1 + 1) / (
                            tf + k1 * (1 - b + b * idx["len"][d] / avg))
            ranked = sorted(scores, key=lambda d: (-scores[d], d))[:k]
            seconds.append(time.perf_counter() - t0)
            results.append([self.item(q["namespace"], d) for d in ranked])
        return results, seconds

    def tsrank(self, qs: list[dict[str, Any]], k: int) -> tuple[list[list[Item]], list[float]]:
        results, seconds = [], []
        for q in qs:
            t0 = time.perf_counter()
            tsq = tsquery(q["question"])
            rows = self.conn.execute(
                "SELECT dia_id FROM bench_locomo.turns, to_tsquery('english', %s) q WHERE namespace = %s "
                "AND tsv @@ q ORDER BY ts_rank_cd(tsv, q) DESC, dia_id LIMIT %s",
                (tsq, q["namespace"], k)).fetchall() if tsq else []
            seconds.append(time.perf_counter() - t0)
            results.append([self.item(q["namespace"], r[0]) for r in rows])
        return results, seconds

    def close(self) -> None:
        self.conn.close()


# --------------------------------------------------------------------------------------------------
# Building the memories
# --------------------------------------------------------------------------------------------------

def build_medallion(settings: Settings, samples: list[dict[str, Any]], distiller: Any, suffix: str = "",
                    roots: str = "session") -> dict[str, Any]:
    """Ingest one namespace per conversation (name + ``suffix``) and derive them with ``distiller``.

    Only these namespaces are derived, so two configurations can share one database (and its
    embedding cache, keyed by text) without mixing: each searches its own namespaces.
    """
    conn = connect(settings, "engine", autocommit=True)
    try:
        events = [{**e, "namespace": e["namespace"] + suffix} for s in samples for e in to_events(s, roots=roots)]
        spaces = sorted({e["namespace"] for e in events})
        t0 = time.perf_counter()
        ingest_events(conn, events, origin="bench")
        ingest_s = time.perf_counter() - t0
        report = derive(conn, settings, namespaces=spaces, distiller=distiller)
        counts = dict(zip(("facts", "current_facts", "chunks", "working_memory"), conn.execute(
            "SELECT (SELECT count(*) FROM silver.facts WHERE namespace = ANY(%(ns)s)), "
            "(SELECT count(*) FROM silver.facts WHERE namespace = ANY(%(ns)s) AND valid_to IS NULL), "
            "(SELECT count(*) FROM silver.chunks WHERE namespace = ANY(%(ns)s)), "
            "(SELECT count(*) FROM silver.working_memory WHERE namespace = ANY(%(ns)s))", {"ns": spaces}).fetchone(),
            strict=True))
        shape = conn.execute(
            "SELECT count(*) FILTER (WHERE predicate = 'states'), count(*), count(DISTINCT predicate) "
            "FROM silver.facts WHERE namespace = ANY(%(ns)s)", {"ns": spaces}).fetchone()
        # every supersession, old and new statement side by side, for a reader to judge
        supersedes = [{"old": old, "new": new, "reason": reason} for old, new, reason in conn.execute(
            "SELECT o.statement, n.statement, r.reason FROM silver.resolutions r "
            "JOIN silver.facts o ON o.fact_id = r.target_fact_id "
            "JOIN silver.facts n ON n.fact_id = r.candidate_fact_id "
            "WHERE r.namespace = ANY(%(ns)s) AND r.decision = 'supersede' "
            "ORDER BY r.bronze_event_id, r.candidate_index",
            {"ns": spaces}).fetchall()]
    finally:
        conn.close()
    return {"events": len(events), **counts, "states_share": round(shape[0] / max(shape[1], 1), 4),
            "predicates": shape[2], "supersedes": supersedes, "decisions": dict(report.decisions),
            "failures": len(report.failures), "embeddings_encoded": report.embeddings_encoded,
            "embedding_cache_hits": report.cache_hits, "ingest_seconds": round(ingest_s, 2),
            "derive_seconds": round(report.seconds, 2)}


# --------------------------------------------------------------------------------------------------
# Reporting
# --------------------------------------------------------------------------------------------------

def code_versions() -> dict[str, str]:
    """sha256 (first 12 hex digits) of the engine files these figures depend on."""
    root = Path(__file__).resolve().parents[1] / "medallion"
    names = ("serve/search.py", "serve/served.py", "serve/fusion.py", "serve/graph.py", "silver/derive.py",
             "silver/chunks.py", "silver/restate.py", "silver/resolve.py", "silver/judge.py")
    out = {n: hashlib.sha256((root / n).read_bytes()).hexdigest()[:12] for n in names}
    distiller = sorted((root / "distill").rglob("*.py"))
    out["distill"] = hashlib.sha256(b"".join(p.read_bytes() for p in distiller)).hexdigest()[:12]
    migrations = sorted((root / "db" / "migrations").glob("*.sql"))
    out["db/migrations"] = hashlib.sha256(b"".join(m.read_bytes() for m in migrations)).hexdigest()[:12]
    return out


def timing(seconds: list[float]) -> dict[str, float]:
    ordered = sorted(seconds)
    return {"queries": len(seconds), "total_s": round(sum(seconds), 2),
            "p50_ms": round(statistics.median(ordered) * 1000, 2),
            "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))] * 1000, 2)}


def print_tables(configs: dict[str, dict[str, Any]]) -> None:
    cols = [f"R@{k}" for k in KS] + ["hit@5", "hit@10", "NDCG@10", f"R@{BUDGET_TOKENS}tok", "turns"]
    for scope in ("all", "1-4"):
        print(f"\nLoCoMo evidence recall, {'all five categories' if scope == 'all' else 'categories 1-4'} "
              f"(n = {next(iter(configs.values()))['metrics'][scope]['n']})")
        print(f"{'config':<40}" + "".join(f"{c:>9}" for c in cols))
        for name, cfg in configs.items():
            m = cfg["metrics"][scope]
            print(f"{CONFIG_LABELS[name]:<40}" + "".join(f"{m[c]:>9.1f}" for c in cols))
        for name, figs in PAPER.items():
            print(f"{'paper: ' + name.replace('_', ' '):<40}" + "".join(
                f"{figs[c]:>9.1f}" if c in figs else f"{'':>9}" for c in cols))
    print("\nR@5 / R@10 by category")
    cats = list(CATEGORIES.values())
    print(f"{'config':<40}" + "".join(f"{c:>16}" for c in cats))
    for name, cfg in configs.items():
        m = cfg["metrics"]
        print(f"{CONFIG_LABELS[name]:<40}" + "".join(
            f"{m[c]['R@5']:>8.1f}{m[c]['R@10']:>8.1f}" if c in m else f"{'':>16}" for c in cats))


def targets(configs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for scope in ("all", "1-4"):
        res: dict[str, Any] = {}
        for name in ("medallion_heuristic", "medallion_observations"):
            if name not in configs:
                continue
            m = configs[name]["metrics"][scope]
            res[name] = {"R@5": m["R@5"], "R@10": m["R@10"], "R@5>=65": m["R@5"] >= TARGETS["R@5"],
                         "R@10>=75": m["R@10"] >= TARGETS["R@10"]}
            for base in ("vector_turns", "bm25_turns"):
                if base in configs:
                    b = configs[base]["metrics"][scope]
                    res[name][f"above_{base}"] = m["R@5"] > b["R@5"] and m["R@10"] > b["R@10"]
        out[scope] = res
    return out


def _near(turn: str, gold: list[str], reach: int = 2) -> bool:
    session, index = turn[1:].split(":")
    for g in gold:
        gs, gi = g[1:].split(":")
        if gs == session and 0 < abs(int(gi) - int(index)) <= reach:
            return True
    return False


def near_misses(qs: list[dict[str, Any]], items: list[list[Item]], per_q: list[dict[str, float]],
                category: str) -> dict[str, int]:
    """Questions with no evidence in the top 10 turns, and how many of them retrieved a neighbouring turn."""
    out = {"missed": 0, "adjacent": 0, "all_missed": 0, "all_adjacent": 0}
    for q, it, m in zip(qs, items, per_q, strict=True):
        if m["hit@10"]:
            continue
        adjacent = any(_near(t, q["evidence"]) for t in turn_list(it)[:10])
        out["all_missed"] += 1
        out["all_adjacent"] += adjacent
        if CATEGORIES[q["category"]] == category:
            out["missed"] += 1
            out["adjacent"] += adjacent
    return out


def write_misses(path: Path, config: str, category: str, qs: list[dict[str, Any]], items: list[list[Item]],
                 per_q: list[dict[str, float]], turn_text: dict[tuple[str, str], str], n: int = 20) -> None:
    """The ``n`` worst questions of ``category`` (no evidence in the top 10, then lowest R@10)."""
    rows = [(m["R@10"], m["R@50"], i) for i, (q, m) in enumerate(zip(qs, per_q, strict=True))
            if CATEGORIES[q["category"]] == category and m["R@10"] < 1.0]
    rows.sort(key=lambda r: (r[0], r[1], r[2]))
    total = sum(1 for q in qs if CATEGORIES[q["category"]] == category)
    near = near_misses(qs, items, per_q, category)
    lines = [f"# LoCoMo misses: {CONFIG_LABELS[config]}, category {category}", "",
             f"Generated by `bench/locomo.py`. {near['missed']} of {total} {category} questions have no evidence turn "
             f"in the top 10 retrieved turns; in {near['adjacent']} of those a top-10 turn is within two turns of an "
             f"evidence turn in the same session (over all categories: {near['all_adjacent']} of "
             f"{near['all_missed']}). The {min(n, len(rows))} below are the worst (R@10, then R@50). Each shows the "
             "gold evidence turns and the first retrieved hits (text served → turn).", ""]
    for rank, (r10, r50, i) in enumerate(rows[:n], start=1):
        q, hits = qs[i], items[i]
        turns = turn_list(hits)
        ranks = ", ".join(str(turns.index(e) + 1) if e in turns else "–" for e in q["evidence"])
        lines += [f"## {rank}. {q['sample_id']} #{q['index']}: {q['question']}", "",
                  f"Answer: {q['answer']!s} · R@10 {r10:.2f} · R@50 {r50:.2f} · evidence rank(s): {ranks}",
                  "", "Gold evidence:", ""]
        for e in q["evidence"]:
            lines.append(f"- `{e}` {turn_text.get((q['namespace'], e), '?')}")
        lines += ["", "Retrieved (first 8 hits):", ""]
        for text, ts in hits[:8]:
            lines.append(f"- `{','.join(ts)}` {text.replace(chr(10), ' ')[:220]}")
        lines.append("")
    path.write_text("\n".join(lines))


# --------------------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------------------

def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(DEFAULT_PATH), help="locomo10.json (default: ../shared/data)")
    parser.add_argument("--conversations", type=int, default=None, help="only the first N conversations")
    parser.add_argument("--only", default=None, help="only these conversations, 1-based, e.g. 3,8")
    parser.add_argument("--roots", choices=ROOTS, default="session",
                        help="provenance root per session (default), per turn, or per turn with a thread key")
    parser.add_argument("--skip-baselines", action="store_true", help="only (c) and (d)")
    parser.add_argument("--skip-observations", action="store_true", help="skip (d)")
    parser.add_argument("--search-k", type=int, default=50)
    parser.add_argument("--output", default=str(RESULTS / "locomo.json"))
    parser.add_argument("--misses", default=str(RESULTS / "locomo_misses.md"))
    args = parser.parse_args()
    started = time.perf_counter()

    samples = load(args.data)[:args.conversations]
    if args.only:
        samples = [samples[int(n) - 1] for n in args.only.split(",")]
    fixes: dict[str, int] = {}
    all_qs = [q for s in samples for q in questions(s, fixes)]
    qs = [q for q in all_qs if q["evidence"]]
    skipped = len(all_qs) - len(qs)
    print(f"{len(samples)} conversations, {sum(len(to_events(s)) for s in samples)} turns, {len(all_qs)} questions "
          f"({skipped} without valid evidence skipped); evidence fixes {fixes}")

    configs: dict[str, dict[str, Any]] = {}
    items_by: dict[str, list[list[Item]]] = {}
    per_q_by: dict[str, list[dict[str, float]]] = {}

    def record(name: str, items: list[list[Item]], seconds: list[float], **extra: Any) -> None:
        per_q = [score(it, q["evidence"]) for it, q in zip(items, qs, strict=True)]
        items_by[name], per_q_by[name] = items, per_q
        configs[name] = {"label": CONFIG_LABELS[name], "metrics": aggregate(per_q, qs),
                         "query_timing": timing(seconds), **extra}
        m = configs[name]["metrics"]["all"]
        print(f"  {CONFIG_LABELS[name]}: R@5 {m['R@5']:.1f} R@10 {m['R@10']:.1f} R@25 {m['R@25']:.1f} "
              f"R@50 {m['R@50']:.1f} ({timing(seconds)['total_s']}s of queries)")

    with bench_settings("locomo") as settings:
        t0 = time.perf_counter()
        load_model(settings.embedding_model).encode(["warm up"])  # the one-off model load, excluded below
        model_load = time.perf_counter() - t0

        print("(c) ingest + derive, heuristic distiller …", flush=True)
        built_c = build_medallion(settings, samples, HeuristicDistiller(), roots=args.roots)
        built_c["roots"] = args.roots
        print(f"  {built_c}")
        items, seconds = run_medallion(settings, qs, args.search_k)
        record("medallion_heuristic", items, seconds, build=built_c)

        turn_text: dict[tuple[str, str], str] = {}
        baselines = TurnBaselines(settings, samples)
        turn_text = baselines.text
        if not args.skip_baselines:
            print("(a), (b) raw-turn baselines …", flush=True)
            baselines.build()
            items, seconds = baselines.vector(qs, 50)
            record("vector_turns", items, seconds, build={"seconds": baselines.build_seconds,
                                                          "index": "exact (sequential scan, ≤ 700 turns a namespace)"})
            items, seconds = baselines.bm25_search(qs, 50)
            record("bm25_turns", items, seconds, build={"k1": 1.2, "b": 0.75, "lexemes": "to_tsvector('english')"})
            items, seconds = baselines.tsrank(qs, 50)
            record("tsrank_turns", items, seconds, build={"query": "OR of content words (gold.search.tsquery)"})
        baselines.close()

        if not args.skip_observations:
            print(f"(d) ingest + derive, LoCoMo observations replayed (namespaces *{OBS_SUFFIX}) …", flush=True)
            replay = ObservationReplayDistiller(samples)
            built_d = build_medallion(settings, samples, replay, suffix=OBS_SUFFIX)
            built_d["observations_served"] = replay.served
            print(f"  {built_d}")
            items, seconds = run_medallion(settings, qs, args.search_k, suffix=OBS_SUFFIX)
            record("medallion_observations", items, seconds, build=built_d)

    order = [n for n in CONFIG_LABELS if n in configs]
    configs = {n: configs[n] for n in order}
    print_tables(configs)
    held = targets(configs)
    print("\nTargets (P6: R@5 ≥ 65, R@10 ≥ 75 for (c) or (d); (c), (d) above (a) and (b)):")
    print(json.dumps(held, indent=1))

    # failure analysis: the worst category (by R@10) of (c), the configuration that ships
    focus = "medallion_heuristic"
    cats = {c: configs[focus]["metrics"][c]["R@10"] for c in CATEGORIES.values() if c in configs[focus]["metrics"]}
    worst = min(cats, key=cats.get)  # type: ignore[arg-type]
    write_misses(Path(args.misses), focus, worst, qs, items_by[focus], per_q_by[focus], turn_text)
    failure = {"config": focus, "category": worst, "file": Path(args.misses).name,
               "near_misses": {n: near_misses(qs, items_by[n], per_q_by[n], worst) for n in configs}}

    total = time.perf_counter() - started
    payload = {
        "machine": machine(),
        "code": code_versions(),
        "benchmark": "LoCoMo evidence recall (P6)",
        "data": {"path": str(Path(args.data).resolve()), "licence": "CC BY-NC 4.0 (snap-research/LoCoMo)",
                 "conversations": [s["sample_id"] for s in samples],
                 "turns": sum(len(to_events(s)) for s in samples)},
        "questions": {"total": len(all_qs), "evaluated": len(qs), "skipped_no_valid_evidence": skipped,
                      "by_category": {CATEGORIES[c]: n for c, n in sorted(Counter(q["category"] for q in qs).items())},
                      "evidence_fixes": fixes,
                      "evidence_cleaning": "entries split on ; , and whitespace; 'D:11:26' → 'D11:26'; leading "
                                           "zeros dropped ('D30:05' → 'D30:5'); a colon-less id kept when exactly "
                                           "one split names a turn; bare 'D' dropped; ids naming no turn of the "
                                           "conversation dropped; duplicates dropped"},
        "method": {"search_k": args.search_k, "recall": "per question |evidence ∩ first k retrieved turns| / "
                   "|evidence|, averaged (LoCoMo paper)", "turns": "hits mapped to dia_ids via provenance, "
                   "deduplicated at first occurrence", "ndcg": "binary relevance over retrieved turns",
                   "budget": f"hits taken in rank order while whitespace tokens ≤ {BUDGET_TOKENS}",
                   "embedding_model": "all-MiniLM-L6-v2 (all configs)",
                   "failure_analysis": f"{focus}, category {worst} → {Path(args.misses).name}"},
        "configs": configs,
        "failure_analysis": failure,
        "paper_table3": PAPER,
        "targets": {"P6": TARGETS, "held": held},
        "seconds": {"model_load": round(model_load, 2), "total": round(total, 1)},
    }
    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(payload, indent=2, default=str) + "\n")
    print(f"\nwrote {out} and {args.misses} in {total:.0f}s")


if __name__ == "__main__":
    main()
