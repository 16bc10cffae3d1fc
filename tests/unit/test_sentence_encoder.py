"""S2: the engine's sentence encoder (silver/sentence_encoder.py) gives the bundled model's vectors bit for bit
as sentence-transformers does, and a model directory it cannot read goes to the library."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from sentence_transformers import SentenceTransformer

from medallion.silver import embed
from medallion.silver.sentence_encoder import SentenceEncoder, readable
from tests.support.models import cls_pooling_copy

BUNDLED = embed.model_path("all-MiniLM-L6-v2")
TEXTS = [
    "The standup moved to 9:30 on Mondays.",
    "hey!! did u see the new build?",
    "Ticket OPS-4471: the nightly export to the billing bucket fails with a 403 since the key rotation.",
    "Marta now leads the data platform team; Jonas moved to the payments squad.",
    "",
    "ok",
    "Émile's café — naïve façade, 東京 and 🙂 in one line.",
    "a very long note " * 90,  # past the model's 256 tokens: truncated the same way
    "I'm allergic to peanuts, and my sister is allergic to shellfish.",
    "Our on-call rotation: Ilse this week, then Tomasz, then back to Priya.",
]


@pytest.fixture(scope="module")
def library() -> SentenceTransformer:
    return SentenceTransformer(BUNDLED, device="cpu")


@pytest.fixture(scope="module")
def ours() -> SentenceEncoder:
    assert readable(BUNDLED)
    return SentenceEncoder(BUNDLED)


@pytest.mark.parametrize("batch_size", [64, 3, 1])
def test_the_same_vectors_as_sentence_transformers_bit_for_bit(library: SentenceTransformer, ours: SentenceEncoder,
                                                               batch_size: int) -> None:
    """Padded batches of mixed lengths, an empty text, non-ASCII and a text past the maximum length."""
    for normalize in (True, False):
        expected = library.encode(TEXTS, batch_size=batch_size, normalize_embeddings=normalize, convert_to_numpy=True)
        got = ours.encode(TEXTS, batch_size=batch_size, normalize_embeddings=normalize)
        assert got.dtype == np.float32 and got.shape == (len(TEXTS), 384)
        assert np.array_equal(got, expected)


def test_token_counts_are_the_libraries(library: SentenceTransformer, ours: SentenceEncoder) -> None:
    """The embedder batches by token count: the counts are the model's, truncation included."""
    expected = [len(ids) for ids in library.tokenizer(TEXTS, truncation=True, max_length=256)["input_ids"]]
    assert ours.token_counts(TEXTS) == expected and max(expected) == 256


def test_a_directory_it_cannot_read_is_loaded_by_the_library(tmp_path: Path) -> None:
    """Another pooling (CLS) is not this module's: load_model hands it to sentence-transformers."""
    copy = cls_pooling_copy(tmp_path / "cls-model")
    assert not readable(copy) and not readable(tmp_path / "missing")
    model = embed.load_model(copy)
    assert isinstance(model, SentenceTransformer)
    assert embed.token_counts(model, ["two words"]) == [4]
