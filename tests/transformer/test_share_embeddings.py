"""Paper §3.4 weight sharing: both embeddings and the generator are one matrix, and stay one after a reload."""

import pytest
import torch

from transformer.config import TransformerConfig
from transformer.storage.checkpoint import load_checkpoint, save_checkpoint
from transformer.storage.registry import random_bundle


@pytest.mark.parametrize("architecture", ["encoder-decoder", "decoder-only"])
def test_tied_weights_are_one_parameter_and_survive_a_reload(tmp_path, architecture):
    bundle = random_bundle(TransformerConfig(architecture=architecture, d_model=16, n_heads=2, d_ff=32, share_embeddings=True))
    model = bundle.model
    assert model.generator.proj.weight is model.tgt_embed.lut.weight
    untied = random_bundle(TransformerConfig(architecture=architecture, d_model=16, n_heads=2, d_ff=32)).model
    assert model.num_parameters() < untied.num_parameters()
    reloaded = load_checkpoint(save_checkpoint(bundle, tmp_path)).model
    assert reloaded.generator.proj.weight is reloaded.tgt_embed.lut.weight
    src, tgt = torch.tensor([[5, 6, 7, 2]]), torch.tensor([[1, 5, 6]])
    assert torch.equal(
        model(src if architecture == "encoder-decoder" else None, tgt),
        reloaded(src if architecture == "encoder-decoder" else None, tgt),
    )


def test_sharing_needs_one_vocabulary():
    with pytest.raises(ValueError, match="share_embeddings"):
        TransformerConfig(src_vocab_size=10, tgt_vocab_size=12, share_embeddings=True)
