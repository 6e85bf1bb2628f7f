"""Measuring the induction model: its previous-token and induction heads, and its loss on each half.

On held-out repeated sequences `<bos> x1 … xn x1 … xn` (distinct random symbols):
- a previous-token head (layer 0) puts its weight on position q - 1;
- an induction head (layer 1) puts its weight on the symbol after the earlier occurrence of the
  current symbol, i.e. on what comes next;
- the loss on the first half stays near ln(vocabulary) (nothing to predict from), while the loss on
  the repeated half (from its second symbol on) falls close to zero.

The numbers go into the model card (`transformer.cli.train.attention_report`) and are re-checked on the shipped
weights by the tests. The scores are `transformer.probes.head_scores`' (pure NumPy), so the card and the heads
page measure the same thing.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import torch

from hook_names import head_label
from transformer.hooks import capture
from transformer.probes.detector_inputs import DECODER_SELF, pattern_name
from transformer.probes.head_scores import induction_score, previous_token_score
from transformer.storage.checkpoint import ModelBundle
from transformer.text.tokenizer import PAD_ID
from transformer.training.evaluate import make_batch

N_SEQUENCES = 200
SEED = 12345


@torch.no_grad()
def induction_measurements(bundle: ModelBundle, examples: list[Any]) -> dict[str, np.ndarray | float]:
    """Scores and losses of a decoder-only model on pure repeats (`pure_repeats`: h + h[0] → h[1:]).

    Returns:
        previous_token: (L, H) mean previous-token score over sequences;
        induction: (L, H) mean induction score over sequences;
        loss_first_half: mean cross-entropy (nats) predicting x1 … xn;
        loss_repeated_half: mean cross-entropy predicting the repeat's x2 … xn (x1 cannot be predicted).
    """

    model, n_layers = bundle.model, bundle.config.n_layers
    was_training = model.training
    model.eval()
    names = [pattern_name(DECODER_SELF, layer) for layer in range(n_layers)]
    previous, induction, first, repeated = [], [], [], []
    try:
        batch = make_batch(bundle, examples)
        with capture(model, names) as cache:
            logits = model(None, batch.tgt_in)  # (B, T, vocab)
        losses = torch.nn.functional.cross_entropy(
            logits.transpose(1, 2), batch.tgt_out, ignore_index=PAD_ID, reduction="none"
        )  # (B, T): the loss of predicting the token after each position
        patterns = torch.stack([cache[name] for name in names], dim=1).numpy()  # (B, L, H, T, T)
        for b, example in enumerate(examples):
            half = len(example.source) - 1
            length = 2 * half  # the decoder reads <bos> x1 … xn x1 … x(n-1); it predicts the last xn
            ids = batch.tgt_in[b, :length].tolist()
            sequence = patterns[b, :, :, :length, :length]  # (L, H, T, T)
            previous.append(previous_token_score(sequence))
            induction.append(induction_score(sequence, ids))
            first.append(losses[b, :half])  # positions 0 .. n-1 predict x1 .. xn
            repeated.append(losses[b, half + 1 : 2 * half])  # positions n+1 .. 2n-1 predict the repeat's x2 .. xn
    finally:
        model.train(was_training)
    return {
        "previous_token": np.mean(previous, axis=0),
        "induction": np.mean(induction, axis=0),
        "loss_first_half": torch.cat(first).mean().item(),
        "loss_repeated_half": torch.cat(repeated).mean().item(),
    }


def pure_repeats(n: int = N_SEQUENCES, seed: int = SEED) -> list[Any]:
    """`n` held-out induction examples without a lead-in: `<bos> x1 … xn x1 … xn` exactly."""
    from transformer.tasks import get_task

    return dataclasses.replace(get_task("induction"), max_lead=0).examples(n, split="heldout", seed=seed)


def induction_report(bundle: ModelBundle, n: int = N_SEQUENCES, seed: int = SEED) -> tuple[dict[str, Any], dict[str, float]]:
    """The card's (attention, extra metrics) for the induction model, on `n` held-out sequences.

    The previous-token head is the best layer-0 head, the induction head the best head of the last layer.
    """
    found = induction_measurements(bundle, pure_repeats(n, seed))
    previous, induction = found["previous_token"], found["induction"]
    assert isinstance(previous, np.ndarray) and isinstance(induction, np.ndarray)
    prev_head = int(np.argmax(previous[0]))
    last = bundle.config.n_layers - 1
    ind_head = int(np.argmax(induction[last]))
    attention = {
        "previous_token_head": head_label("decoder", 0, prev_head),
        "previous_token_score": round(float(previous[0, prev_head]), 4),
        "induction_head": head_label("decoder", last, ind_head),
        "n_sequences": n,
    }
    metrics = {
        "induction_score": round(float(induction[last, ind_head]), 4),
        "loss_first_half": round(float(found["loss_first_half"]), 4),
        "loss_repeated_half": round(float(found["loss_repeated_half"]), 4),
    }
    return attention, metrics
