"""R8: people's overlays survive a full rebuild after a change to the distill prompt (G6).

The LLM distiller (the real openai client against the test's OpenAI-compatible server) words its
statements differently once the prompt changes, the way a new prompt does. 120 overlays anchored to
the first wording must re-anchor to the second (exact quote, else fuzzy); what cannot goes to the
review queue; none is dropped.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

from medallion.bronze.ingest import ingest_events
from medallion.distill import llm
from medallion.serve.tools import REDACTED, open_tools
from medallion.settings import Settings
from medallion.silver import fingerprint
from medallion.silver.derive import derive
from tests.conftest import REPO
from tests.support.fake_openai import FakeOpenAI, judge_responder, parse_distill_message

N = 120
MARKER = "Prefer the verb 'resides'."
_SENTENCE = re.compile(r"I live in (?P<city>[\w ]+?)\.")


def _responder(request: dict[str, Any]) -> dict[str, Any]:
    """Distill 'I live in X.' into lives_in; the new prompt words it 'resides in' instead of 'lives in'."""
    if ((request.get("response_format") or {}).get("json_schema") or {}).get("name") == "judge":
        return judge_responder(request)
    system = " ".join(str(m.get("content", "")) for m in request.get("messages", []) if m.get("role") == "system")
    user = next(str(m["content"]) for m in reversed(request["messages"]) if m.get("role") == "user")
    parsed = parse_distill_message(user)
    match = _SENTENCE.search(parsed["content"])
    if not match:
        return {"facts": []}
    verb = "resides in" if MARKER in system else "lives in"
    city = match.group("city")
    return {"facts": [{"subject": parsed["speaker"], "predicate": "lives_in", "value": city,
                       "statement": f"{parsed['speaker']} {verb} {city}.", "valid_from": parsed["time"],
                       "confidence": 0.9}]}


def _use_models(models: Path) -> None:
    """Point the fingerprints and the LLM provider's prompt loading at ``models``."""
    fingerprint.MODELS = models  # type: ignore[attr-defined]
    llm.MODELS = models  # type: ignore[attr-defined]
    for cached in (fingerprint.distill_fingerprint, fingerprint.judge_fingerprint, fingerprint.embed_fingerprint):
        cached.cache_clear()


def test_r8_overlays_survive_a_rebuild_after_a_prompt_change(database_url: str, tmp_path: Path) -> None:
    original_models = fingerprint.MODELS
    models = tmp_path / "model_configs"
    shutil.copytree(REPO / "model_configs", models)
    with FakeOpenAI(_responder) as fake:
        settings = Settings(home=tmp_path / "home", database_url=database_url, inbox=tmp_path / "inbox",
                            llm_provider="openai", llm_model="gpt-4o-mini", openai_base_url=fake.url,
                            openai_api_key="test")
        events = [{"namespace": "r8", "source": "chat", "source_event_id": f"m{i}", "kind": "transcript",
                   "actor": f"user:person{i}", "content": f"I live in City {i}.", "provenance_root": f"chat://m{i}",
                   "occurred_at": "2026-05-01T10:00:00+00:00"} for i in range(N)]
        try:
            _use_models(models)
            with open_tools(None, settings) as tools:
                assert ingest_events(tools.engine, events, origin="test").inserted == N
                derive(tools.engine, settings)
                facts = tools.list(namespace="r8", limit=1000)
                assert len(facts) == N and all(" lives in " in f["statement"] for f in facts)
                # 1 in 10 quotes the verb phrase the new prompt rewords; the rest quote the city
                overlay_events = []
                for i, fact in enumerate(sorted(facts, key=lambda f: f["fact_id"])):
                    city = fact["value"]
                    quote = f"lives in {city}" if i % 10 == 0 else city
                    action = ("edit", "annotate", "redact")[i % 3]
                    payload = {"fact_id": fact["fact_id"], "action": action,
                               "selector": {"exact": quote, "prefix": "", "suffix": ""},
                               "text": f"{city} (confirmed)" if action == "edit" else None,
                               "note": "checked with HR" if action == "annotate" else None}
                    overlay_events.append({
                        "namespace": "r8", "source": "overlay", "source_event_id": f"o{i}", "kind": "overlay",
                        "actor": "user:reviewer", "content": json.dumps(payload),
                        "provenance_root": f"overlay://{fact['fact_id']}",
                        "metadata": {"anchor": {"bronze_event_id": fact["provenance"]["bronze_event_id"],
                                                "predicate": "lives_in"}}})
                assert ingest_events(tools.engine, overlay_events, origin="test").inserted == N
                derive(tools.engine, settings)
                before = dict(tools.engine.execute(
                    "SELECT status, count(*) FROM silver.overlays GROUP BY 1").fetchall())
                assert before == {"anchored": N}

                # the prompt changes: the fingerprint moves, the next run re-derives the namespace
                prompt = models / "prompts" / "distill.md"
                prompt.write_text(prompt.read_text() + f"\n{MARKER}\n")
                _use_models(models)
                report = derive(tools.engine, settings, full_rebuild=True)
                assert report.facts == N
                reworded = tools.list(namespace="r8", limit=1000)
                derived = [r[0] for r in tools.engine.execute("SELECT statement FROM silver.facts").fetchall()]
                assert len(derived) == N and all(" resides in " in s for s in derived)

                rows = tools.engine.execute(
                    "SELECT status, anchor_method, count(*) FROM silver.overlays GROUP BY 1, 2").fetchall()
                by_status: dict[str, int] = {}
                for status, _, count in rows:
                    by_status[status] = by_status.get(status, 0) + count
                assert sum(by_status.values()) == N, "no overlay is dropped"
                reanchored = by_status.get("anchored", 0) + by_status.get("reanchored", 0)
                assert reanchored / N >= 0.95, rows
                unanchored = by_status.get("unanchored", 0)
                # what could not re-anchor is listed for review (the dbt review_queue reads these rows)
                assert unanchored == N - reanchored

                # the person's versions still win on read after the rebuild
                for fact in reworded[:30]:
                    [served] = tools.read(fact["fact_id"])
                    actions = {o["action"] for o in served["overlays"]}
                    if "redact" in actions:
                        assert REDACTED in served["statement"] and "City" not in served["statement"]
                    if "edit" in actions:
                        assert "(confirmed)" in served["statement"]
        finally:
            _use_models(original_models)
