"""Which explanation the Masks page's first two sections give: the one that holds for this model's structure.

Issue 39 §2 asks every general sentence of the Masks page to hold on every model it can show. The batch and mask
explanations were written for an encoder-decoder: an encoder-only model (a converted BERT) was told that "the decoder
reads <bos> followed by the model's own output" and about a causal mask it does not have, and a decoder-only model
(GPT-2) that "cross-attention lets every decoder position read every real source token". Each structure now gets its
own words; `tests/runs/test_masks_claims.py` checks the choice on every kind of model in both languages.
"""

from __future__ import annotations

from runs.claim import Claim


def structure(has_source: bool, has_decoder: bool) -> str:
    """ "encoder-decoder", "encoder-only" or "decoder-only", from what the page's padded batch holds."""
    if has_source and has_decoder:
        return "encoder-decoder"
    return "encoder-only" if has_source else "decoder-only"


def batch_claim(has_source: bool, has_decoder: bool) -> Claim:
    """How the padded batch is read (section 1)."""
    return Claim(
        {
            "encoder-decoder": "masks.batch_explain",
            "encoder-only": "masks.batch_explain_encoder",
            "decoder-only": "masks.batch_explain_decoder",
        }[structure(has_source, has_decoder)]
    )


def masks_claim(has_source: bool, has_decoder: bool) -> Claim:
    """What the masks of one sentence are (section 2)."""
    return Claim(
        {
            "encoder-decoder": "masks.masks_explain",
            "encoder-only": "masks.masks_explain_encoder",
            "decoder-only": "masks.masks_explain_decoder",
        }[structure(has_source, has_decoder)]
    )
