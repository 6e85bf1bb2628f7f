"""Greedy decoding, and one captured run of a model on a piece of text.

The app shows encoder, decoder and cross attention for one input in one cache. Decoding
produces tokens one at a time, each step reading only its newest token with every layer's earlier
keys and values kept (`transformer.engine.kv_cache`); once it is done, a single teacher-forced forward pass
over the produced output is captured. This pass computes what each decoding step computed for its newest
position only because of the causal mask: position i never sees a later one, so reading the whole
output at once changes nothing for it. A large model, whose second pass over a long input is costly,
records each step's new rows as it goes instead (`transformer.engine.recorded_decoding`). An intervention on
decoder self-attention could let a row see tokens that did not exist when its token was chosen (the
causal mask lifted); then the rows are captured from their own steps instead (`transformer.engine.step_capture`),
so the trace still shows what generation did.

Row i of the decoder (self- and cross-attention) reads token i and writes token i + 1:
`Trace.next_tokens[i]` is that token, the arg-max of the captured pass's logits at row i.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import Tensor

from transformer.activation_cache import ActivationCache
from transformer.config import TransformerConfig
from transformer.engine.encoder_run import encoder_trace_fields
from transformer.engine.kv_cache import start_decoding
from transformer.engine.precision import EXACT, FAST, Precision, arithmetic
from transformer.engine.recorded_decoding import decode_recording, records_while_decoding
from transformer.engine.records import capture, keeping
from transformer.engine.step_capture import capture_steps, looks_ahead
from transformer.engine.workspace import lending
from transformer.hooks import Intervention, intervene
from transformer.model import Transformer
from transformer.storage.checkpoint import ModelBundle
from transformer.text.prompt import text_rows
from transformer.text.reading import reader as text_reader
from transformer.text.rows import decoder_row
from transformer.text.tokenizer import EOS_ID


@dataclass(frozen=True)
class Trace:
    """Everything the app needs about one input: tokens, output and captured activations.

    `src_tokens` label the encoder's positions (keys of cross-attention); `tgt_tokens` label the
    decoder's positions (<bos> followed by the output, i.e. the decoder's input). `next_tokens[i]`
    is what decoder row i writes (predicts next): in a generated run `tgt_tokens[i + 1]`, and <eos>
    for the last row when decoding stopped there; in a teacher-forced run the model's prediction. In a
    decoder-only prompt (every row before its last token) nothing is written: the next token is the
    prompt's own, given, so those rows are named by it, not by the model's guess there.
    A row is best labelled by what it writes: cross-attention of the row that writes 今天 looks at "today".
    """

    text: str  # the text the model actually read (after truncation)
    src_tokens: list[str]
    tgt_tokens: list[str]
    output_tokens: list[str]
    output_text: str
    cache: ActivationCache
    truncated: bool  # the input was longer than the model accepts and was cut
    unknown: list[str]  # input symbols the vocabulary lacks (encoded as <unk>)
    teacher_forced: bool = False  # the decoder read the text itself; the output is one prediction per position
    next_tokens: list[str] = field(default_factory=list)  # (Tt,) the arg-max next token of each decoder row
    src_ids: list[int] = field(default_factory=list)  # (Ts,) the encoder's input ids ([] for decoder-only)
    tgt_ids: list[int] = field(default_factory=list)  # (Tt,) the decoder's input ids
    precision: Precision = EXACT  # the arithmetic of the run (`transformer.engine.precision`)
    # Raw bytes (hex, "e4 bd") of each token of src_tokens, tgt_tokens and next_tokens, for a hover beside a label
    # that names part of a character ("你 ¹⁄₂"); "" for specials and for tokenizers whose pieces are text
    src_hex: list[str] = field(default_factory=list)
    tgt_hex: list[str] = field(default_factory=list)
    next_hex: list[str] = field(default_factory=list)


@torch.no_grad()
def greedy_decode(
    model: Transformer, src_ids: Tensor | None, prefix: Tensor, max_new_tokens: int, *, incremental: bool = True
) -> Tensor:
    """Append the most probable next token until <eos> or `max_new_tokens` for each sequence.

    Each step reads only the newest token, with every layer's earlier keys and values kept
    (`transformer.engine.kv_cache`), unless an active intervention needs the whole prefix rerun (a lifted
    causal mask) or `incremental=False` asks for that (benchmarks and tests compare the two).

    Args:
        src_ids: (B, Ts) source ids (encoder-decoder) or None (decoder-only).
        prefix: (B, Tp) decoder input to start from, e.g. [[<bos>]].
    Returns:
        (B, Tp + n) ids including the prefix; finished rows are padded with <eos>.
    """
    decoder = start_decoding(model, src_ids, incremental=incremental)
    ys = prefix
    done = torch.zeros(prefix.shape[0], dtype=torch.bool)
    for _ in range(max_new_tokens):
        if ys.shape[1] >= model.config.max_len:
            break
        logits = decoder.next_logits(ys)  # (B, vocab)
        next_id = logits.argmax(dim=-1).masked_fill(done, EOS_ID)  # (B,)
        ys = torch.cat([ys, next_id[:, None]], dim=1)  # (B, T + 1)
        done |= next_id == EOS_ID
        if done.all():
            break
    return ys


CONTINUATION_TOKENS = 64
"""The most a decoder-only model writes after its prompt: the shipped tasks' outputs fit (31-64 tokens)."""
CONTINUATION_WORK = 2 * 10**9
"""Parameters × tokens a traced run's decoder-only continuation may cost. Each written token is a one-row step that
reads every weight (GPT-2 small: about 30 ms on two cores), so a converted GPT-2's trace writes 16 tokens, 0.5 s,
where 64 took 2 s on top of its prompt; every shipped model (at most a few million parameters) still writes 64."""


def output_length_limit(config: TransformerConfig, n_text: int) -> int:
    """The longest output a run writes after a text of `n_text` tokens (before `max_len` cuts it): the tasks'
    outputs are never much longer than their inputs. What the output page's generation stops at."""
    return 2 * n_text + 16 if config.is_encoder_decoder else CONTINUATION_TOKENS


def new_token_budget(config: TransformerConfig, n_text: int) -> int:
    """How many tokens `trace_text` lets a model write: `output_length_limit`, and for a large decoder-only model
    what its continuation may cost (`CONTINUATION_WORK`): a trace shows a continuation beside the prompt's
    attention, and a page that shows a trace should not wait seconds for it."""
    limit = output_length_limit(config, n_text)
    if config.is_encoder_decoder:
        return limit
    return max(1, min(limit, CONTINUATION_WORK // max(1, config.estimated_parameters())))


def _generated(
    model: Transformer,
    src: Tensor | None,
    prefix: Tensor,
    budget: int,
    names: Iterable[str] | None,
    interventions: Mapping[str, Intervention | Iterable[Intervention]] | None,
    incremental: bool,
) -> tuple[Tensor, ActivationCache, list[int]]:
    """Decode greedily and record the run: (1, Tt) what the decoder read, its cache, the token after each row.

    A large model on the key/value cache records the steps' own rows (`transformer.engine.recorded_decoding`). Otherwise
    decoding is followed by a capture: one teacher-forced pass over the output, exact and cheap for a small model,
    or each row from its own step where one pass would let rows see later tokens.
    """
    if incremental and records_while_decoding(model, prefix.shape[1] + budget):
        recorded = decode_recording(model, src, prefix, budget, names, interventions)
        if recorded is not None:
            return recorded.tgt_in, recorded.cache, recorded.next_ids
    with intervene(model, interventions):
        ys = greedy_decode(model, src, prefix, budget, incremental=incremental)  # (1, Tp + n)
    out = ys[0, prefix.shape[1] :].tolist()
    if EOS_ID in out:
        out = out[: out.index(EOS_ID)]
    tgt_in = torch.tensor([prefix[0].tolist() + out])[:, : model.config.max_len]  # (1, Tt): what the decoder read
    if looks_ahead(interventions):  # one pass would let rows see what came after them
        cache, logits = capture_steps(model, src, tgt_in, prefix.shape[1], names, interventions)
    else:
        with torch.no_grad(), capture(model, names, interventions) as cache:
            logits = model(src, tgt_in)  # (1, Tt, vocab)
    next_ids = logits[0].argmax(dim=-1).tolist()  # (Tt,) the next token predicted after each position
    given = prefix.shape[1] - 1  # a decoder-only prompt's rows write nothing: the next token is the prompt's own
    next_ids[:given] = tgt_in[0, 1 : given + 1].tolist()
    return tgt_in, cache, next_ids


def trace_text(
    bundle: ModelBundle,
    text: str,
    *,
    names: Iterable[str] | None = None,
    interventions: Mapping[str, Intervention | Iterable[Intervention]] | None = None,
    max_new_tokens: int | None = None,
    generate: bool = True,
    incremental: bool = True,
    precision: Precision = EXACT,
) -> Trace:
    """Run `bundle` on `text`: decode greedily (under `interventions`), recording `names` (None: every hook point).

    Encoder-decoder: the source is the text's tokens + <eos>; the decoder starts from <bos>.
    Decoder-only: the decoder starts from <bos> + the text's tokens (+ the prompt suffix of the model's
    card, e.g. "=" for gpt-translate-en-zh) and continues it.
    Input longer than the model's maximum length is truncated (`Trace.truncated`).

    `generate=False` is teacher forcing, as in training: nothing is decoded; the decoder reads
    <bos> + the text's tokens in one pass, and the output is its most likely next token at every
    position. The app uses it for untrained models, whose generated tokens would be noise made
    one at a time (and before the key/value cache, every step reran the decoder over the whole prefix:
    a minute at 512 tokens on the base config).

    `incremental=False` decodes without the key/value cache (`greedy_decode`), for comparison.

    `precision="bfloat16"` multiplies in bfloat16 (`transformer.engine.precision`: for a large model's long input,
    where the caller chose it) and records floats as float16; the trace says which.
    """
    with arithmetic(precision), keeping(torch.float16 if precision == FAST else None), lending():  # each says why
        if bundle.config.is_encoder_only:  # nothing to generate: one pass, a prediction per position (BERT)
            fields = encoder_trace_fields(bundle, text, names=names, interventions=interventions)
        else:
            fields = _decoded_fields(bundle, text, names, interventions, max_new_tokens, generate, incremental)
    return Trace(**fields, precision=precision)


def _decoded_fields(
    bundle: ModelBundle,
    text: str,
    names: Iterable[str] | None,
    interventions: Mapping[str, Intervention | Iterable[Intervention]] | None,
    max_new_tokens: int | None,
    generate: bool,
    incremental: bool,
) -> dict[str, Any]:
    """`trace_text`'s fields for a model with a decoder (encoder-decoder or decoder-only)."""
    model, config = bundle.model, bundle.config
    reader = text_reader(bundle)
    rows = text_rows(bundle, text)  # a decoder-only prompt carries its card's suffix, e.g. "=" for gpt-translate-en-zh
    symbols, ids, truncated = rows.text
    if truncated:
        text = reader.detokenize(symbols)
    unknown = [s for s in dict.fromkeys(symbols) if s not in reader.index]
    src = None if rows.src is None else torch.tensor([rows.src])  # (1, Ts)
    prefix = torch.tensor([rows.prefix])  # (1, Tp)
    if generate:
        if max_new_tokens is None:
            max_new_tokens = new_token_budget(config, len(ids))
        budget = min(max_new_tokens, config.max_len - prefix.shape[1])
        tgt_in, cache, next_ids = _generated(model, src, prefix, budget, names, interventions, incremental)
        out = tgt_in[0, prefix.shape[1] :].tolist()
    else:
        tgt_in = torch.tensor([decoder_row(ids)])  # (1, Tt): <bos> + the text
        with torch.no_grad(), capture(model, names, interventions) as cache:
            logits = model(src, tgt_in)  # (1, Tt, vocab)
        next_ids = out = logits[0].argmax(dim=-1).tolist()  # (Tt,) the next token predicted after each position
    target = bundle.target_tokenizer
    return dict(
        text=text,
        src_tokens=reader.symbols(src[0].tolist()) if src is not None else [],
        tgt_tokens=target.symbols(tgt_in[0].tolist()),
        output_tokens=target.symbols(out),
        output_text=target.decode(out),
        cache=cache,
        truncated=truncated,
        unknown=unknown,
        teacher_forced=not generate,
        next_tokens=target.symbols(next_ids),
        src_ids=src[0].tolist() if src is not None else [],
        tgt_ids=tgt_in[0].tolist(),
        src_hex=reader.raw_bytes(src[0].tolist()) if src is not None else [],
        tgt_hex=target.raw_bytes(tgt_in[0].tolist()),
        next_hex=target.raw_bytes(next_ids),
    )
