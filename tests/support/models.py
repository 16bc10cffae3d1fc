"""A model directory the engine's own encoder does not read, for the tests of the library path."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from medallion.silver import embed


def cls_pooling_copy(directory: Path) -> str:
    """The bundled model with CLS pooling instead of mean pooling: sentence-transformers loads it, the
    engine's encoder does not (``silver/sentence_encoder.readable``). The weights are linked, not copied."""
    bundled = Path(embed.model_path("all-MiniLM-L6-v2"))
    shutil.copytree(bundled, directory, ignore=shutil.ignore_patterns("model.safetensors"))
    (directory / "model.safetensors").symlink_to(bundled / "model.safetensors")
    pooling = directory / "1_Pooling" / "config.json"
    pooling.write_text(json.dumps({**json.loads(pooling.read_text()), "pooling_mode_cls_token": True,
                                   "pooling_mode_mean_tokens": False}))
    return str(directory)
