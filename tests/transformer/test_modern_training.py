"""The trainer builds and trains today's decoder-only architecture (rotary positions, grouped-query attention,
RMSNorm, SwiGLU), and `gpt-en-zh` lays out en-zh's pairs as `English = 中文` with one bilingual tokenizer."""

import pytest
import torch

from transformer.tasks import get_task
from transformer.tasks.recipes import RECIPES
from transformer.training.train import TrainSettings, train

MODERN_SMALL = {
    "architecture": "decoder-only",
    "n_layers": 2,
    "d_model": 32,
    "n_heads": 4,
    "n_kv_heads": 2,
    "d_ff": 48,
    "dropout": 0.0,
    "norm_position": "pre",
    "positional": "rotary",
    "norm": "rmsnorm",
    "feed_forward": "swiglu",
    "qkv_bias": False,
    "out_bias": False,
    "ff_bias": False,
    "share_embeddings": True,
}


def test_a_modern_decoder_trains_and_its_loss_falls():
    settings = TrainSettings(task="gpt-translate-en-zh", steps=40, eval_every=0, warmup=10, config=MODERN_SMALL)
    result = train(settings)
    model = result.bundle.model
    assert model.config.positional == "rotary" and type(model.decoder.layers[0].self_attn).__name__ == "GroupedQueryAttention"
    assert sum(result.losses[-5:]) < sum(result.losses[:5])
    assert next(model.parameters()).device.type == "cpu"


def test_a_device_this_machine_lacks_is_refused_by_name():
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    with pytest.raises(ValueError, match="cuda"):
        TrainSettings(task="gpt-en-zh", device="cuda")


def test_gpt_en_zh_reads_english_pieces_and_chinese_characters():
    task = get_task("gpt-en-zh")
    tokenizer, same = task.tokenizers()
    assert tokenizer is same and "=" in tokenizer.index
    assert tokenizer.tokenize("她昨天来看我们了。") == list("她昨天来看我们了。")
    assert tokenizer.detokenize(tokenizer.tokenize("She came to see us yesterday.")) == "She came to see us yesterday."
    example = task.examples(1, split="train", seed=0)[0]
    assert not task.is_heldout(example.source) and any("\u4e00" <= ch <= "\u9fff" for ch in example.target)


def test_the_shipped_recipe_fits_25_megabytes():
    from transformer.config import TransformerConfig

    task = get_task("gpt-en-zh")
    size = len(task.tokenizers()[0])
    config = TransformerConfig.from_dict({**RECIPES["gpt-en-zh"].train["config"], "src_vocab_size": size, "tgt_vocab_size": size})
    assert config.has_modern_attention and config.kv_heads < config.n_heads
    assert config.estimated_bytes() < 23.5e6  # the weights; the folder adds its vocabulary, card and film
