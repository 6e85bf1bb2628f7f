"""Activation patching between two sentences: which point of the model carries what makes them differ.

As in TransformerLens's `patching` module and the NDIF Workbench's patching view (Meng et al. 2022, "causal
tracing"; Wang et al. 2022): run the model on a clean and a corrupted input of the same length, then rerun the
corrupted input with one activation replaced by the clean run's, and measure how much of the clean-vs-corrupted
difference in a logit difference that one activation restores:

    restored = (patched_diff − corrupted_diff) / (clean_diff − corrupted_diff)

where diff = logit(target) − logit(foil) at one output row: the target is the clean run's token there (or the one
asked for), the foil the corrupted run's (its most probable other token where both write the target). 0: the patch
restores nothing; 1: all of it.

Two sweeps, each patch alone:
- the residual stream that decides the output, at each layer's input and after the last layer (`stream.layer_inputs`),
  one position at a time (TransformerLens's `get_act_patch_resid_pre`, plus the final row): after the last layer
  the output row's own point *is* what the model reads out, so patching it restores exactly 1;
- each head's output (`hook_z`, all positions), in every attention module: encoder, decoder self, cross
  (`get_act_patch_attn_head_out_all_pos`).

A translator's two runs are teacher-forced on the clean run's output (`stream.read_beside`), so decoder row i reads
the same token in both. The patched runs of one hook go through the model in batches (`TOKENS_PER_BATCH`); a causal
stream is cut after the output row (a later position cannot reach it through the causal mask, so its restored
fraction is 0 without a run), and a sweep over decoder points reuses the corrupted source's encoder output.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import torch
from torch import Tensor

from hook_names import attn_module, hook_name
from transformer.hooks import capture, intervene
from transformer.probes.stream import (
    Cancelled,
    ProbeRefusal,
    Progress,
    Reading,
    layer_inputs,
    output_logits,
    output_row,
    read_beside,
    read_text,
    stream_out,
    token_id,
)
from transformer.storage.checkpoint import ModelBundle, attention_kinds

TOKENS_PER_BATCH = 2048
"""Patched runs go through the model together, up to this many tokens a batch. A batch rounds some products otherwise
than the clean and corrupted runs (each alone) were rounded, by about 1e-5 of a difference, so where exactness is
the definition it does not depend on the batch: a patch that puts back the corrupted run's own value is not run at
all (its difference is the corrupted one), and the output row is read out one run at a time (the stream after the
last layer, patched at that row, is read as the clean run read it: exactly 1)."""


@dataclass(frozen=True)
class Patching:
    """One patching experiment: the two runs, the metric, and the restored fraction of every patch."""

    position: int  # the output position (from 1)
    row: int  # its row in the stream
    target: str
    target_id: int
    foil: str
    foil_id: int
    clean_diff: float
    corrupted_diff: float
    residual_names: list[str]  # n_layers + 1: each layer's input, then the stream after the last layer
    residual: np.ndarray  # (n_layers + 1, T) restored fraction of each (point, position)
    heads: dict[str, np.ndarray]  # attention module → (n_heads,) restored fraction of each head
    clean: Reading
    corrupted: Reading
    differs: list[int] = field(default_factory=list)  # input positions (0-based) where the two inputs differ

    def to_json(self) -> dict[str, object]:
        """The shape `python -m transformer patch --json` prints (issue 37)."""
        return {
            "position": self.position,
            "target": self.target,
            "foil": self.foil,
            "clean_diff": self.clean_diff,
            "corrupted_diff": self.corrupted_diff,
            "residual_names": self.residual_names,
            "residual": self.residual.tolist(),
            "heads": {module: values.tolist() for module, values in self.heads.items()},
        }

    def best_head(self) -> tuple[str, int, float]:
        """(attention module, head, fraction) of the head that restores the most."""
        module, values = max(self.heads.items(), key=lambda item: float(item[1].max()))
        head = int(values.argmax())
        return module, head, float(values[head])

    def best_point(self) -> tuple[int, int, float]:
        """(residual row, position, fraction) of the residual patch that restores the most, before the final row
        (whose output position restores 1 by construction)."""
        inner = self.residual[:-1]
        row, pos = np.unravel_index(int(inner.argmax()), inner.shape)
        return int(row), int(pos), float(inner[row, pos])


def _default_position(clean: Reading, corrupted: Reading) -> int:
    """The first output position where the two runs write different tokens; 1 where they write the same."""
    for i, (a, b) in enumerate(zip(clean.written_ids, corrupted.written_ids, strict=True)):
        if a != b:
            return i + 1
    return 1


def _foil(logits: Tensor, target: int) -> int:
    """The corrupted run's token at the row, or its most probable other token where that is the target."""
    top2 = torch.topk(logits, 2).indices.tolist()
    return top2[0] if top2[0] != target else top2[1]


def _diff(logits: Tensor, target: int, foil: int) -> Tensor:
    return logits[..., target] - logits[..., foil]


def _fit(clean: Tensor, like: Tensor) -> Tensor:
    """The clean (1, ...) tensor cut to `like`'s sizes after the batch dimension (a causal stream cut short)."""
    return clean[(slice(None), *(slice(0, s) for s in like.shape[1:]))]


def _patch_positions(clean: Tensor, positions: list[int]) -> Callable[[Tensor], Tensor]:
    """Batch element b takes the clean run's stream at position positions[b]; (B, T, d) → (B, T, d)."""

    def apply(x: Tensor) -> Tensor:
        x = x.clone()
        rows = torch.arange(x.shape[0])
        x[rows, positions] = _fit(clean, x)[0, positions].to(x.dtype)
        return x

    return apply


def _patch_heads(clean: Tensor, heads: list[int]) -> Callable[[Tensor], Tensor]:
    """Batch element b takes the clean run's output z of head heads[b], at every position; (B, H, T, d_k)."""

    def apply(x: Tensor) -> Tensor:
        x = x.clone()
        rows = torch.arange(x.shape[0])
        x[rows, heads] = _fit(clean, x)[0, heads].to(x.dtype)
        return x

    return apply


@dataclass
class _Sweep:
    """The patched runs of one experiment: the corrupted ids, cut where the stream is causal, and the metric."""

    bundle: ModelBundle
    src: Tensor | None
    tgt: Tensor | None
    row: int
    target: int
    foil: int
    memory: Tensor | None  # the corrupted source's encoder output (encoder-decoder), for decoder-side patches

    corrupted_diff: float

    def diffs(
        self,
        hook: str,
        patch: Callable[[list[int]], Callable[[Tensor], Tensor]],
        items: list[int],
        same: list[bool],
        step: Callable[[int], None],
    ) -> list[float]:
        """The patched logit difference for each item (a position or a head) patched alone at `hook`. An item whose
        clean value is the corrupted run's own, bit for bit (`same`), would rerun the corrupted run itself: its
        difference is the corrupted one, without a rerun (a translator's decoder input; a GPT's stream before the
        first changed word). `step(n)` after each batch (and once for the items not rerun)."""
        tokens = int((self.tgt if self.tgt is not None else self.src).shape[1])  # type: ignore[union-attr]
        size = max(1, TOKENS_PER_BATCH // tokens)
        out = [self.corrupted_diff] * len(items)
        todo = [i for i, unchanged in zip(items, same, strict=True) if not unchanged]
        step(len(items) - len(todo))
        for start in range(0, len(todo), size):
            chunk = todo[start : start + size]
            b = len(chunk)
            src = None if self.src is None else self.src.expand(b, -1)
            tgt = None if self.tgt is None else self.tgt.expand(b, -1)
            memory = self.memory if not hook.startswith(("encoder.", "src_")) else None
            with intervene(self.bundle.model, {hook: patch(chunk)}):
                x = stream_out(self.bundle, src, tgt, memory)  # (b, T, d_model)
            # only the output row is read out, one run at a time (`TOKENS_PER_BATCH` says why)
            logits = torch.cat([output_logits(self.bundle, x[i : i + 1, self.row]) for i in range(b)])  # (b, vocab)
            for item, diff in zip(chunk, _diff(logits, self.target, self.foil).tolist(), strict=True):
                out[items.index(item)] = diff
            step(b)
        return out


@torch.no_grad()
def patch(
    bundle: ModelBundle,
    clean_text: str,
    corrupted_text: str,
    position: int | None = None,
    target: str | None = None,
    *,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> Patching:
    """Patch every residual point × position and every head from `clean_text`'s run into `corrupted_text`'s.

    Args:
        position: the output position (from 1) whose logit difference is measured; default: the first where the two
            runs write different tokens.
        target: the token whose logit difference is measured (default: the clean run's token there).
        progress: called as progress(done, total) after each batch of patched runs.
        cancelled: polled between batches; when it returns True the sweep raises `Cancelled`.
    Raises:
        ProbeRefusal: empty or identical sentences, different lengths in tokens, a position past the output, a
            target outside the vocabulary, or runs whose difference is the same on both sides.
    """
    if not clean_text.strip() or not corrupted_text.strip():
        raise ProbeRefusal("empty", "both sentences are needed: the clean one and the corrupted one")
    if clean_text.strip() == corrupted_text.strip():
        raise ProbeRefusal("identical", "the two sentences are the same; change a word in the corrupted one")
    clean = read_text(bundle, clean_text)
    corrupted = read_beside(bundle, corrupted_text, clean)
    differs = [i for i, (a, b) in enumerate(zip(clean.input_tokens, corrupted.input_tokens, strict=True)) if a != b]
    if not differs:
        raise ProbeRefusal("identical", "the two sentences read as the same tokens; change a word in the corrupted one")
    position = _default_position(clean, corrupted) if position is None else position
    row = output_row(clean, position)
    target_id = clean.written_ids[position - 1] if target is None else token_id(bundle, target)

    causal = bundle.config.has_decoder  # a decoder's stream: rows after the output row cannot reach it
    cut = row + 1 if causal else None
    c_tgt = None if clean.tgt is None else clean.tgt[:, :cut]
    r_tgt = None if corrupted.tgt is None else corrupted.tgt[:, :cut]
    points = layer_inputs(bundle)
    kinds = attention_kinds(bundle)
    modules = [attn_module(kind, layer) for kind in kinds for layer in range(bundle.config.n_layers)]
    z_names = [hook_name(m, "z") for m in modules]
    with capture(bundle.model, [*points, *z_names]) as clean_cache:
        clean_logits = output_logits(bundle, stream_out(bundle, clean.src, c_tgt)[:, row])[0]  # (vocab,)
    with capture(bundle.model, [*points, *z_names]) as corrupted_cache:
        corrupted_logits = output_logits(bundle, stream_out(bundle, corrupted.src, r_tgt)[:, row])[0]
    memory = bundle.model.encode(corrupted.src) if bundle.config.is_encoder_decoder else None
    foil_id = _foil(corrupted_logits, target_id)
    clean_diff = float(_diff(clean_logits, target_id, foil_id))
    corrupted_diff = float(_diff(corrupted_logits, target_id, foil_id))
    span = clean_diff - corrupted_diff
    if abs(span) < 1e-6:
        raise ProbeRefusal("no_difference", "the two runs give the target the same logit difference: nothing to restore")

    sweep = _Sweep(bundle, corrupted.src, r_tgt, row, target_id, foil_id, memory, corrupted_diff)

    def same(name: str, index: int) -> bool:  # a position of the stream, or a head: dimension 1 either way
        return torch.equal(clean_cache[name][0, index], corrupted_cache[name][0, index])

    n_positions = int((r_tgt if r_tgt is not None else corrupted.src).shape[1])  # type: ignore[union-attr]
    width = clean.stream_ids.shape[1]
    n_heads = bundle.config.n_heads
    total = len(points) * n_positions + len(modules) * n_heads
    done = 0

    def step(n: int) -> None:
        nonlocal done
        done += n
        if progress is not None:
            progress(done, total)
        if cancelled is not None and cancelled():
            raise Cancelled

    step(0)
    residual = np.zeros((len(points), width), dtype=np.float64)  # positions past a causal cut stay 0: unreachable
    positions = list(range(n_positions))
    for i, name in enumerate(points):
        unchanged = [same(name, p) for p in positions]
        diffs = sweep.diffs(name, lambda chunk, name=name: _patch_positions(clean_cache[name], chunk), positions, unchanged, step)
        residual[i, :n_positions] = (np.array(diffs) - corrupted_diff) / span
    heads: dict[str, np.ndarray] = {}
    for module, name in zip(modules, z_names, strict=True):
        unchanged = [same(name, h) for h in range(n_heads)]
        diffs = sweep.diffs(
            name, lambda chunk, name=name: _patch_heads(clean_cache[name], chunk), list(range(n_heads)), unchanged, step
        )
        heads[module] = (np.array(diffs) - corrupted_diff) / span
    symbols = bundle.target_tokenizer.symbols([target_id, foil_id])
    return Patching(
        position,
        row,
        symbols[0],
        target_id,
        symbols[1],
        foil_id,
        clean_diff,
        corrupted_diff,
        points,
        residual,
        heads,
        clean,
        corrupted,
        differs,
    )


__all__ = ["Patching", "patch"]
