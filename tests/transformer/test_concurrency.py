"""Many threads capturing on one shared model each get exactly their own results.

This is the Streamlit situation: every browser session runs in its own thread over one cached
model, some sessions with interventions. Expected values are computed sequentially first.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import torch

from hook_names import act_name
from transformer.config import TransformerConfig
from transformer.engine.decoding import trace_text
from transformer.hooks import capture
from transformer.interventions import edit_mask, zero_head
from transformer.model import Transformer
from transformer.storage.registry import random_bundle

N_THREADS = 10
REPEATS = 15
PATTERNS = [act_name(kind, i, "pattern") for kind in ("encoder", "decoder", "cross") for i in range(2)]
NAMES = [*PATTERNS, "generator.hook_logits"]


def _model() -> Transformer:
    torch.manual_seed(0)
    config = TransformerConfig(src_vocab_size=30, tgt_vocab_size=30, n_layers=2, d_model=32, n_heads=4, d_ff=64, dropout=0.0)
    return Transformer(config).eval()


def _job(i: int) -> tuple[torch.Tensor, torch.Tensor, dict | None]:
    """Thread i's input: its own lengths and tokens; every third thread intervenes."""
    g = torch.Generator().manual_seed(100 + i)
    src = torch.randint(4, 30, (1, 3 + i), generator=g)
    tgt = torch.cat([torch.ones(1, 1, dtype=torch.long), torch.randint(4, 30, (1, 2 + (i * 7) % 9), generator=g)], dim=1)
    interventions = None
    if i % 3 == 1:
        interventions = {"encoder.layers.0.self_attn.hook_pattern": zero_head(i % 4)}
    elif i % 3 == 2:
        interventions = {
            "decoder.layers.1.self_attn.hook_mask": edit_mask(causal=False),
            "decoder.layers.0.cross_attn.hook_mask": edit_mask(blocked_keys=[0]),
        }
    return src, tgt, interventions


def _run(model: Transformer, src, tgt, interventions) -> dict[str, torch.Tensor]:
    with torch.no_grad(), capture(model, NAMES, interventions) as cache:
        logits = model(src, tgt)
    out = {name: cache[name].clone() for name in NAMES}
    out["logits"] = logits
    return out


def test_threads_capture_exactly_their_own_results() -> None:
    model = _model()
    jobs = [_job(i) for i in range(N_THREADS)]
    expected = [_run(model, *job) for job in jobs]
    plain = [_run(model, src, tgt, None) for src, tgt, _ in jobs]
    for i, (_, _, interventions) in enumerate(jobs):  # the interventions really change something
        if interventions is not None:
            assert not torch.allclose(expected[i]["logits"], plain[i]["logits"], atol=1e-4)

    barrier = threading.Barrier(N_THREADS)

    def worker(i: int) -> list[str]:
        barrier.wait()
        problems = []
        for r in range(REPEATS):
            got = _run(model, *jobs[i])
            for name, want in expected[i].items():
                if not torch.equal(got[name], want):
                    problems.append(f"thread {i} repeat {r}: {name}")
        return problems

    with ThreadPoolExecutor(N_THREADS) as pool:
        problems = [p for ps in pool.map(worker, range(N_THREADS)) for p in ps]
    assert problems == []
    # Interventions stayed in their threads: a plain call afterwards is the plain result.
    for i, (src, tgt, _) in enumerate(jobs):
        assert torch.equal(_run(model, src, tgt, None)["logits"], plain[i]["logits"])


def test_threads_trace_text_on_shared_bundle() -> None:
    config = TransformerConfig(n_layers=2, d_model=32, n_heads=4, d_ff=64, dropout=0.0, max_len=48)
    bundle = random_bundle(config, seed=3, symbols="abcdefghijklmnopqrstuvwxyz 你好")
    texts = ["hello", "abc", "你好 world", "zz", "the quick brown fox", "q", "a b c d e f", "xyz 你", "mmmm"]
    interventions = {i: {"encoder.layers.1.self_attn.hook_z": zero_head(0)} for i in (1, 4, 7)}
    names = [*PATTERNS, "generator.hook_logits"]

    def trace(i: int):
        t = trace_text(bundle, texts[i], names=names, interventions=interventions.get(i), max_new_tokens=8)
        return t.output_tokens, {n: t.cache[n].clone() for n in names}

    expected = [trace(i) for i in range(len(texts))]
    barrier = threading.Barrier(len(texts))

    def worker(i: int) -> list[str]:
        barrier.wait()
        problems = []
        for r in range(4):
            tokens, tensors = trace(i)
            if tokens != expected[i][0]:
                problems.append(f"thread {i} repeat {r}: output tokens")
            problems += [f"thread {i} repeat {r}: {n}" for n in names if not torch.equal(tensors[n], expected[i][1][n])]
        return problems

    with ThreadPoolExecutor(len(texts)) as pool:
        problems = [p for ps in pool.map(worker, range(len(texts))) for p in ps]
    assert problems == []
    # The intervened threads' captures really differ from a plain trace of the same text.
    plain = trace_text(bundle, texts[4], names=names, max_new_tokens=8)
    logits = plain.cache["generator.hook_logits"]
    assert plain.output_tokens != expected[4][0] or not torch.equal(logits, expected[4][1]["generator.hook_logits"])
