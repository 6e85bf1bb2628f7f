"""Llama, Qwen2 and Qwen3 folders convert exactly: logits within 1e-4 and every attention pattern within 1e-5 of
`transformers` in eager mode, on a right-padded batch of English and Chinese, on tiny random folders built here
(fewer key/value heads than query heads, rope_theta 5000, random norm gains and biases, tied and untied outputs,
Qwen3's head_dim of its own); key/value-cache decoding equal, bit for bit, to rerunning the prefix.
"""

import pytest
import torch

from hook_names import act_name
from tests.transformer.test_pretrained_exact import _pad, _reference
from transformer.engine.decoding import greedy_decode
from transformer.engine.kv_cache import FullRecompute, KeyValueCache, cache_honours
from transformer.hf.load import convert
from transformer.hooks import capture
from transformer.text.tokenizer import PAD_ID

transformers = pytest.importorskip("transformers")

MODERN = ("llama", "qwen2", "qwen3")
TEXTS = ["i read a book in the library today", "the cat sat", "我 今天 在 图书馆 读 书"]
LOGITS_TOL, PATTERN_TOL = 1e-4, 1e-5


def _close_rows(ours: torch.Tensor, theirs: torch.Tensor, real: torch.Tensor, tol: float, what: str) -> None:
    for b in range(real.shape[0]):
        n = int(real[b].sum())
        a, e = (ours[b, :, :n, :n], theirs[b, :, :n, :n]) if ours.dim() == 4 else (ours[b, :n], theirs[b, :n])
        assert torch.allclose(a, e, atol=tol, rtol=0), f"{what}, batch item {b}: max diff {(a - e).abs().max():.2e}"


@pytest.mark.parametrize("family", MODERN)
def test_converted_decoder_matches_transformers(pretrained_dir, family):
    hf_model, tok = _reference(family, pretrained_dir / f"tiny-{family}")
    bundle = convert(hf_model, tok, family)
    config = bundle.config
    assert (config.positional, config.norm, config.feed_forward) == ("rotary", "rmsnorm", "swiglu")
    assert config.kv_heads < config.n_heads and config.rope_theta == 5000.0
    assert config.qk_norm == (family == "qwen3") and config.estimated_parameters() == bundle.model.num_parameters()
    rows = [[tok.eos_token_id, *tok(t, add_special_tokens=False).input_ids] for t in TEXTS]
    ids, real = _pad(rows, tok.eos_token_id)
    ours_ids = _pad([[bundle.target_tokenizer.map.ours(i) for i in r] for r in rows], PAD_ID)[0]
    with torch.no_grad():
        out = hf_model(input_ids=ids, attention_mask=real, output_attentions=True)
        with capture(bundle.model) as cache:
            logits = bundle.model(None, ours_ids)
    vocab = bundle.target_tokenizer.map
    ours_logits = logits[..., [vocab.output_id(h) for h in range(vocab.size)]]
    _close_rows(ours_logits, out.logits, real, LOGITS_TOL, "logits")
    assert len(out.attentions) == config.n_layers
    for layer, expected in enumerate(out.attentions):
        pattern = cache[act_name("decoder", layer, "pattern")]
        assert pattern.shape[1] == config.n_heads  # one pattern per query head
        _close_rows(pattern, expected, real, PATTERN_TOL, f"layer {layer} pattern")
    # each key/value head's keys are shown once for every query head of its group, identical within the group
    keys = cache[act_name("decoder", 0, "k")]  # (B, H, T, d_k)
    group = config.n_heads // config.kv_heads
    assert torch.equal(keys[:, 0], keys[:, group - 1]) and not torch.equal(keys[:, 0], keys[:, group])


@pytest.mark.parametrize("family", MODERN)
def test_key_value_cache_decoding_is_the_prefix_rerun(pretrained_dir, family):
    """Each cached step turns its new query and key to their own positions (the store's length on): its logits and
    its newest pattern row are the full pass's, and greedy decoding writes the same tokens, bit for bit."""
    hf_model, tok = _reference(family, pretrained_dir / f"tiny-{family}")
    model = convert(hf_model, tok, family).model
    assert cache_honours(model, {})
    ys = torch.tensor([[1, 9, 40, 77, 12]])
    cached = KeyValueCache(model, None)
    with torch.no_grad():
        for _ in range(8):
            with capture(model) as step:
                logits = cached.next_logits(ys)  # the first call reads the prompt, then one new token a step
            with capture(model) as full:
                want = FullRecompute(model, None).next_logits(ys)
            torch.testing.assert_close(logits, want, atol=1e-5, rtol=1e-5)
            for layer in range(model.config.n_layers):
                name = act_name("decoder", layer, "pattern")
                torch.testing.assert_close(step[name][:, :, -1:], full[name][:, :, -1:], atol=1e-6, rtol=0)
            ys = torch.cat([ys, logits.argmax(-1, keepdim=True)], dim=1)
        prefix = torch.tensor([[1, 9, 40]])
        assert torch.equal(greedy_decode(model, None, prefix, 12), greedy_decode(model, None, prefix, 12, incremental=False))


def test_grouped_query_attention_repeats_each_key_value_head_for_its_group():
    from transformer.grouped_query_attention import kv_group

    assert [kv_group(h, 14, 2) for h in range(14)] == [0] * 7 + [1] * 7
    assert [kv_group(h, 4, 4) for h in range(4)] == [0, 1, 2, 3]
