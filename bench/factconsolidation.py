"""MemoryAgentBench FactConsolidation ("Conflict Resolution") through the public ``search`` tool.

Why this benchmark: its facts are counterfactual on purpose and a later fact overwrites an earlier
one about the same thing, so it measures what the Silver ledger is for (one current value per slot,
the older one superseded) rather than recall of a conversation. Published systems do badly on it
(MemoryAgentBench, arXiv 2507.05257: FC-SH at most 54 %, FC-MH at most 7 % for all 22 systems).

Data: ``memoryagentbench_factconsolidation.json`` (ai-hyz/MemoryAgentBench, MIT), read from
``../shared/data`` next to the checkout or from ``$FACTCONSOLIDATION_PATH``; never copied into the
repository (without it the script ends with status 2 and one sentence saying where to put it).
Eight sets, ``factconsolidation_{sh,mh}_{6k,32k,64k,262k}`` (single-hop / multi-hop;
455, 2,310, 4,580 and 18,332 facts; 100 questions each, ``answers[i]`` a list of accepted strings).

Per set, in one embedded server (each set its own namespace, ``fc-sh-6k`` …):

1. every fact is one Bronze event in list order (actor ``user:archivist``, kind ``transcript`` as
   the LoCoMo bench's turns, ``source_event_id`` = the fact's index, ``occurred_at`` = a fixed base
   + index seconds, so "later in the list" is "more recent" and the ledger can express "later wins");
   a leading "<n>. " is stripped only when every fact carries its own running number (some entity
   names of the data begin with a number and a full stop, and must stay whole);
2. the derivation (heuristic distiller) of that namespace, timed;
3. each question through ``Tools.search(question, namespace=ns, k=5)`` with default options:
   acc@1 = the first served result holds a gold answer, hit@5 = any of the five does. A result's
   text is its ``statement`` and ``value`` (a chunk's statement is its text); texts and answers are
   compared NFKC-normalised, case-folded, punctuation to spaces, whitespace collapsed, and an answer
   must occur as whole words;
4. ledger figures from the engine connection: facts (all versions and current), ``supersede``
   decisions in silver.resolutions, the share of facts with predicate ``states`` (the fallback slot:
   a high share means the distiller found no relation), distinct and learned (non-seed) predicates;
5. same-run baselines over the raw fact texts without a database: BM25 Okapi (k1 1.5, b 0.75, idf as
   rank_bm25's BM25Okapi), ties broken earliest-first; and "BM25 latest": among the facts sharing
   the top score, the latest. The score is the same containment test on the fact text.

The script only measures: nothing in it names a relation, entity or sentence of the data. The
published figures are end-to-end answer accuracy (an LLM reads the retrieved memory and answers);
ours is whether the served memory holds the answer, so they sit beside ours, not against it.

    python bench/factconsolidation.py [--sets sh_6k,mh_6k] [--quick] [--data PATH] [--output PATH] [--merge]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import re
import statistics
import subprocess
import sys
import time
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.harness import FACTCONSOLIDATION, RESULTS, bench_settings, machine  # noqa: E402
from bench.locomo import code_versions  # noqa: E402
from medallion.bronze.ingest import ingest_events  # noqa: E402
from medallion.db.connection import connect  # noqa: E402
from medallion.distill.providers.heuristic import HeuristicDistiller  # noqa: E402
from medallion.distill.vocabulary import predicates as seed_predicates  # noqa: E402
from medallion.serve.tools import open_tools  # noqa: E402
from medallion.settings import Settings  # noqa: E402
from medallion.silver.derive import derive  # noqa: E402
from medallion.silver.embed import load_model  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
DEFAULT_PATH = FACTCONSOLIDATION.path
LENGTHS = ("6k", "32k", "64k", "262k")
SETS = tuple(f"{hop}_{n}" for hop in ("sh", "mh") for n in LENGTHS)
QUICK = ("sh_6k", "mh_6k")
K = 5
ACTOR, KIND, SOURCE = "user:archivist", "transcript", "factconsolidation"
BASE_TIME = datetime(2024, 1, 1, tzinfo=UTC)  # fixed, so reruns land identical events
INGEST_BATCH = 500  # events per ingest call: the bar moves, the COPY path stays batched
BM25_K1, BM25_B, BM25_EPSILON = 1.5, 0.75, 0.25
MISS_SAMPLES = 10
TARGETS = {"sh_acc@1": 90.0, "mh_hit@5": 35.0}  # at every length
PUBLISHED = {
    "memoryagentbench": {
        "source": "Hu, Wang, McAuley, arXiv 2507.05257 (answer accuracy, %, LLM reader)",
        "FC-SH": {"HippoRAG-v2": 54, "BM25": 48, "Mem0": 18, "Zep/Graphiti": 7},
        "FC-MH": {"all 22 systems": "≤ 7"},
    },
    "max_serial_recipe": {
        "source": "deterministic max-serial recipe, arXiv 2606.01435 (answer accuracy, %)",
        "FC-SH": {"gpt-4o-mini": 78.0, "gpt-4o": 94.8},
        "FC-MH": {"gpt-4o-mini": 30.2, "gpt-4o": 51.5},
    },
}
_NUMBERING = re.compile(r"^\s*(\d+)[.)]\s+")
_TOKEN = re.compile(r"[^\W_]+")
_PUNCT = re.compile(r"[\W_]+")


# --------------------------------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------------------------------

def load(path: Path | str = DEFAULT_PATH) -> dict[str, dict[str, Any]]:
    """The eight records by set key (``sh_6k`` …); without the file the script ends (exit status 2, one sentence)."""
    return {r["source"].removeprefix("factconsolidation_"): r
            for r in json.loads(FACTCONSOLIDATION.require(path).read_text())}


def namespace(key: str) -> str:
    return "fc-" + key.replace("_", "-")


def fact_texts(facts: Sequence[str]) -> tuple[list[str], bool]:
    """The facts without a leading running number, and whether one was stripped.

    Stripped only when *every* fact starts with its own index (0- or 1-based): a number at the start
    of a few facts is part of a name, not a list numbering.
    """
    matches = [_NUMBERING.match(f) for f in facts]
    for offset in (0, 1):
        if facts and all(m is not None and int(m.group(1)) == i + offset for i, m in enumerate(matches)):
            return [f[m.end():].strip() for f, m in zip(facts, matches, strict=True) if m is not None], True
    return [f.strip() for f in facts], False


def to_events(key: str, facts: Sequence[str]) -> list[dict[str, Any]]:
    """Bronze events (B2 contract), one per fact, ``occurred_at`` strictly increasing in list order."""
    ns = namespace(key)
    return [{"namespace": ns, "source": SOURCE, "source_event_id": f"{key}:{i}", "kind": KIND, "actor": ACTOR,
             "content": text, "occurred_at": (BASE_TIME + timedelta(seconds=i)).isoformat(),
             "provenance_root": f"memoryagentbench://factconsolidation_{key}", "metadata": {"index": i}}
            for i, text in enumerate(facts)]


# --------------------------------------------------------------------------------------------------
# Scoring
# --------------------------------------------------------------------------------------------------

def normalise(text: str) -> str:
    """NFKC, case-folded, punctuation to spaces, whitespace collapsed: 'D.C.' and 'D. C.' compare equal."""
    return " ".join(_PUNCT.sub(" ", unicodedata.normalize("NFKC", text).casefold()).split())


def holds_answer(text: str, answers: Sequence[str]) -> bool:
    """Whether a gold answer occurs in the text as whole words (after :func:`normalise`)."""
    padded = f" {normalise(text)} "
    return any(f" {a} " in padded for a in (normalise(x) for x in answers) if a)


def result_text(hit: dict[str, Any]) -> str:
    """What a search result serves: its statement and its value (a chunk's statement is its text)."""
    value = hit.get("value")
    if value is not None and not isinstance(value, str):
        value = json.dumps(value, ensure_ascii=False)
    return " ".join(part for part in (hit.get("statement"), value) if part)


def pct(flags: Sequence[bool]) -> float:
    return round(100 * sum(flags) / len(flags), 1) if flags else 0.0


def latency(seconds: Sequence[float]) -> dict[str, float]:
    ordered = sorted(seconds)
    return {"total_s": round(sum(ordered), 2), "p50_ms": round(statistics.median(ordered) * 1000, 2),
            "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))] * 1000, 2)}


class BM25:
    """Okapi BM25 over raw fact texts, as rank_bm25's BM25Okapi (not installed here) computes it.

    idf = log((N − df + 0.5) / (df + 0.5)), a negative idf (a term in more than half the facts)
    floored at ε × the mean idf; query terms count with repetition. Tokens: case-folded runs of
    letters and digits. Kept in the script so the baseline needs no database and no extra package.
    """

    def __init__(self, docs: Sequence[str], k1: float = BM25_K1, b: float = BM25_B, epsilon: float = BM25_EPSILON):
        self.k1, self.b, self.n = k1, b, len(docs)
        tfs = [Counter(tokens(d)) for d in docs]
        self.norm = [0.0] * self.n
        avg = sum(sum(tf.values()) for tf in tfs) / self.n if self.n else 0.0
        self.postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for i, tf in enumerate(tfs):
            self.norm[i] = k1 * (1 - b + b * sum(tf.values()) / avg) if avg else k1
            for term, count in tf.items():
                self.postings[term].append((i, count))
        idf = {t: math.log(self.n - len(p) + 0.5) - math.log(len(p) + 0.5) for t, p in self.postings.items()}
        floor = epsilon * (sum(idf.values()) / len(idf)) if idf else 0.0
        self.idf = {t: v if v >= 0 else floor for t, v in idf.items()}

    def scores(self, query: str) -> list[float]:
        out = [0.0] * self.n
        for term in tokens(query):
            idf = self.idf.get(term)
            if idf is None:
                continue
            for i, tf in self.postings[term]:
                out[i] += idf * tf * (self.k1 + 1) / (tf + self.norm[i])
        return out

    def ranked(self, query: str, k: int) -> tuple[list[int], int]:
        """The first k fact indices (score descending, earliest first among ties) and the latest fact
        among those sharing the top score."""
        scores = self.scores(query)
        order = sorted(range(self.n), key=lambda i: (-scores[i], i))[:k]
        if not order:
            return [], -1
        top = scores[order[0]]
        latest = max(i for i, s in enumerate(scores) if math.isclose(s, top, rel_tol=1e-9, abs_tol=1e-12))
        return order, latest


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(unicodedata.normalize("NFKC", text).casefold())


def bm25_baselines(facts: Sequence[str], questions: Sequence[str], answers: Sequence[Sequence[str]]
                   ) -> dict[str, Any]:
    t0 = time.perf_counter()
    index = BM25(facts)
    top1, hit5, latest1 = [], [], []
    for q, gold in zip(questions, answers, strict=True):
        order, latest = index.ranked(q, K)
        top1.append(bool(order) and holds_answer(facts[order[0]], gold))
        hit5.append(any(holds_answer(facts[i], gold) for i in order))
        latest1.append(latest >= 0 and holds_answer(facts[latest], gold))
    return {"bm25": {"acc@1": pct(top1), f"hit@{K}": pct(hit5)}, "bm25_latest": {"acc@1": pct(latest1)},
            "seconds": round(time.perf_counter() - t0, 2)}


# --------------------------------------------------------------------------------------------------
# The engine
# --------------------------------------------------------------------------------------------------

@contextmanager
def bars(console: Console) -> Iterator[Callable[[str, int], Callable[[int], None]]]:
    """Rich progress bars on stderr (as the CLI draws them); ``start(label, total)`` → ``set(done)``."""
    with Progress(TextColumn("{task.description:<22}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console) as progress:
        def start(label: str, total: int) -> Callable[[int], None]:
            task = progress.add_task(label, total=total)
            return lambda done: progress.update(task, completed=done)
        yield start


def ingest(settings: Settings, events: list[dict[str, Any]], advance: Callable[[int], None]) -> dict[str, Any]:
    conn = connect(settings, "engine", autocommit=True)
    try:
        t0 = time.perf_counter()
        counts: Counter[str] = Counter()
        for start in range(0, len(events), INGEST_BATCH):
            result = ingest_events(conn, events[start:start + INGEST_BATCH], origin="bench")
            counts.update(s.status for s in result.statuses)
            advance(min(start + INGEST_BATCH, len(events)))
        return {"statuses": dict(counts), "seconds": round(time.perf_counter() - t0, 2)}
    finally:
        conn.close()


def derive_namespace(settings: Settings, ns: str, advance: Callable[[int], None]) -> dict[str, Any]:
    """Derive one namespace with the heuristic distiller, then read the ledger figures of step 4."""
    conn = connect(settings, "engine", autocommit=True)
    try:
        report = derive(conn, settings, namespaces=[ns], distiller=HeuristicDistiller(),
                        progress=lambda done, _total, _committed: advance(done))
        facts, current, chunks, supersedes, states, distinct = conn.execute(
            "SELECT (SELECT count(*) FROM silver.facts WHERE namespace = %(ns)s), "
            "(SELECT count(*) FROM silver.facts WHERE namespace = %(ns)s AND valid_to IS NULL), "
            "(SELECT count(*) FROM silver.chunks WHERE namespace = %(ns)s), "
            "(SELECT count(*) FROM silver.resolutions WHERE namespace = %(ns)s AND decision = 'supersede'), "
            "(SELECT count(*) FROM silver.facts WHERE namespace = %(ns)s AND predicate = 'states'), "
            "(SELECT count(DISTINCT predicate) FROM silver.facts WHERE namespace = %(ns)s)", {"ns": ns}).fetchone()
        by_predicate = dict(conn.execute(
            "SELECT predicate, count(*) FROM silver.facts WHERE namespace = %s GROUP BY predicate "
            "ORDER BY count(*) DESC, predicate", (ns,)).fetchall())
    finally:
        conn.close()
    seeds = set(seed_predicates())
    learned = [p for p in by_predicate if p not in seeds]
    return {
        "facts": facts, "current_facts": current, "chunks": chunks, "supersedes": supersedes,
        "states_facts": states, "states_share": round(states / facts, 4) if facts else None,
        "predicates": distinct, "learned_predicates": len(learned),
        "top_predicates": dict(list(by_predicate.items())[:10]),
        "decisions": dict(report.decisions), "outcomes": dict(report.outcomes), "failures": len(report.failures),
        "embeddings_encoded": report.embeddings_encoded, "embedding_cache_hits": report.cache_hits,
        "seconds": round(report.seconds, 2),
    }


def ask(settings: Settings, ns: str, questions: Sequence[str], answers: Sequence[Sequence[str]],
        advance: Callable[[int], None]) -> dict[str, Any]:
    """Every question through the public ``search`` tool, default options, k = 5."""
    top1, hit5, kinds, seconds, misses = [], [], Counter(), [], []
    with open_tools(settings=settings, origin="bench") as tools:
        for n, (q, gold) in enumerate(zip(questions, answers, strict=True), start=1):
            t0 = time.perf_counter()
            hits = tools.search(q, namespace=ns, k=K)
            seconds.append(time.perf_counter() - t0)
            texts = [result_text(h) for h in hits]
            top1.append(bool(texts) and holds_answer(texts[0], gold))
            hit5.append(any(holds_answer(t, gold) for t in texts))
            kinds[hits[0]["kind"] if hits else "none"] += 1
            if not top1[-1] and len(misses) < MISS_SAMPLES:
                misses.append({"question": q, "answers": list(gold), "top": texts[0] if texts else None,
                               "in_top5": hit5[-1]})
            advance(n)
    return {"acc@1": pct(top1), f"hit@{K}": pct(hit5), "top_kind": dict(kinds), "latency": latency(seconds),
            "misses_sample": misses}


def run_set(settings: Settings, key: str, record: dict[str, Any], start: Callable[[str, int], Callable[[int], None]]
            ) -> dict[str, Any]:
    facts, stripped = fact_texts(record["facts"])
    questions, answers = record["questions"], record["answers"]
    ns = namespace(key)
    events = to_events(key, facts)
    ingested = ingest(settings, events, start(f"{key} ingest", len(events)))
    ledger = derive_namespace(settings, ns, start(f"{key} derive", len(events)))
    medallion = ask(settings, ns, questions, answers, start(f"{key} questions", len(questions)))
    baselines = bm25_baselines(facts, questions, answers)
    return {
        "set": f"factconsolidation_{key}", "namespace": ns, "facts_in": len(facts), "numbering_stripped": stripped,
        "questions": len(questions),
        "answer_in_some_fact": pct([any(holds_answer(f, a) for f in facts) for a in answers]),
        "medallion": medallion, "bm25": baselines["bm25"], "bm25_latest": baselines["bm25_latest"],
        "ledger": {k: v for k, v in ledger.items() if k != "seconds"},
        "seconds": {"ingest": ingested["seconds"], "derive": ledger["seconds"],
                    "questions": medallion["latency"]["total_s"], "bm25": baselines["seconds"]},
        "ingest": ingested["statuses"], "date": machine()["date"],
    }


# --------------------------------------------------------------------------------------------------
# Reporting
# --------------------------------------------------------------------------------------------------

def code() -> dict[str, str]:
    """The LoCoMo bench's engine hashes, plus the files that decide a fact's slot (the open vocabulary)."""
    out = code_versions()
    for rel in ("medallion/distill/predicates.py", "medallion/distill/seeds/predicates.csv",
                "medallion/distill/seeds/predicate_aliases.csv"):
        if (REPO / rel).exists():
            out[rel.split("/", 1)[1]] = hashlib.sha256((REPO / rel).read_bytes()).hexdigest()[:12]
    return out


def git_info() -> dict[str, Any]:
    """The commit the figures come from, and whether the working tree differed from it."""
    def git(*args: str) -> str:
        try:
            return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return ""
    dirty = git("status", "--porcelain", "--", "medallion", "dagster_project", "dbt_project", "bench")
    return {"commit": git("rev-parse", "HEAD"), "dirty": bool(dirty)}


def targets(sets: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The targets per set that ran: single-hop acc@1 ≥ 90, multi-hop hit@5 ≥ 35, at every length."""
    held: dict[str, Any] = {}
    for key, s in sets.items():
        if key.startswith("sh_"):
            held[key] = {"acc@1": s["medallion"]["acc@1"], "holds": s["medallion"]["acc@1"] >= TARGETS["sh_acc@1"]}
        else:
            held[key] = {f"hit@{K}": s["medallion"][f"hit@{K}"],
                         "holds": s["medallion"][f"hit@{K}"] >= TARGETS["mh_hit@5"]}
    return held


def print_table(sets: dict[str, dict[str, Any]]) -> None:
    head = (f"{'set':<9}{'facts':>7}{'acc@1':>7}{'hit@5':>7}{'BM25@1':>8}{'BM25@5':>8}{'latest@1':>9}"
            f"{'states':>8}{'supers.':>8}{'preds':>7}{'learned':>8}{'derive s':>10}{'p50 ms':>8}")
    print(f"\nFactConsolidation: medallion search vs raw-fact BM25 (%), k = {K}\n{head}")
    for key, s in sets.items():
        m, led = s["medallion"], s["ledger"]
        share = f"{100 * led['states_share']:.0f}%" if led["states_share"] is not None else "—"
        print(
            f"{key:<9}{s['facts_in']:>7}{m['acc@1']:>7.1f}{m[f'hit@{K}']:>7.1f}{s['bm25']['acc@1']:>8.1f}"
            f"{s['bm25'][f'hit@{K}']:>8.1f}{s['bm25_latest']['acc@1']:>9.1f}{share:>8}{led['supersedes']:>8}"
            f"{led['predicates']:>7}{led['learned_predicates']:>8}{s['seconds']['derive']:>10.1f}"
            f"{m['latency']['p50_ms']:>8.1f}")
    mas, serial = PUBLISHED["memoryagentbench"], PUBLISHED["max_serial_recipe"]
    print("published (answer accuracy, LLM reader; not the same measure): FC-SH "
          + ", ".join(f"{k} {v}" for k, v in mas["FC-SH"].items()) + "; FC-MH ≤ 7 for all 22 systems; "
          f"max-serial recipe SH {serial['FC-SH']['gpt-4o-mini']} / {serial['FC-SH']['gpt-4o']}, MH "
          f"{serial['FC-MH']['gpt-4o-mini']} / {serial['FC-MH']['gpt-4o']} (gpt-4o-mini / gpt-4o)")


# --------------------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------------------

def choose(sets: str | None, quick: bool) -> list[str]:
    if quick:
        return list(QUICK)
    if not sets:
        return list(SETS)
    chosen = [s.strip().removeprefix("factconsolidation_") for s in sets.split(",") if s.strip()]
    unknown = [s for s in chosen if s not in SETS]
    if unknown:
        raise SystemExit(f"unknown set(s) {', '.join(unknown)}; choose from {', '.join(SETS)}")
    return chosen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", default=None, help="comma-separated, e.g. sh_6k,mh_6k (default: all 8)")
    parser.add_argument("--quick", action="store_true", help="only " + ",".join(QUICK))
    parser.add_argument("--data", default=str(DEFAULT_PATH), help="the JSON (default: ../shared/data)")
    parser.add_argument("--output", default=str(RESULTS / "factconsolidation.json"))
    parser.add_argument("--merge", action="store_true",
                        help="keep the sets of an existing --output this run does not redo (each set keeps its date)")
    args = parser.parse_args()
    started = time.perf_counter()
    chosen = choose(args.sets, args.quick)
    if not chosen:
        raise SystemExit("no set chosen")
    data = load(args.data)
    console = Console(stderr=True)
    out_path = Path(args.output)
    done: dict[str, dict[str, Any]] = {}
    if args.merge and out_path.exists():
        done = {k: v for k, v in json.loads(out_path.read_text()).get("sets", {}).items() if k not in chosen}

    def write(model_load: float) -> dict[str, Any]:
        """Written after every set, so a long run that stops keeps the sets it finished."""
        sets = {k: done[k] for k in SETS if k in done}
        payload = {
            "machine": machine(), "code": code(), "git": git_info(),
            "benchmark": "MemoryAgentBench FactConsolidation (Conflict Resolution), through Tools.search",
            "data": {"path": str(Path(args.data).resolve()), "licence": "MIT (ai-hyz/MemoryAgentBench)",
                     "sets_run": list(sets)},
            "method": {"k": K, "events": f"one per fact, actor {ACTOR}, kind {KIND}, occurred_at = "
                       f"{BASE_TIME.isoformat()} + index seconds", "distiller": "heuristic",
                       "search": "Tools.search(question, namespace, k=5), default options",
                       "acc@1": "the first result's statement/value holds a gold answer (whole words, normalised)",
                       f"hit@{K}": "any of the first five does",
                       "bm25": f"Okapi k1 {BM25_K1}, b {BM25_B}, rank_bm25 idf (ε {BM25_EPSILON}), raw fact texts, "
                               "ties earliest-first; bm25_latest: the latest fact among those with the top score",
                       "states_share": "facts with predicate 'states' / all facts (all versions)",
                       "supersedes": "silver.resolutions rows with decision 'supersede'",
                       "derive_seconds": "a multi-hop set holds the same facts as its single-hop twin: derived "
                                         "after it in one run, it finds their embeddings cached (see "
                                         "embedding_cache_hits)"},
            "sets": sets, "published": PUBLISHED,
            "targets": {"sh_acc@1_every_length": TARGETS["sh_acc@1"], f"mh_hit@{K}_every_length": TARGETS["mh_hit@5"],
                        "held": targets(sets)},
            "seconds": {"model_load": round(model_load, 2), "total": round(time.perf_counter() - started, 1)},
        }
        out_path.parent.mkdir(parents=True, exist_ok=True)
        out_path.write_text(json.dumps(payload, indent=2, ensure_ascii=False, default=str) + "\n")
        return payload

    with bench_settings("factconsolidation") as settings:
        t0 = time.perf_counter()
        load_model(settings.embedding_model).encode(["warm up"])  # the one-off model load, kept out of derive
        model_load = time.perf_counter() - t0
        with bars(console) as start:
            for key in chosen:
                done[key] = result = run_set(settings, key, data[key], start)
                m = result["medallion"]
                console.print(f"{key}: acc@1 {m['acc@1']} hit@5 {m[f'hit@{K}']} · BM25 {result['bm25']['acc@1']} "
                              f"· BM25 latest {result['bm25_latest']['acc@1']} · seconds {result['seconds']}",
                              markup=False)
                payload = write(model_load)
    print_table(payload["sets"])
    print("\nTargets (FC-SH acc@1 ≥ 90, FC-MH hit@5 ≥ 35, at every length):")
    print(json.dumps(payload["targets"]["held"], indent=1))
    print(f"wrote {out_path} in {time.perf_counter() - started:.0f}s")


if __name__ == "__main__":
    main()
