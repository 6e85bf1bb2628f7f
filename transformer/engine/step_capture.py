"""Capturing a generated run row by row, as the decoding steps computed it.

Each greedy decoding step keeps only the newest position's prediction. With the causal mask, a
position never sees later ones (which is also why decoding can cache earlier positions' keys and
values, `transformer.engine.kv_cache`), so one teacher-forced pass over the finished output computes at
every row exactly what the step that wrote the next token computed, and `trace_text` captures that
single pass.

An intervention that lets a decoder query see later positions (the causal mask lifted, a
replacement pattern with weight above the diagonal) breaks this: in one pass over the finished
output, row i would read tokens that did not exist yet when token i+1 was chosen. Then each row is
taken from its own step instead (the step whose newest position it was), so the picture shows
what generation did: the newest query of a step has no later key to look at. Such a run's decoding
reruns the whole prefix at every step (no cache can honour it), and so does this capture.

`stitch` puts steps' rows together, here and for a large model's recording while decoding
(`transformer.engine.recorded_decoding`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

import torch
from torch import Tensor

from hook_names import parse
from transformer.activation_cache import ActivationCache
from transformer.engine.records import capture
from transformer.hooks import Intervention
from transformer.model import Transformer

ATTENTION_SHAPED = ("hook_scores", "hook_mask", "hook_masked_scores", "hook_pattern")  # (B, H or 1, Tq, Tk)


def looks_ahead(interventions: Mapping[str, object] | None) -> bool:
    """Whether some intervention acts on a decoder self-attention (where a query could see later keys)."""
    return any(is_decoder_self(name) for name in interventions or {})


def is_decoder_self(name: str) -> bool:
    """Whether hook `name` is in a decoder self-attention (where a query could see later keys)."""
    return parse(name).kind == "decoder"


def query_axis(name: str, ndim: int) -> int | None:
    """The axis along which `name` is indexed by decoder position, or None if it is not (encoder side,
    and keys/values, which later steps recompute: they are kept as the last step computed them)."""
    if name.startswith(("encoder.", "src_")) or name.endswith(("attn.hook_k", "attn.hook_v")):
        return None
    if name.endswith(ATTENTION_SHAPED) or name.endswith(("attn.hook_q", "attn.hook_z")):
        return ndim - 2
    return 1  # (B, T, ...) residual stream, embeddings, sublayer outputs, logits


def unseen_key_fill(name: str, dtype: torch.dtype) -> bool | float:
    """What a decoder self-attention hook holds at a key that did not exist yet at a step: not allowed (False),
    no weight (0), the most negative score, as at a masked key."""
    if name.endswith("hook_mask"):
        return False
    if name.endswith("hook_pattern"):
        return 0.0
    return torch.finfo(dtype).min  # scores, masked scores


def stitch(
    steps: list[dict[str, Tensor]],
    total: int,
    row_axis: Callable[[str, int], int | None],
    rooms: Mapping[str, Tensor] | None = None,
) -> dict[str, Tensor]:
    """Each name's pieces, one step under the next along `row_axis(name, ndim)` (None: the name is whole in each
    step, and the last step's is kept), decoder self-attention widened to `total` keys (`unseen_key_fill`). Each
    name is written once into its whole tensor and its pieces let go (taken out of `steps`): a GPT-2-sized
    prompt's patterns are 600 MB, and padding, then concatenating, held three copies of them at once.

    `rooms`: name → the (..., S, S) tensor, S >= `total`, whose start the first step recorded that name in
    (`capture(room=)`): the later rows are written into it where they go, and the first step's rows are not copied
    at all (a GPT-2-sized prompt's weights: 25 MB a layer, first-touched twice and copied once, were 60 ms of its run).
    """
    rooms = rooms or {}
    out = {}
    for name in dict.fromkeys(name for recorded in steps for name in recorded):  # in the order they were recorded
        pieces = [recorded.pop(name) for recorded in steps if name in recorded]
        axis = row_axis(name, pieces[0].ndim)
        widen = is_decoder_self(name) and name.endswith(ATTENTION_SHAPED)  # (.., Tq, Tk): a step sees keys 0..t-1
        first = pieces[0]
        room = rooms.get(name) if widen else None
        if room is not None and (first.data_ptr() != room.data_ptr() or room.shape[-1] < total):
            room = None  # the first piece was not recorded at its start, or the run outgrew it
        if room is None and (axis is None or (len(pieces) == 1 and (not widen or first.shape[-1] == total))):
            out[name] = pieces[-1]
            continue
        shape = [*first.shape[:axis], sum(piece.shape[axis] for piece in pieces), *first.shape[axis + 1 :]]
        if widen:
            shape[-1] = total
        # every entry is written once: a step's, or the fill right of its keys (in a room, the first piece is there)
        whole = first.new_empty(shape) if room is None else room[..., : shape[-2], : shape[-1]]
        start = 0
        for i, piece in enumerate(pieces):
            rows = (slice(None),) * axis + (slice(start, start + piece.shape[axis]),)
            rows += (slice(None),) * (piece.ndim - axis - 2)
            if room is None or i > 0:
                whole[(*rows, slice(0, piece.shape[-1]))] = piece
            if widen and piece.shape[-1] < total:  # keys that did not exist yet at this step
                whole[(*rows, slice(piece.shape[-1], None))] = unseen_key_fill(name, first.dtype)
            start += piece.shape[axis]
        out[name] = whole.contiguous()  # a room larger than the run (decoding ended early) is copied down to size
    return out


@torch.no_grad()
def capture_steps(
    model: Transformer,
    src: Tensor | None,
    tgt_in: Tensor,
    first: int,
    names: Iterable[str] | None,
    interventions: Mapping[str, Intervention | Iterable[Intervention]] | None,
) -> tuple[ActivationCache, Tensor]:
    """Rerun the decoding steps on `tgt_in` and keep each position as its own step computed it.

    Args:
        src: (1, Ts) source ids or None (decoder-only).
        tgt_in: (1, Tt) the decoder's input at the end of decoding (<bos> + prompt + output).
        first: the length of the first step's prefix (1, or <bos> + prompt for decoder-only): its
            rows come from that step; every later row s-1 from the step that read s tokens.
    Returns:
        The stitched cache (same names and shapes as one pass over `tgt_in`) and logits (1, Tt, vocab).
    """
    total = tgt_in.shape[1]
    steps: list[dict[str, Tensor]] = []  # each step's own rows (keys and values whole: the last step's are kept)
    logit_rows: list[Tensor] = []
    for length in range(first, total + 1):
        rows = slice(0, length) if length == first else slice(length - 1, length)
        with capture(model, names, interventions) as cache:
            logits = model(src, tgt_in[:, :length])  # (1, length, vocab)
        logit_rows.append(logits[:, rows])
        steps.append(
            {
                name: x if (axis := query_axis(name, x.ndim)) is None else x[(slice(None),) * axis + (rows,)]
                for name, x in cache.items()
            }
        )
    return ActivationCache(stitch(steps, total, query_axis)), torch.cat(logit_rows, dim=1)  # (1, Tt, vocab)
