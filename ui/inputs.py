"""The text box every page shares, with its checks shown in the user's language.

Beside the box: the card's example and a random sentence from the task's own sampler (held out of
training, so the verdict under the output is honest); under it, one line saying what this model reads
and a "what can I type?" panel (`ui.grammar_panel`). The box keeps at most MAX_URL_TEXT_CHARS
characters, the same cap a link's `?text=` gets (`ui.url_values`), so every link reopens in seconds.
A longer paste is cut to that many characters and the page says so (`_cut_long_text`): the widget's own
`max_chars` made the browser drop such a paste whole, silently, and keep the old sentence.
"""

from __future__ import annotations

import streamlit as st

from runs.reference import model_task
from runs.validation import TextCheck, check_text
from transformer.storage.checkpoint import ModelBundle
from transformer.tasks import length_warning, model_input_description, random_sentence
from transformer.text.reading import reader, symbols_that_fit
from ui.grammar_panel import grammar_panel, reads_line
from ui.i18n import t
from ui.reader_switch import reader_switch
from ui.safe import md_literal
from ui.sidebar import MODEL_KEY
from ui.url_values import MAX_URL_TEXT_CHARS

TEXT_KEY = "text"
RANDOM_DRAWS_KEY = "random_draws"  # how many random sentences this session drew: the next one's seed
CUT_KEY = "text_cut"  # session state: the length of the paste just cut to MAX_URL_TEXT_CHARS (said once)
FALLBACK_EXAMPLE = "Hello, 世界!"


def example_text(bundle: ModelBundle) -> str:
    return str(bundle.card.get("example") or FALLBACK_EXAMPLE)


def use_text(text: str) -> None:
    """Button callback: put `text` in the box (runs before the script, so the box shows it at once)."""
    st.session_state[TEXT_KEY] = text[:MAX_URL_TEXT_CHARS]


def _cut_long_text() -> None:
    """The box's callback (before the script reads it): a text longer than MAX_URL_TEXT_CHARS is cut to that
    many characters, and the page says how long the paste was."""
    value = st.session_state.get(TEXT_KEY)
    if isinstance(value, str) and len(value) > MAX_URL_TEXT_CHARS:
        st.session_state[CUT_KEY] = len(value)
        st.session_state[TEXT_KEY] = value[:MAX_URL_TEXT_CHARS]


def _use_random(bundle: ModelBundle) -> None:
    task = model_task(bundle)
    if task is None:
        return
    draw = int(st.session_state.get(RANDOM_DRAWS_KEY, 0)) + 1
    st.session_state[RANDOM_DRAWS_KEY] = draw
    use_text(random_sentence(task, seed=draw).source)


def text_box(bundle: ModelBundle) -> TextCheck:
    """Render the input (bound to the URL) and report what was wrong with it.

    Returns a TextCheck whose `text` is None when there is nothing to run (empty input).
    """
    example = example_text(bundle)
    task = model_task(bundle)
    if TEXT_KEY not in st.session_state and not st.query_params.get(TEXT_KEY):
        st.session_state[TEXT_KEY] = example
    reads = reads_line(bundle)
    # one row whose buttons keep their words' width and the box takes the rest (fixed column shares
    # cut "Random sentence" to "Rand…" in a narrow column at projector type sizes)
    row = st.container(horizontal=True, vertical_alignment="bottom")
    raw = row.text_input(
        t("input.label"),
        key=TEXT_KEY,
        bind="query-params",
        placeholder=example,
        on_change=_cut_long_text,  # no max_chars: the browser would drop a longer paste whole, without a word
        help=f"{t('input.help', max=MAX_URL_TEXT_CHARS)}\n\n{reads}",
    )
    cut = st.session_state.pop(CUT_KEY, None)
    if cut is not None:
        st.info(t("input.cut", n=cut, max=MAX_URL_TEXT_CHARS), icon=":material/content_cut:")
    row.button(t("input.example"), key="use_example", on_click=use_text, args=(example,), width="content")
    if task is not None:
        row.button(
            t("grammar.random"),
            key="random_sentence",
            on_click=_use_random,
            args=(bundle,),
            width="content",
            help=t("grammar.random_help"),
            icon=":material/casino:",
        )
    grammar_panel(bundle, reads, raw or "")  # the line on what the model reads opens the panel: one line less above every chart
    check = check_text(raw or "", reader(bundle), symbols_that_fit(bundle.config), task.suggest if task else None)
    _report(check)
    reader_switch(str(st.session_state.get(MODEL_KEY, "")), model_input_description(bundle).language, raw or "")
    if task is not None and check.text is not None:  # unknown symbols count too: each is one position read as <unk>
        warning = length_warning(bundle.card, task, check.text)
        if warning is not None:
            key = "grammar.too_long" if task.level == "char" else "grammar.too_long_words"
            st.warning(t(key, length=warning.length, limit=warning.trained_max_len), icon=":material/straighten:")
    return check


SUGGESTIONS_SHOWN = 3  # "did you mean" lines shown at once; the rest fold into an expander


def _report(check: TextCheck) -> None:
    if check.removed_controls:
        st.info(t("input.controls_removed", n=check.removed_controls))
    if check.empty:
        st.info(t("input.empty"))
        return
    if check.truncated_to is not None:
        st.warning(t("input.truncated", kept=check.truncated_to, total=check.original_tokens))
    if check.unknown:
        st.warning(t("input.unknown", n=len(check.unknown)))
        st.code("  ".join(check.unknown), language=None)
        lines = [t("input.suggest", word=md_literal(w), close=md_literal(", ".join(c))) for w, c in check.suggestions.items()]
        for line in lines[:SUGGESTIONS_SHOWN]:
            st.caption(line)
        if len(lines) > SUGGESTIONS_SHOWN:  # a long paragraph's dozens of lines would push the first chart off the screen
            with st.expander(t("input.more_suggestions", n=len(lines) - SUGGESTIONS_SHOWN)):
                for line in lines[SUGGESTIONS_SHOWN:]:
                    st.caption(line)
