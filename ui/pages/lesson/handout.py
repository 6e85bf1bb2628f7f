"""The lesson as one offline HTML file: every step's text, answer and figure on the class's sentence.

plotly.js is embedded once, inline, in the page head; each figure is a `<div>` drawn by it, so the
file opens with no network. The catalog's light markdown, with the user's sentence in it through
`ui.safe.md_literal` as on the page, is reduced to plain text (`ui.safe.markdown_plain`) and HTML-escaped.
"""

from __future__ import annotations

import html
import threading
from collections.abc import Callable

import plotly.io as pio
from plotly.offline import get_plotlyjs

from runs.lesson import STEPS
from ui.i18n import current_language, t
from ui.pages.lesson.steps import Lesson, build_step
from ui.safe import markdown_plain, md_literal

STYLE = """body{font-family:'Noto Sans','Noto Sans CJK SC','WenQuanYi Zen Hei','Microsoft YaHei',sans-serif;
max-width:1000px;margin:2rem auto;padding:0 1rem;color:#1f2430;line-height:1.5;font-size:17px}
section{border-top:2px solid #d8dbe3;margin-top:2rem;padding-top:1rem}.q{background:#eef4ff;padding:.6rem 1rem}
.a{background:#eefaf0;padding:.6rem 1rem}.notes{color:#333;font-size:15px}"""


def plain(markdown: str) -> str:
    """Catalog markdown (with user text in it through `md_literal`) as escaped HTML text, never as markup."""
    return html.escape(markdown_plain(markdown))


def handout_html(ls: Lesson) -> str:
    """The whole lesson on `ls`'s sentence, in the current UI language, as one self-contained HTML page."""
    sections = []
    for n, step in enumerate(STEPS, start=1):
        content = build_step(step, ls)
        parts = [f"<h2>{n}. {plain(content.title)}</h2>", f"<p>{plain(content.text)}</p>"]
        if content.extra:
            parts.append(f"<p>{plain(content.extra)}</p>")
        if content.question:
            parts.append(f'<p class="q"><b>{plain(t("lesson.predict"))}:</b> {plain(content.question)}</p>')
        if content.skipped:
            parts.append(f"<p>{plain(t('lesson.skipped', why=content.skipped))}</p>")
        if content.answer:
            label = content.answer_label or t("lesson.answer")
            parts.append(f'<p class="a"><b>{plain(label)}:</b> {plain(content.answer)}</p>')
        if content.figure is not None:
            parts.append(
                pio.to_html(
                    content.figure,
                    include_plotlyjs=False,
                    full_html=False,
                    config={"displaylogo": False, "responsive": True},
                    div_id=f"figure-{step}",
                )
            )
        if content.notes:
            parts.append(f'<p class="notes"><b>{plain(t("lesson.notes"))}:</b> {plain(content.notes)}</p>')
        sections.append(f'<section id="step-{n}">{"".join(parts)}</section>')
    title = plain(t("lesson.handout_title"))
    return (
        f'<!DOCTYPE html><html lang="{current_language()}"><head><meta charset="utf-8"><title>{title}</title>'
        f"<style>{STYLE}</style><script>{get_plotlyjs()}</script></head><body><h1>{title}</h1>"
        f"<p>{plain(t('lesson.handout_sentence', text=md_literal(ls.text)))}<br>"
        f"{plain(t('lesson.handout_model', model=md_literal(ls.model_key)))}</p>"
        f"{''.join(sections)}</body></html>"
    )


def deferred_handout(ls: Lesson) -> Callable[[], bytes]:
    """`handout_html(ls)` for `st.download_button(data=...)`, built only when the button is clicked.

    Streamlit runs a deferred download outside the script thread; the callable re-attaches this
    session's script context so the UI language (session state) is the one the teacher sees.
    """
    from streamlit.runtime.scriptrunner import add_script_run_ctx, get_script_run_ctx

    ctx = get_script_run_ctx()

    def build() -> bytes:
        if ctx is not None:
            add_script_run_ctx(threading.current_thread(), ctx)
        return handout_html(ls).encode("utf-8")

    return build
