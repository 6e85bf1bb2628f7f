"""The logit lens: what the model would write if it stopped after each layer, and after each sublayer.

nostalgebraist's logit lens (2020), as TransformerLens's `accumulated_resid` + `apply_ln_to_stack` and the NDIF
Workbench read it: take the residual stream at a point, pass it through what the model does after its last layer
(the final norm of a pre-norm stack, then the output projection) and softmax it. Here every point of the stream that
decides the output is read (`stream.residual_reads`): its input (the embeddings), then the stream after each
self-attention, cross-attention and feed-forward sublayer. The last point is the stream the model itself reads out,
through the same modules on the same tensor, so the last row *is* the model's output distribution, not an
approximation of it.

A post-norm stack (the paper's, and the shipped models') normalises the stream after every sublayer, so each point
is already on the scale the output projection expects; a pre-norm stack's points are read through its final norm,
as TransformerLens does.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from transformer.hooks import capture
from transformer.probes.stream import Reading, default_lens_position, output_row, read_text, readout, residual_reads, stream_out
from transformer.storage.checkpoint import ModelBundle

TOP_K = 5


@dataclass(frozen=True)
class LensRead:
    """One point of the stream, read out at one position."""

    name: str  # the hook name of the residual read
    layer: int | None  # 0-based (None: the stack's input, before any layer)
    part: str  # "embeddings", "self_attn", "cross_attn" or "feed_forward": what wrote the stream last
    layer_end: bool  # the stream after a whole layer (or the input): the per-layer lens
    top: list[tuple[str, float]]  # the most probable tokens and their probabilities
    p_token: float  # the probability of the token the model finally writes there
    top_hex: list[str] = field(default_factory=list)  # each top token's raw bytes ("e4 bd"; "" where it is text)


@dataclass(frozen=True)
class Lens:
    """The logit lens at one output position; `reads[-1]` is the model's real output distribution."""

    position: int  # from 1
    token: str  # what the model writes there
    token_id: int
    reads: list[LensRead]
    reading: Reading
    p_token: np.ndarray  # (n_reads,) the same numbers as the reads', for charts and export

    def to_json(self) -> dict[str, object]:
        """The shape `python -m transformer lens --json` prints (issue 37)."""
        return {
            "position": self.position,
            "token": self.token,
            "layers": [
                {
                    "name": r.name,
                    "layer": r.layer,
                    "part": r.part,
                    "layer_end": r.layer_end,
                    "top": [[t, p] for t, p in r.top],
                    "p_token": r.p_token,
                }
                for r in self.reads
            ],
        }


def _parts(reads: list[tuple[str, int | None, int | None]]) -> list[tuple[str, bool]]:
    """(what wrote the stream last, whether the point ends a layer) for each read."""
    per_layer: dict[int, int] = {}
    for _, layer, _sub in reads:
        if layer is not None:
            per_layer[layer] = per_layer.get(layer, 0) + 1
    out = []
    for _, layer, sub in reads:
        if layer is None or sub is None:
            out.append(("embeddings", True))
            continue
        last = per_layer[layer] - 1
        part = "feed_forward" if sub == last else "self_attn" if sub == 0 else "cross_attn"
        out.append((part, sub == last))
    return out


@torch.no_grad()
def logit_lens(
    bundle: ModelBundle, text: str, position: int | None = None, k: int = TOP_K, reading: Reading | None = None
) -> Lens:
    """The lens at output `position` (from 1; default: BERT's first [MASK], else 1) of `text`'s run.

    Raises `ProbeRefusal` for an empty text or a position past the output."""
    reading = reading if reading is not None else read_text(bundle, text)
    position = default_lens_position(bundle, reading) if position is None else position
    row = output_row(reading, position)
    reads = residual_reads(bundle)
    names = [name for name, _, _ in reads]
    with capture(bundle.model, names) as cache:
        stream_out(bundle, reading.src, reading.tgt)  # what the capture records is what is read
    token_id = reading.written_ids[position - 1]
    tokenizer = bundle.target_tokenizer
    results, p_token = [], []
    for (name, layer, _), (part, end) in zip(reads, _parts(reads), strict=True):
        logits = readout(bundle, cache[name])[0, row]  # (vocab,): the read point, on the whole (1, T, d) like the model
        probs = torch.softmax(logits.float(), dim=-1)
        top = torch.topk(probs, min(k, probs.shape[-1]))
        labels = [tokenizer.symbols([i])[0] for i in top.indices.tolist()]  # alternatives: each read alone, not as a text
        p = float(probs[token_id])
        p_token.append(p)
        results.append(
            LensRead(
                name,
                layer,
                part,
                end,
                [(s, float(v)) for s, v in zip(labels, top.values.tolist(), strict=True)],
                p,
                tokenizer.raw_bytes(top.indices.tolist()),
            )
        )
    return Lens(position, reading.written[position - 1], token_id, results, reading, np.array(p_token, dtype=np.float64))


__all__ = ["Lens", "LensRead", "logit_lens"]
