"""What a teacher may type: one line per model saying what it reads, and a "what can I type?" panel.

The facts come from the task (`transformer.tasks.model_input_description`, `describe_grammar`); this
file only words them in the UI language. It promises nothing the model cannot read: a translator reads
the words of its lexicon, a character model (`reverse`, `induction`) the characters of its own set (letters,
digits, Chinese characters: whichever it has) up to its trained length, and untrained weights the
characters of their vocabulary (no emoji).
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

import streamlit as st

from runs.model_ref import is_untrained
from runs.reference import model_task
from transformer.storage.checkpoint import ModelBundle
from transformer.tasks import GrammarDescription, Task, WordTask, describe_grammar, model_input_description
from transformer.tasks.reading import CATEGORY_NAMES
from transformer.text.reading import reader as text_reader
from transformer.text.reading import symbols_that_fit
from transformer.text.tokenizer import SPECIALS, word_pieces
from ui.i18n import current_language, t
from ui.safe import md_literal

CHARSET_SHOWN = 400  # characters listed in the panel of a character model (the rest are counted)


@lru_cache(maxsize=16)
def _grammar(task: Task) -> GrammarDescription:
    return describe_grammar(task)  # type: ignore[arg-type]  # only called for word tasks


# each has a `grammar.charset_<group>` line
CHARSET_GROUPS = ("letters", "digits", "space", "ascii_marks", "hanzi", "chinese_marks", "other")


def charset_group(symbol: str) -> str:
    """Which of `CHARSET_GROUPS` a vocabulary symbol (one user-perceived character) belongs to."""
    if len(symbol) == 1 and symbol.isascii():
        return "letters" if symbol.isalpha() else "digits" if symbol.isdigit() else "space" if symbol == " " else "ascii_marks"
    if len(symbol) == 1 and unicodedata.name(symbol, "").startswith(("CJK UNIFIED IDEOGRAPH", "CJK COMPATIBILITY IDEOGRAPH")):
        return "hanzi"
    if len(symbol) == 1 and unicodedata.category(symbol).startswith("P"):  # ，。“”《》: the marks of Chinese text
        return "chinese_marks"
    return "other"


def charset_counts(symbols: Sequence[str]) -> dict[str, int]:
    """How many of `symbols` fall in each group, in `CHARSET_GROUPS` order, groups with none left out."""
    counts = Counter(charset_group(s) for s in symbols)
    return {group: counts[group] for group in CHARSET_GROUPS if counts[group]}


def reads_line(bundle: ModelBundle) -> str:
    """One sentence: what this model reads (unit, lexicon or character set, the longest input it was trained on).

    A character model's set is described from its own vocabulary (so Chinese characters are mentioned only
    when it has them), and its length is the one its card or task says it was trained on.
    """
    desc = model_input_description(bundle)
    reader = text_reader(bundle)
    symbols = reader.vocab[len(SPECIALS) :]  # after <pad> <bos> <eos> <unk>
    n = desc.max_symbols if desc.max_symbols is not None else symbols_that_fit(bundle.config)
    charset = t("architecture.list_sep").join(t(f"grammar.charset_{g}", n=f"{k:,}") for g, k in charset_counts(symbols).items())
    if is_untrained(bundle) or model_task(bundle) is None:
        return t("grammar.reads_untrained", count=f"{len(symbols):,}", n=n)
    return t(f"grammar.reads_{desc.unit}", count=f"{len(symbols):,}", charset=charset, n=n)


def role_name(role: str) -> str:
    """A grammar role ("subject", "noun", ...) in the UI language, as the task names it (`CATEGORY_NAMES`)."""
    english, chinese = CATEGORY_NAMES.get(role, (role, role))
    return chinese if current_language() == "zh" else english


def _slot(slot: str, optional: bool) -> str:
    """A pattern slot: a role's name, or a literal word ('"of"', '"在"'); optional ones in brackets."""
    word = slot.strip('"') if slot.startswith('"') else role_name(slot)
    return f"[{word}]" if optional else word


def grammar_panel(bundle: ModelBundle, reads: str | None = None, text: str = "") -> None:
    """The "what can I type?" expander (closed: one line high): `reads` (what the model reads, also the text
    box's help), then patterns, lexicon by category and what goes with what for a translator; the character
    set for a character model; for a natural translator, how it reads `text` (its word pieces)."""
    task = model_task(bundle)
    with st.expander(t("grammar.what_can_i_type"), icon=":material/help:"):
        if reads:
            st.caption(reads)
        if hasattr(task, "references"):
            _pieces_panel(bundle, text)
        elif isinstance(task, WordTask):
            _word_panel(_grammar(task))
        else:
            _char_panel(bundle)


def _word_panel(grammar: GrammarDescription) -> None:
    patterns, words, combinations = st.tabs([t("grammar.tab_patterns"), t("grammar.tab_words"), t("grammar.tab_combinations")])
    with patterns:
        for name, slots in grammar.patterns.items():
            shape = " + ".join(_slot(slot, optional) for slot, optional in slots)
            st.markdown(f"**{t(f'grammar.pattern_{name}')}**: {md_literal(shape)}")
        st.caption(t("grammar.optional_note"))
        st.markdown(f"**{t('grammar.example')}**")
        st.code(grammar.example, language=None, wrap_lines=True)
    with words:
        for role, phrases in grammar.lexicon.items():
            st.markdown(f"**{role_name(role)}** ({len(phrases)}): " + md_literal(", ".join(phrases)))
    with combinations:
        for role, table in grammar.goes_with.items():
            st.markdown(f"**{t(f'grammar.goes_{role}')}**")
            st.markdown("  \n".join(f"{md_literal(word)} → {md_literal(', '.join(fits))}" for word, fits in table.items()))


def _pieces_panel(bundle: ModelBundle, text: str) -> None:
    """A natural translator reads any text: show how it splits this one (word pieces joined by "·")."""
    reader = text_reader(bundle)
    if text.strip():
        st.markdown(f"**{t('grammar.pieces_of_text')}**")
        st.code("  ".join(word_pieces(reader, text)), language=None, wrap_lines=True)


def _char_panel(bundle: ModelBundle) -> None:
    """The characters the model's own vocabulary holds (what it reads, whatever its task says)."""
    reader = text_reader(bundle)
    symbols = [s for s in reader.vocab[len(SPECIALS) :] if s != " "]  # after <pad> <bos> <eos> <unk>
    st.markdown(reads_line(bundle))
    shown = "".join(symbols[:CHARSET_SHOWN])
    rest = len(symbols) - CHARSET_SHOWN
    st.code(shown + (f" … (+{rest:,})" if rest > 0 else ""), language=None, wrap_lines=True)
    if model_task(bundle) is not None:  # untrained weights have no task, so no right output
        st.caption(t("grammar.char_note"))
