"""What the three "why" probes (`lens`, `patching`, `attribution`) share: how a text is read, which residual stream
decides the output, and how a point of that stream is read out as a next-token distribution.

Everything is found through the model's hook points (`hook_names`), never through a family's own modules, so a
converted GPT-2, BERT, Marian, Llama or Qwen folder is probed the same way as the shipped models:

- the stream that decides the output is the decoder's (a translator, a GPT) or, without a decoder, the encoder's
  (BERT); it starts at the stack's input (`src_pos.hook_out` / `tgt_pos.hook_out`) and every sublayer writes it
  again (`<stack>.layers.<i>.sublayer.<k>.hook_resid`);
- a point of it is read out the way the model reads its last point: through the stack's final norm where there is
  one (a pre-norm stack, `<stack>.norm`), then the generator (`generator`, BERT's output transform included).

Output positions are counted from 1, as the pages count steps (`hook_names.ordinal`): position 1 is the first token
the model writes (a translator's decoder row 0; a GPT's row under the last prompt token; BERT's first text token).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from hook_names import from_ordinal, hook_name, norm_module, ordinal, stack_input, sublayer_module
from transformer.engine.decoding import trace_text
from transformer.storage.checkpoint import ModelBundle
from transformer.text.prompt import text_rows

MAX_SUBLAYERS = 8  # more than any layer has (self-attention, cross-attention, feed-forward)


class ProbeRefusal(ValueError):
    """An input a probe cannot measure, with the reason as a catalog key (`why.refuse_<key>`) and its values, so a
    page says it in the reader's language; `str()` is the English sentence the command line prints."""

    def __init__(self, key: str, message: str, **values: object) -> None:
        super().__init__(message)
        self.key = key
        self.values = values


class Cancelled(Exception):
    """A sweep stopped because its `cancelled()` said so (the page's Cancel)."""


Progress = Callable[[int, int], None]
"""progress(done, total), after each batch of patched runs (and once with done = 0)."""


@dataclass(frozen=True)
class Reading:
    """One text as the probes feed it to the model: the ids each stack reads and where the output is written.

    `src` is None for a decoder-only model, `tgt` None for an encoder-only one. The stream's row `first_row +
    i` writes output position `i + 1`; `written` is the token each output position writes (its arg-max).
    """

    src: Tensor | None  # (1, Ts)
    tgt: Tensor | None  # (1, Tt)
    first_row: int
    input_tokens: list[str]  # what the model read of the text (labels, for the page)
    stream_tokens: list[str]  # the stream's positions (decoder input, or the encoder's)
    written: list[str]  # what each output position writes
    written_ids: list[int]

    @property
    def n_positions(self) -> int:
        return len(self.written)

    @property
    def stream_ids(self) -> Tensor:
        ids = self.tgt if self.tgt is not None else self.src
        assert ids is not None
        return ids


def stream_stack(bundle: ModelBundle) -> str:
    """The stack whose residual stream reaches the generator: the decoder's, or an encoder-only model's encoder."""
    return "decoder" if bundle.config.has_decoder else "encoder"


def _has(model: nn.Module, name: str) -> bool:
    names = getattr(model, "hook_names", None)
    return isinstance(names, list) and name in names


def residual_reads(bundle: ModelBundle) -> list[tuple[str, int | None, int | None]]:
    """Every point of the deciding stream, in the order the model computes them: (hook name, layer, sublayer),
    the stack's input first (layer and sublayer None), then each sublayer's output (`hook_resid`)."""
    stack, model = stream_stack(bundle), bundle.model
    reads: list[tuple[str, int | None, int | None]] = [(stack_input(stack), None, None)]
    for layer in range(bundle.config.n_layers):
        for sub in range(MAX_SUBLAYERS):
            name = hook_name(sublayer_module(stack, layer, sub), "resid")
            if not _has(model, name):
                break
            reads.append((name, layer, sub))
    return reads


def layer_inputs(bundle: ModelBundle) -> list[str]:
    """The stream at each layer's input and, last, after the final layer: n_layers + 1 hook names."""
    reads = residual_reads(bundle)
    ends = [
        name
        for i, (name, layer, _) in enumerate(reads)
        if layer is not None and (i + 1 == len(reads) or reads[i + 1][1] != layer)
    ]
    return [reads[0][0], *ends]


def final_norm(bundle: ModelBundle) -> nn.Module | None:
    """The deciding stack's final norm (pre-norm stacks), found by its hook point; None for a post-norm stack."""
    path = norm_module(stream_stack(bundle), None)
    return bundle.model.get_submodule(path) if _has(bundle.model, hook_name(path, "in")) else None


def readout(bundle: ModelBundle, x: Tensor) -> Tensor:
    """A point of the deciding stream (..., d_model) → logits (..., vocab), as the model reads its last point."""
    norm = final_norm(bundle)
    generator = bundle.model.get_submodule("generator")
    return generator(norm(x) if norm is not None else x)


def output_logits(bundle: ModelBundle, out: Tensor) -> Tensor:
    """The deciding stack's output (`stream_out`: final norm already applied) → logits: the generator alone."""
    return bundle.model.get_submodule("generator")(out)


def stream_out(bundle: ModelBundle, src: Tensor | None, tgt: Tensor | None, memory: Tensor | None = None) -> Tensor:
    """The deciding stack's output (B, T, d_model), before the generator (a pre-norm stack's final norm applied).

    `memory`: an encoder-decoder model's encoder output, when the caller has it already (a batch of decoder-only
    patches reads the same source)."""
    model = bundle.model
    if bundle.config.is_encoder_only:
        return model.encode(src)
    if bundle.config.is_encoder_decoder:
        assert src is not None and tgt is not None
        if memory is None:
            memory = model.encode(src)
        return model.decode(tgt, memory.expand(tgt.shape[0], -1, -1), src.expand(tgt.shape[0], -1))
    return model.decode(tgt)


def _written(bundle: ModelBundle, logits: Tensor, first_row: int, n: int) -> tuple[list[str], list[int]]:
    ids = logits[first_row : first_row + n].argmax(dim=-1).tolist()
    return bundle.target_tokenizer.symbols(ids), ids


def _symbols(bundle: ModelBundle, ids: Tensor) -> list[str]:
    return bundle.target_tokenizer.symbols(ids[0].tolist())


@torch.no_grad()
def read_text(bundle: ModelBundle, text: str) -> Reading:
    """`text` as the model runs it: a translator or a GPT writes its greedy output (`trace_text`), and its decoder
    reads that output teacher-forced; BERT reads it once (its output: a token for every text position)."""
    if not text.strip():
        raise ProbeRefusal("empty", "the sentence is empty; type one")
    if bundle.config.is_encoder_only:
        src = torch.tensor([text_rows(bundle, text).src])  # (1, Ts): <bos> text <eos>
        logits = output_logits(bundle, stream_out(bundle, src, None))[0]  # (Ts, vocab)
        n = src.shape[1] - 2
        written, ids = _written(bundle, logits, 1, n)
        tokens = _symbols(bundle, src)
        return Reading(src, None, 1, tokens, tokens, written, ids)
    trace = trace_text(bundle, text, names=())  # decoding only: nothing recorded
    src = torch.tensor([trace.src_ids]) if trace.src_ids else None
    tgt = torch.tensor([trace.tgt_ids])  # (1, Tt): <bos> (+ prompt) + the output
    first_row = len(text_rows(bundle, text).prefix) - 1
    logits = output_logits(bundle, stream_out(bundle, src, tgt))[0]  # (Tt, vocab)
    written, ids = _written(bundle, logits, first_row, tgt.shape[1] - first_row)
    inputs = trace.src_tokens if src is not None else _symbols(bundle, tgt)[1 : first_row + 1]
    return Reading(src, tgt, first_row, inputs, _symbols(bundle, tgt), written, ids)


@torch.no_grad()
def read_beside(bundle: ModelBundle, text: str, clean: Reading) -> Reading:
    """`text` read so its stream lines up with `clean`'s: a translator's decoder and a GPT's continuation are
    teacher-forced on the clean run's output, so position i of both runs reads the same output token.

    Raises ProbeRefusal where `text` has another length in tokens than the clean input."""
    if not text.strip():
        raise ProbeRefusal("empty", "the sentence is empty; type one")
    rows = text_rows(bundle, text)
    if bundle.config.is_encoder_only or bundle.config.is_encoder_decoder:
        src = torch.tensor([rows.src])
        assert clean.src is not None
        if src.shape[1] != clean.src.shape[1]:
            raise _lengths(
                clean.src.shape[1] - 1 - bundle.config.is_encoder_only, src.shape[1] - 1 - bundle.config.is_encoder_only
            )
        tgt = clean.tgt
        tokens = _symbols(bundle, src) if bundle.config.is_encoder_only else bundle.source_tokenizer.symbols(rows.src)  # type: ignore[union-attr]
    else:
        assert clean.tgt is not None
        if len(rows.prefix) != clean.first_row + 1:
            raise _lengths(clean.first_row, len(rows.prefix) - 1)
        src = None
        tgt = torch.cat([torch.tensor([rows.prefix]), clean.tgt[:, clean.first_row + 1 :]], dim=1)
        tokens = bundle.target_tokenizer.symbols(rows.prefix[1:])
    logits = output_logits(bundle, stream_out(bundle, src, tgt))[0]
    written, ids = _written(bundle, logits, clean.first_row, clean.n_positions)
    stream = _symbols(bundle, tgt if tgt is not None else src)  # type: ignore[arg-type]
    return Reading(src, tgt, clean.first_row, tokens, stream, written, ids)


def _lengths(clean: int, corrupted: int) -> ProbeRefusal:
    return ProbeRefusal(
        "lengths",
        f"the two sentences must have the same length in tokens: the clean one has {clean}, the corrupted one {corrupted}",
        clean=clean,
        corrupted=corrupted,
    )


def output_row(reading: Reading, position: int) -> int:
    """Output `position` (from 1) → its row in the stream; ProbeRefusal past the output."""
    if not 1 <= position <= reading.n_positions:
        raise ProbeRefusal(
            "position",
            f"position {position} is outside the output: it has positions 1 to {reading.n_positions}",
            position=position,
            last=reading.n_positions,
        )
    return reading.first_row + from_ordinal(position)


def default_lens_position(bundle: ModelBundle, reading: Reading) -> int:
    """Where the lens looks when nobody says: BERT's first [MASK] (its masked-token prediction), else position 1."""
    mask = getattr(bundle.target_tokenizer, "mask_id", None)
    if bundle.config.is_encoder_only and mask is not None:
        ids = reading.stream_ids[0].tolist()
        if mask in ids[1:-1]:
            return ordinal(ids.index(mask) - reading.first_row)
    return 1


def token_id(bundle: ModelBundle, token: str) -> int:
    """A target token typed by a person → its id: the vocabulary's own spelling, its readable label (GPT-2's
    "Ġthe" is shown "␣the"), or a text that is exactly one token. ProbeRefusal for anything else."""
    tokenizer = bundle.target_tokenizer
    if token in tokenizer.index:
        return tokenizer.index[token]
    labels = getattr(tokenizer, "labels", None)
    if isinstance(labels, list) and token in labels:
        return labels.index(token)
    pieces = tokenizer.tokenize(token) if token.strip() else []
    if len(pieces) == 1 and pieces[0] in tokenizer.index:
        return tokenizer.index[pieces[0]]
    raise ProbeRefusal("target", f"{token!r} is not one token of this model's output vocabulary", token=token)


__all__ = [
    "Cancelled",
    "ProbeRefusal",
    "Progress",
    "Reading",
    "default_lens_position",
    "layer_inputs",
    "output_logits",
    "output_row",
    "read_beside",
    "read_text",
    "readout",
    "residual_reads",
    "stream_out",
    "stream_stack",
    "token_id",
]
