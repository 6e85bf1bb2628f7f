"""Tied weights (share_embeddings) are written once and come back tied and equal."""

from __future__ import annotations

import torch
from safetensors import safe_open

from transformer.config import TransformerConfig
from transformer.model import Transformer
from transformer.storage.checkpoint import ModelBundle, load_checkpoint, save_checkpoint
from transformer.text.tokenizer import CharTokenizer


def test_shared_embeddings_are_stored_once_and_reload_exactly(tmp_path):
    tok = CharTokenizer("abcdefgh")
    config = TransformerConfig(
        n_layers=1, d_model=16, n_heads=2, d_ff=32, src_vocab_size=len(tok), tgt_vocab_size=len(tok), share_embeddings=True
    )
    torch.manual_seed(0)
    model = Transformer(config).eval()
    save_checkpoint(ModelBundle(model, tok, tok, {}, "tied"), tmp_path)
    with safe_open(str(tmp_path / "model.safetensors"), "pt") as f:
        stored = set(f.keys())
    shared = [n for n, t in model.state_dict().items() if t.data_ptr() == model.src_embed.lut.weight.data_ptr()]
    assert len(shared) == 3 and len(stored & set(shared)) == 1
    loaded = load_checkpoint(tmp_path)
    for name, tensor in model.state_dict().items():
        assert torch.equal(loaded.model.state_dict()[name], tensor), name
    src = torch.tensor([[4, 5, 6, 2]])
    tgt = torch.tensor([[1, 6, 5]])
    assert torch.equal(loaded.model(src, tgt), model(src, tgt))


def test_untied_models_store_every_tensor(tmp_path):
    tok = CharTokenizer("abc")
    config = TransformerConfig(n_layers=1, d_model=16, n_heads=2, d_ff=32, src_vocab_size=len(tok), tgt_vocab_size=len(tok))
    model = Transformer(config).eval()
    save_checkpoint(ModelBundle(model, tok, tok, {}, "untied"), tmp_path)
    with safe_open(str(tmp_path / "model.safetensors"), "pt") as f:
        assert set(f.keys()) == set(model.state_dict()) and "tied" not in (f.metadata() or {})
