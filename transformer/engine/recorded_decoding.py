"""Greedy decoding that records the trace as it goes: each key/value-cache step's new rows, put together.

`trace_text` decoded with the key/value cache and then captured one teacher-forced pass over the output: a
second run of the whole decoder (and of the encoder) to record what the steps had already computed. Under the
causal mask a step computes exactly its newest rows of that pass (`transformer.engine.kv_cache`), so the rows each
step records, one under the other, are the pass's own:

    the step reading tokens s..t-1:    queries s..t-1 against keys 0..t-1  →  rows s..t-1 of each decoder hook
    the encoder, cross-attention's keys and values: computed once, before the first step

What no step computed is filled in as the pass has it: a row's later keys are not allowed (mask False), get no
weight (pattern 0) and the most negative masked score, and their raw scores q·kᵀ/√d_k come from the recorded
queries and keys. A long prompt is read once (the cache's first step) instead of twice, which halves the
heads page of a decoder-only model given 1,000 tokens, and a class's translations cost one decoder run each.

The steps' rows are not bit for bit the pass's: a matrix product over one row rounds differently from one over
many (a pass over a prompt alone and one over the prompt and its output already differ by 1.2e-6 in a pattern of
the shipped gpt-translate-en-zh), and on the shipped models the put-together patterns come within 1.3e-6 to
6.5e-6 of the pass. Where that second pass is cheap (`records_while_decoding`: every shipped model), `trace_text`
keeps it, and what the lesson and the tests read is that one pass, exactly; a large model's long input is where
the pass costs most (a GPT-2-sized model's 1,022-token prompt: 2.4 s on two cores) and its rounding matters least.

Where the cache cannot honour the interventions (`kv_cache.cache_honours`: a lifted causal mask, a replaced
pattern), there is nothing to put together: `decode_recording` says so (None) and `trace_text` captures as before.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import torch
from torch import Tensor

from hook_names import GENERATOR, HookName, hook_name, parse
from transformer.activation_cache import ActivationCache
from transformer.engine.kv_cache import KeyValueCache, cache_honours
from transformer.engine.records import capture
from transformer.engine.step_capture import ATTENTION_SHAPED, is_decoder_self, query_axis, stitch
from transformer.engine.steps import attention_scores
from transformer.hooks import Intervention, active_interventions, intervene
from transformer.model import Transformer
from transformer.text.tokenizer import EOS_ID

_KEYS_VALUES = ("attn.hook_k", "attn.hook_v")
SECOND_PASS_WORK = 10**10
"""Parameters × positions above which a run records while decoding: a second pass of about this many multiply-adds
takes some 0.1 s on two cores. The largest shipped model at its longest input does a sixth of it; GPT-2 small
passes it at 81 tokens."""


def records_while_decoding(model: Transformer, positions: int) -> bool:
    """Whether a generated run of up to `positions` decoder positions records by its steps rather than by a second,
    teacher-forced pass (see the module's docstring: the pass is exact, the steps' rows are cheaper)."""
    return model.config.estimated_parameters() * positions > SECOND_PASS_WORK  # from the sizes: no walk over the model


@dataclass(frozen=True)
class RecordedDecoding:
    """A greedy run recorded by its own steps."""

    tgt_in: Tensor  # (1, Tt) what the decoder read: the prefix and the output without <eos>, at most max_len
    cache: ActivationCache  # the names and shapes one capture of model(src, tgt_in) records
    next_ids: list[int]  # (Tt,) the token after each row: a prompt's own next token, else the step's arg-max


def _decoder_self_scores(name: str) -> HookName | None:
    """`name` parsed, if it is a decoder self-attention's raw scores."""
    hook = parse(name)
    return hook if hook.kind == "decoder" and hook.hook == "scores" else None


def _row_axis(name: str, ndim: int) -> int | None:
    """The axis along which a cached step's `name` holds its new positions, or None where it is computed once
    (the encoder, cross-attention's keys and values). Self-attention's keys and values are new rows too: the
    cache projects only the newest positions' (`SelfAttentionKeysValues`)."""
    if is_decoder_self(name) and name.endswith(_KEYS_VALUES):
        return ndim - 2
    return query_axis(name, ndim)


def _score_inputs(names: Iterable[str]) -> set[str]:
    """The queries and keys of each decoder self-attention whose raw scores are recorded: a step never scores
    a key that does not exist yet, the full pass does (before the mask), so those entries are computed from them."""
    out = set()
    for name in names:
        if (scores := _decoder_self_scores(name)) is not None:
            out |= {hook_name(scores.module, "q"), hook_name(scores.module, "k")}
    return out


def _honoured(model: Transformer, interventions: Mapping[str, Intervention | Iterable[Intervention]] | None) -> bool:
    """Whether the cache computes a full pass's rows under `interventions` (and no intervention edits the raw
    scores of a decoder self-attention, which `_fill_scores` recomputes from queries and keys)."""
    with intervene(model, interventions):
        active = active_interventions()
    if any(_decoder_self_scores(name) is not None for name in active):
        return False
    return cache_honours(model, active)


def _fill_scores(tensors: dict[str, Tensor], wanted: frozenset[str]) -> None:
    """Give each decoder self-attention's raw scores the later keys' q·kᵀ/√d_k (as one pass computes them before
    masking), and drop the queries and keys recorded only for that."""
    for name in list(tensors):
        if (scores := _decoder_self_scores(name)) is None:
            continue
        q, k = tensors[hook_name(scores.module, "q")], tensors[hook_name(scores.module, "k")]  # (1, H, Tt, d_k) each
        scores = tensors[name]  # (1, H, Tt, Tt), later keys at the dtype's minimum
        later = torch.ones(scores.shape[-2:], dtype=torch.bool).triu(1)  # (Tt, Tt)
        tensors[name] = torch.where(later, attention_scores(q, k), scores)
    for name in [n for n in tensors if n not in wanted]:
        del tensors[name]


@torch.no_grad()
def decode_recording(
    model: Transformer,
    src: Tensor | None,
    prefix: Tensor,
    max_new_tokens: int,
    names: Iterable[str] | None,
    interventions: Mapping[str, Intervention | Iterable[Intervention]] | None,
) -> RecordedDecoding | None:
    """`greedy_decode` of one sequence that records `names` (None: all) as it goes; None where the key/value
    cache cannot honour `interventions` (the caller decodes and captures the other way).

    Args:
        src: (1, Ts) source ids (encoder-decoder) or None (decoder-only).
        prefix: (1, Tp) the decoder's first input: <bos>, or <bos> + a prompt.
    """
    if prefix.shape[0] != 1:
        raise ValueError(f"decode_recording reads one sequence; got a batch of {prefix.shape[0]}")
    if not _honoured(model, interventions):
        return None
    wanted = frozenset(model.hook_names if names is None else names)
    record = wanted | _score_inputs(wanted)
    steps: list[dict[str, Tensor]] = []
    with capture(model, record, interventions) as encoded:  # the encoder runs here, once
        decoder = KeyValueCache(model, src, every_row=any(name.startswith(GENERATOR) for name in record))
    steps.append(dict(encoded))
    written: list[int] = []  # the arg-max after each step's last row
    # The first step reads the whole prompt: its decoder self-attention rows are recorded at the start of tensors as
    # large as the run can grow, which the later steps' rows then fill (`step_capture.stitch`), instead of copied.
    side = min(model.config.max_len, prefix.shape[1] + max_new_tokens)
    room = {name: side for name in record if is_decoder_self(name) and name.endswith(ATTENTION_SHAPED)}
    rooms: dict[str, Tensor] = {}

    def step(ys: Tensor) -> None:
        first = len(steps) == 1  # only the encoder's capture so far: this step reads the prompt
        with capture(model, record, interventions, room=room if first else None) as recorded:
            written.append(int(decoder.next_logits(ys)[0].argmax()))
        steps.append(dict(recorded))
        rooms.update(recorded.rooms)

    ys = prefix
    for _ in range(max_new_tokens):
        if ys.shape[1] >= model.config.max_len:
            break
        step(ys)
        ys = torch.cat([ys, torch.tensor([[written[-1]]])], dim=1)  # (1, T + 1)
        if written[-1] == EOS_ID:
            ys = ys[:, :-1]  # what the decoder read: the output without its <eos>
            break
    if decoder.length < ys.shape[1]:  # the last token written (or a prompt that filled the model) was never read
        step(ys)
    tensors = stitch(steps, ys.shape[1], _row_axis, rooms)
    _fill_scores(tensors, wanted)
    given = prefix[0, 1:].tolist()  # a prompt's rows: its own next token
    return RecordedDecoding(ys, ActivationCache(tensors), given + written)  # a step per row from the prompt's last
