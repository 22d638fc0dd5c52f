"""The numpy MiniLM encoder on a tiny BERT written here: unit vectors, padding that changes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("tokenizers")
pytest.importorskip("safetensors")

from tapestryd.quality.minilm import MiniLMEncoder  # noqa: E402

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "cat", "sat", "on", "mat", "a", "dog", "ran", "far", "away"]
HIDDEN, INNER, LAYERS = 8, 16, 2


def _tiny_bert(folder: Path) -> Path:
    """A 2-layer BERT with random weights and a word-piece tokenizer over VOCAB, in the model package's layout."""
    from safetensors.numpy import save_file
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

    tokenizer = Tokenizer(models.WordPiece({w: i for i, w in enumerate(VOCAB)}, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.post_processor = processors.TemplateProcessing(single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 2),
                                                                                                        ("[SEP]", 3)])
    tokenizer.enable_padding(length=32)  # the real file pads to a fixed length too; the encoder must not
    tokenizer.save(str(folder / "tokenizer.json"))
    rng = np.random.default_rng(7)
    shapes = {"embeddings.word_embeddings.weight": (len(VOCAB), HIDDEN), "embeddings.position_embeddings.weight": (
        64, HIDDEN), "embeddings.token_type_embeddings.weight": (2, HIDDEN)}
    dense = {"attention.self.query": (HIDDEN, HIDDEN), "attention.self.key": (HIDDEN, HIDDEN),
             "attention.self.value": (HIDDEN, HIDDEN), "attention.output.dense": (HIDDEN, HIDDEN),
             "intermediate.dense": (INNER, HIDDEN), "output.dense": (HIDDEN, INNER)}
    for layer in range(LAYERS):
        for name, shape in dense.items():
            shapes[f"encoder.layer.{layer}.{name}.weight"] = shape
            shapes[f"encoder.layer.{layer}.{name}.bias"] = (shape[0],)
    weights = {k: rng.normal(0, 0.5, v).astype(np.float32) for k, v in shapes.items()}
    for norm in ["embeddings.LayerNorm"] + [f"encoder.layer.{i}.{n}.LayerNorm" for i in range(LAYERS)
                                            for n in ("attention.output", "output")]:
        weights[norm + ".weight"], weights[norm + ".bias"] = np.ones(HIDDEN, np.float32), np.zeros(HIDDEN, np.float32)
    save_file(weights, str(folder / "model.safetensors"))
    (folder / "config.json").write_text(json.dumps({"num_attention_heads": 2, "num_hidden_layers": LAYERS}))
    return folder


def test_embeddings_are_unit_rows_one_per_text(tmp_path: Path) -> None:
    """Shape (texts, hidden) and norm 1, what the cosine judge expects."""
    vectors = MiniLMEncoder(_tiny_bert(tmp_path)).encode(["the cat sat", "a dog ran far away", "the mat"])
    assert vectors.shape == (3, HIDDEN)
    assert np.linalg.norm(vectors, axis=1) == pytest.approx(np.ones(3), abs=1e-5)


def test_a_text_embeds_the_same_alone_and_beside_a_longer_one(tmp_path: Path) -> None:
    """Padding tokens are masked out of attention and pooling: batch company changes nothing."""
    encoder = MiniLMEncoder(_tiny_bert(tmp_path))
    alone = encoder.encode(["the cat sat"])[0]
    batched = encoder.encode(["a dog ran far away on the mat the cat sat on", "the cat sat"])[1]
    assert batched == pytest.approx(alone, abs=1e-5)
    assert not np.allclose(alone, encoder.encode(["a dog ran"])[0])
