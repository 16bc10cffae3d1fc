"""A BERT sentence encoder in plain torch, for sentence-transformers model directories such as the bundled
all-MiniLM-L6-v2: the tokenizer from ``tokenizers``, the weights from ``safetensors``, the pooling and
normalisation the directory's ``modules.json`` names.

Why not ``sentence_transformers.SentenceTransformer``: importing it (with ``transformers``) costs about
7 s of CPU in every process, against 2 s for torch alone, and every process that embeds pays it: each
CLI command that searches or remembers, each MCP server, each Dagster step process. The forward pass
is the same computation as ``transformers``' ``BertModel`` with its default (SDPA) attention, in the
same order, so the vectors are the same bit for bit (``tests/unit/test_sentence_encoder.py`` compares
them with the library's on varied text). A directory this module cannot read
(another architecture, another pooling) is loaded with sentence-transformers instead:
:func:`readable` says which.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

_MODULES = {"sentence_transformers.models.Transformer", "sentence_transformers.models.Pooling",
            "sentence_transformers.models.Normalize"}


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def readable(directory: str | Path) -> bool:
    """Whether ``directory`` is a sentence-transformers BERT model with mean pooling, which this module
    encodes; anything else goes to the library."""
    root = Path(directory)
    try:
        modules = _json(root / "modules.json")
        config = _json(root / "config.json")
        pooling = _json(root / next(m["path"] for m in modules if m["type"].endswith(".Pooling")) / "config.json")
    except (OSError, ValueError, KeyError, StopIteration):
        return False
    return ({m["type"] for m in modules} <= _MODULES
            and config.get("model_type") == "bert" and config.get("hidden_act") == "gelu"
            and config.get("position_embedding_type", "absolute") == "absolute"
            and (root / "model.safetensors").exists() and (root / "tokenizer.json").exists()
            and pooling.get("pooling_mode_mean_tokens") is True
            and not any(pooling.get(k) for k in ("pooling_mode_cls_token", "pooling_mode_max_tokens",
                                                 "pooling_mode_mean_sqrt_len_tokens")))


class SentenceEncoder:
    """Encodes texts into sentence vectors; the subset of ``SentenceTransformer`` the engine uses."""

    def __init__(self, directory: str | Path):
        import torch
        from safetensors.torch import load_file
        from tokenizers import Tokenizer

        root = Path(directory)
        config = _json(root / "config.json")
        self.max_seq_length = int(_json(root / "sentence_bert_config.json").get("max_seq_length", 512)) \
            if (root / "sentence_bert_config.json").exists() else int(config["max_position_embeddings"])
        self.normalize = any(m["type"].endswith(".Normalize") for m in _json(root / "modules.json"))
        self.tokenizer = Tokenizer.from_file(str(root / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=self.max_seq_length)
        self.tokenizer.no_padding()
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config["layer_norm_eps"])
        self.pad_id = int(config.get("pad_token_id", 0))
        weights = load_file(str(root / "model.safetensors"))
        self.w = {key.removeprefix("bert."): tensor for key, tensor in weights.items() if tensor.is_floating_point()}
        self.dimension = int(config["hidden_size"])
        self._torch = torch

    def get_embedding_dimension(self) -> int:
        return self.dimension

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        """Each text's length in tokens, special tokens included and truncated as the model reads it."""
        return [len(e.ids) for e in self.tokenizer.encode_batch(list(texts))]

    def encode(self, texts: Sequence[str], batch_size: int = 32, normalize_embeddings: bool = False,
               convert_to_numpy: bool = True, show_progress_bar: bool = False) -> np.ndarray:
        """Sentence vectors for ``texts``, in order. As the library does: longest texts first, in batches of
        ``batch_size`` padded to their longest, so the same call gives the same padding and the same bits."""
        del convert_to_numpy, show_progress_bar  # always numpy; the engine draws its own progress
        torch = self._torch
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        order = np.argsort([-len(t) for t in texts])
        with torch.inference_mode():
            for start in range(0, len(texts), batch_size):
                batch = order[start:start + batch_size]
                vectors = self._forward([texts[i] for i in batch])
                if self.normalize:  # the directory's Normalize module, then the caller's, as the library does
                    vectors = torch.nn.functional.normalize(vectors, p=2, dim=1)
                if normalize_embeddings:
                    vectors = torch.nn.functional.normalize(vectors, p=2, dim=1)
                out[batch] = vectors.numpy()
        return out

    def _forward(self, texts: list[str]) -> Any:
        """BertModel's forward (SDPA attention, no dropout) and mean pooling over the real tokens."""
        torch = self._torch
        functional = torch.nn.functional
        w = self.w
        encodings = self.tokenizer.encode_batch(texts)
        length = max(len(e.ids) for e in encodings)
        ids = torch.full((len(texts), length), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(texts), length), dtype=torch.long)
        for row, encoding in enumerate(encodings):
            ids[row, :len(encoding.ids)] = torch.tensor(encoding.ids)
            mask[row, :len(encoding.ids)] = 1
        hidden = (functional.embedding(ids, w["embeddings.word_embeddings.weight"])
                  + w["embeddings.token_type_embeddings.weight"][0])
        hidden = hidden + w["embeddings.position_embeddings.weight"][:length]
        hidden = self._norm(hidden, "embeddings.LayerNorm")
        # no padding: no mask (as transformers does); else a boolean mask of the keys each query may see
        attend = None if bool(mask.all()) else mask.bool()[:, None, None, :].expand(len(texts), 1, length, length)
        batch, _, width = hidden.shape
        head = width // self.heads
        for n in range(self.layers):
            p = f"encoder.layer.{n}."
            query, key, value = (self._linear(hidden, p + f"attention.self.{part}").view(batch, length, -1, head)
                                 .transpose(1, 2) for part in ("query", "key", "value"))
            attended = functional.scaled_dot_product_attention(query, key, value, attn_mask=attend, dropout_p=0.0,
                                                               scale=head ** -0.5, is_causal=False)
            attended = attended.transpose(1, 2).contiguous().reshape(batch, length, -1).contiguous()
            hidden = self._norm(self._linear(attended, p + "attention.output.dense") + hidden,
                                p + "attention.output.LayerNorm")
            inner = functional.gelu(self._linear(hidden, p + "intermediate.dense"))
            hidden = self._norm(self._linear(inner, p + "output.dense") + hidden, p + "output.LayerNorm")
        weights = mask.unsqueeze(-1).expand(hidden.size()).to(hidden.dtype)
        return torch.sum(hidden * weights, 1) / torch.clamp(weights.sum(1), min=1e-9)

    def _linear(self, x: Any, name: str) -> Any:
        return self._torch.nn.functional.linear(x, self.w[name + ".weight"], self.w[name + ".bias"])

    def _norm(self, x: Any, name: str) -> Any:
        return self._torch.nn.functional.layer_norm(x, (x.shape[-1],), self.w[name + ".weight"],
                                                    self.w[name + ".bias"], self.eps)

