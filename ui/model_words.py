"""Words that depend on the model and sentence on screen, so no page prints another model's example.

A caption that explains how decoder rows are named takes its "reads → writes" example from the axis
it sits under; the alignment's verb follows the task (a translator's row *translates* its source word,
a reverser's row *copies* its input character). Both come from what the model is
(`runs.model_kind`), never from its name.
"""

from __future__ import annotations

from runs.model_kind import task_family
from transformer.storage.checkpoint import ModelBundle
from transformer.text.tokenizer import SPECIALS
from ui.i18n import t
from ui.safe import md_literal
from viz.tokens import TokenAxis

ALIGNMENT_VERBS = ("translation", "reverse", "copy", "sort", "induction")  # heads.align_<family>; others: "other"


def alignment_verb(bundle: ModelBundle) -> str:
    """What a decoder row's written token does to the input token the task aligns it with ("translates", "copies")."""
    family = task_family(bundle)
    return t(f"heads.align_{family if family in ALIGNMENT_VERBS else 'other'}")


def example_row(axis: TokenAxis) -> int:
    """The first decoder row that reads and writes ordinary tokens (row 0 reads <bos>), else row 0."""
    reads = axis.reads or axis.tokens
    plain = [i for i, (r, w) in enumerate(zip(reads, axis.tokens, strict=True)) if r not in SPECIALS and w not in SPECIALS]
    return plain[0] if plain else 0


def rows_example(axis: TokenAxis) -> str:
    """ "“我 → 今天” reads 我, writes 今天", from a row of `axis` (a decoder query axis with `reads`)."""
    i = example_row(axis)
    reads = (axis.reads or axis.tokens)[i]
    return t("heads.rows_example", reads=md_literal(reads), writes=md_literal(axis.tokens[i]))


def rows_write_caption(axis: TokenAxis, key: str = "heads.rows_write") -> str:
    """Why decoder rows are named by what they write, with an example from the rows on screen."""
    return t(key, example=rows_example(axis))


def first_row_example(axis: TokenAxis) -> str:
    """ "“<bos> → 我”": the first row of `axis` as it reads and writes (the masks page's example)."""
    return f"“{md_literal(axis.plain_long(0))}”"
