"""The causal-mask experiment: what lifting the decoder's mask changes, told as it is.

Two truths, side by side:
- Greedy generation: the newest position is the last one, so it has no later token to look at;
  lifting the mask leaves generation (nearly) unchanged. (Not always exactly: decoding reruns the
  decoder over the whole prefix at each step, and without the mask the earlier positions of that
  prefix do see the tokens written after them, which can shift the newest one's inputs.)
- Teacher forcing (training, or reading a reference target in one pass): every position could see
  the whole target. With the mask, position i sees 0..i; without it, it sees the answer it is meant
  to predict. A model trained with the mask never learned to use the future, so its predictions
  change in ways it was never taught; one trained without it learns to copy the answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import torch

from hook_names import hook_name
from transformer.engine.decoding import trace_text
from transformer.hooks import capture
from transformer.interventions import build_interventions, no_causal_specs
from transformer.storage.checkpoint import ModelBundle
from transformer.text.prompt import text_rows
from transformer.text.rows import decoder_row, label_row, text_limit
from transformer.text.tokenizer import Tokenizer
from transformer.training.evaluate import target_ids


@dataclass(frozen=True)
class PositionPrediction:
    """One decoder row of the teacher-forced pass: what it reads, what it should write, what it predicts."""

    position: int
    reads: str  # the decoder input token at this row
    expected: str  # the reference's next token (<eos> after the last)
    with_mask: str
    without_mask: str
    p_with_mask: float  # probability of `with_mask` with the mask
    p_without_mask: float  # probability of `without_mask` without it
    changed: bool
    future_weight: float  # largest weight any head of any unmasked layer puts on keys after this row
    looks_ahead: bool  # future_weight > 0
    # raw bytes (hex, "e4 bd") of `reads`, `expected` and the two predictions, shown beside a byte-level piece's
    # label ("你 ¹⁄₂"); "" where the label is the text (a special, a word-level model's token)
    reads_hex: str = ""
    expected_hex: str = ""
    with_mask_hex: str = ""
    without_mask_hex: str = ""
    right_with_mask: bool = False  # `with_mask` is the expected token (compared as ids: labels read alone may repeat)
    right_without_mask: bool = False


@dataclass(frozen=True)
class CausalExperiment:
    """The causal experiment on one input: generation with and without the mask, and a
    teacher-forced pass over `reference` with and without it."""

    text: str
    reference: str
    layers: tuple[int, ...]  # decoder layers whose mask was lifted
    generated_with_mask: str | None  # None when not generated (`generate=False`, e.g. an untrained model)
    generated_without_mask: str | None
    positions: tuple[PositionPrediction, ...]
    # per lifted layer, (H, Tt, Tt) teacher-forced patterns with and without the mask (rows = positions)
    patterns_with_mask: tuple[np.ndarray, ...] = field(default=(), repr=False)
    patterns_without_mask: tuple[np.ndarray, ...] = field(default=(), repr=False)

    @property
    def generation_changed(self) -> bool | None:
        if self.generated_with_mask is None:
            return None
        return self.generated_with_mask != self.generated_without_mask

    @property
    def n_changed(self) -> int:
        return sum(p.changed for p in self.positions)

    @property
    def looking_ahead(self) -> tuple[int, ...]:
        """Rows that put weight on later positions once the mask is lifted."""
        return tuple(p.position for p in self.positions if p.looks_ahead)


def _predicted(target: Tokenizer, predicted: list[int], expected: list[int], expected_labels: list[str]) -> list[str]:
    """Each row's prediction labelled as its own token: the expected token's label where it is that token (a byte-level
    piece named from its sentence, "你 ¹⁄₃"), else read alone. The predictions are not a sentence: naming a piece from
    the next row's prediction would join bytes no row wrote together (`PretrainedTokenizer.symbols`)."""
    return [label if i == e else target.symbols([i])[0] for i, e, label in zip(predicted, expected, expected_labels, strict=True)]


@torch.no_grad()
def causal_experiment(
    bundle: ModelBundle, text: str, reference: str, layers: Sequence[int] | None = None, *, generate: bool = True
) -> CausalExperiment:
    """Run the causal experiment on `text` against the `reference` target.

    Encoder-decoder: the encoder reads `text`; the decoder reads <bos> + `reference`.
    Decoder-only: the decoder reads <bos> + `reference` (pass the text itself to predict it).

    Args:
        layers: decoder layers whose causal mask is lifted; None lifts it everywhere.
        generate: False skips greedy generation (an untrained model's would be noise, and slow).
    Raises:
        ValueError: if `reference` is empty or a layer does not exist.
    """
    model, config = bundle.model, bundle.config
    chosen = tuple(range(config.n_layers)) if layers is None else tuple(int(i) for i in layers)
    if not chosen or not all(0 <= i < config.n_layers for i in chosen):
        raise ValueError(f"decoder layers must be among 0..{config.n_layers - 1}, got {list(chosen)}")
    specs = no_causal_specs(config.n_layers, chosen)
    lifted = build_interventions(specs)
    generated = trace_text(bundle, text, names=()) if generate else None
    generated_free = trace_text(bundle, text, names=(), interventions=lifted) if generate else None

    target = bundle.target_tokenizer
    ref = target_ids(target, reference)[: text_limit(config.max_len)]
    if not ref:
        raise ValueError("the reference target is empty")
    tgt_in = torch.tensor([decoder_row(ref)])  # (1, Tt)
    source = text_rows(bundle, text).src  # as trace_text reads it: the text's ids (cut to fit) + <eos>
    src = None if source is None else torch.tensor([source])  # (1, Ts)
    patterns = [hook_name(spec.module, "pattern") for spec in specs]
    with capture(model, patterns) as masked:
        probs = model(src, tgt_in).softmax(-1)[0]  # (Tt, vocab)
    with capture(model, patterns, lifted) as cache:
        probs_free = model(src, tgt_in).softmax(-1)[0]  # (Tt, vocab)
    future = torch.ones(tgt_in.shape[1], tgt_in.shape[1], dtype=torch.bool).triu(1)  # (Tt, Tt) key after query
    ahead = torch.stack([(cache[name][0] * future).sum(-1).amax(0) for name in patterns]).amax(0)  # (Tt,)

    p, pred = probs.max(-1)  # (Tt,)
    p_free, pred_free = probs_free.max(-1)  # (Tt,)
    labels = label_row(ref)  # (Tt,) the expected next token's id at each row
    reads, expected = target.symbols(tgt_in[0].tolist()), target.symbols(labels)
    with_mask = _predicted(target, pred.tolist(), labels, expected)
    without_mask = _predicted(target, pred_free.tolist(), labels, expected)
    reads_hex, expected_hex = target.raw_bytes(tgt_in[0].tolist()), target.raw_bytes(labels)
    with_hex, without_hex = target.raw_bytes(pred.tolist()), target.raw_bytes(pred_free.tolist())
    positions = tuple(
        PositionPrediction(
            i,
            reads[i],
            expected[i],
            with_mask[i],
            without_mask[i],
            float(p[i]),
            float(p_free[i]),
            int(pred[i]) != int(pred_free[i]),  # ids: two byte pieces read alone may share a label (▯)
            float(ahead[i]),
            bool(ahead[i] > 0),
            reads_hex[i],
            expected_hex[i],
            with_hex[i],
            without_hex[i],
            int(pred[i]) == labels[i],
            int(pred_free[i]) == labels[i],
        )
        for i in range(tgt_in.shape[1])
    )
    return CausalExperiment(
        generated.text if generated else text,
        target.decode(ref),
        chosen,
        generated.output_text if generated else None,
        generated_free.output_text if generated_free else None,
        positions,
        tuple(masked[name][0].float().numpy() for name in patterns),
        tuple(cache[name][0].float().numpy() for name in patterns),
    )
