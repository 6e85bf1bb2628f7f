"""The engine's contract (`transformer.engine.attend`): a run the engine takes over gives the readable path's tokens
and patterns.

The readable path is the paper's code as written: `MultiHeadAttention.forward` outside any engine context, and
decoding that reruns the whole prefix at every step (`greedy_decode(incremental=False)`, no key/value cache). The
engine is what the app runs: `trace_text` (lent scratch memory, in-place masking, the key/value cache, a long run
recorded by its own steps) and, for a large input, bfloat16 arithmetic a block of query rows at a time.

- float32 (every shipped model, random models of every architecture, a large random model): the same tokens, and
  the same patterns bit for bit (`torch.equal`);
- bfloat16 (the large model, recording only its patterns and logits, as the heads page does): every weight within
  `BFLOAT16_WEIGHTS` of float32's, every row summing to 1, and the same next token wherever float32's best token
  leads its runner-up by more than twice the logits' largest bfloat16 error (closer than that, rounding may
  legitimately pick the other).
"""

from __future__ import annotations

import pytest
import torch

from hook_names import GENERATOR, hook_name
from transformer.config import TransformerConfig
from transformer.engine import by_rows
from transformer.engine.decoding import greedy_decode, new_token_budget, trace_text
from transformer.hooks import capture
from transformer.storage.registry import MODELS_DIR, list_models, load_model, random_bundle
from transformer.text.prompt import text_rows
from transformer.text.tokenizer import EOS_ID

BFLOAT16_WEIGHTS = 2e-2  # 8 significant bits in each product, scores and softmax in float32 (`engine.precision`)
SYMBOLS = "abcdefghijklmnopqrstuvwxyz "
LOGITS = hook_name(GENERATOR, "logits")


def _patterns(model) -> list[str]:
    return [name for name in model.hook_names if name.endswith("hook_pattern")]


def _readable_tokens(bundle, text: str) -> list[int]:
    """The decoder's input at the end of greedy decoding, by the readable path: every step reruns the prefix."""
    rows = text_rows(bundle, text)
    src = None if rows.src is None else torch.tensor([rows.src])
    prefix = torch.tensor([rows.prefix])
    budget = min(new_token_budget(bundle.config, len(rows.text.ids)), bundle.config.max_len - prefix.shape[1])
    with torch.no_grad():
        ys = greedy_decode(bundle.model, src, prefix, budget, incremental=False)[0].tolist()
    return ys[: ys.index(EOS_ID)] if EOS_ID in ys[prefix.shape[1] :] else ys


def _readable_pass(bundle, src_ids: list[int], tgt_ids: list[int], names: list[str]) -> dict[str, torch.Tensor]:
    """One teacher-forced pass of the paper's code, recording `names`."""
    src = torch.tensor([src_ids]) if src_ids else None
    tgt = None if bundle.config.is_encoder_only else torch.tensor([tgt_ids])
    with torch.no_grad(), capture(bundle.model, names) as cache:
        bundle.model(src, tgt)
    return dict(cache)


def _holds_in_float32(bundle, text: str) -> None:
    trace = trace_text(bundle, text)  # the engine: lent memory, in-place steps, the key/value cache
    names = _patterns(bundle.model)
    if not bundle.config.is_encoder_only:
        assert trace.tgt_ids == _readable_tokens(bundle, trace.text)[: len(trace.tgt_ids)]
    readable = _readable_pass(bundle, trace.src_ids, trace.tgt_ids, names)
    for name in names:
        assert torch.equal(trace.cache[name], readable[name]), name


SHIPPED = [info.name for info in list_models(MODELS_DIR)]


@pytest.mark.skipif(not SHIPPED, reason="no shipped model")
@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_model_runs_the_same_on_the_engine(name):
    bundle = load_model(name)
    _holds_in_float32(bundle, bundle.card["example"])


@pytest.mark.parametrize("architecture", ["encoder-decoder", "decoder-only", "encoder-only"])
def test_random_models_of_every_architecture_run_the_same_on_the_engine(architecture):
    config = TransformerConfig(architecture=architecture, n_layers=2, d_model=32, n_heads=4, d_ff=64, max_len=64)
    _holds_in_float32(random_bundle(config, seed=17, symbols=SYMBOLS), "the cat sat on a mat")


def _large():
    """A decoder-only model with a long input: the attention of each layer is over `by_rows.BY_ROWS_CELLS`, so a
    bfloat16 run takes it a block of rows at a time."""
    config = TransformerConfig(architecture="decoder-only", n_layers=2, d_model=128, n_heads=8, d_ff=256, max_len=512)
    bundle = random_bundle(config, seed=23, symbols=SYMBOLS)
    text = ("a quick brown fox jumps over the lazy dog " * 12)[:420]
    assert config.n_heads * len(text) ** 2 >= by_rows.BY_ROWS_CELLS
    return bundle, text


def test_a_large_model_runs_the_same_on_the_engine_in_float32():
    bundle, text = _large()
    names = [*_patterns(bundle.model), LOGITS]
    trace = trace_text(bundle, text, names=names, generate=False)
    readable = _readable_pass(bundle, trace.src_ids, trace.tgt_ids, names)
    for name in names:
        assert torch.equal(trace.cache[name], readable[name]), name
    decoded = trace_text(bundle, text[:200], names=(), max_new_tokens=6)  # the key/value cache's steps
    assert decoded.tgt_ids == _readable_tokens(bundle, decoded.text)[: len(decoded.tgt_ids)]


def test_a_large_model_in_bfloat16_stays_within_the_documented_tolerance(monkeypatch):
    bundle, text = _large()
    blocks = {"layers": 0}
    real = by_rows.attention_by_rows

    def counting(*args, **kwargs):
        blocks["layers"] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(by_rows, "attention_by_rows", counting)
    names = [*_patterns(bundle.model), LOGITS]
    fast = trace_text(bundle, text, names=names, generate=False, precision="bfloat16")
    assert blocks["layers"] == bundle.config.n_layers  # the engine took the block-of-rows road
    exact = _readable_pass(bundle, fast.src_ids, fast.tgt_ids, names)
    for name in _patterns(bundle.model):
        weights = fast.cache[name].float()
        assert (weights - exact[name]).abs().max() <= BFLOAT16_WEIGHTS, name
        assert torch.allclose(weights.sum(-1), torch.ones(()), atol=1e-2), name  # float16-kept rows sum to 1
    logits, reference = fast.cache[LOGITS].float()[0], exact[LOGITS][0]  # (T, vocab)
    error = (logits - reference).abs().max()
    top2 = reference.topk(2, dim=-1).values  # (T, 2)
    clear = (top2[:, 0] - top2[:, 1]) > 2 * error  # rows whose best token no bfloat16 rounding can overturn
    assert clear.any()
    assert torch.equal(logits.argmax(-1)[clear], reference.argmax(-1)[clear])
