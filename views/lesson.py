"""The lesson: the steps of `runs.lesson.LESSON` through the paper on the class's own sentence, each asking before it shows.

The sentence is typed once (step 1) and kept in the URL with the step (`?step=N`); Previous / Next
(also ← / →) move through the steps; Reveal shows the answer the model computes and the figure
that proves it. "Open in the lab" opens the full page on the same sentence and head.
"""

from __future__ import annotations

from contextlib import nullcontext
from urllib.parse import urlencode

import streamlit as st

from runs.lesson import STEPS, lesson_step, step_number
from ui.chart_warmup import warm_charts
from ui.charts import show_figure
from ui.i18n import t
from ui.inputs import TEXT_KEY, example_text, text_box
from ui.page import start_page
from ui.pages.lesson.class_mode import InClass, asks_class, class_bar, class_controls, follow_teacher, lead_class, question_panel
from ui.pages.lesson.handout import deferred_handout
from ui.pages.lesson.shared_steps import shared_step
from ui.pages.lesson.steps import Lesson, StepContent, lesson_for
from ui.safe import md_literal

STEP_PARAM = "step"
REVEALED_KEY = "lesson_revealed"  # session state: the (step, model, sentence) whose answer is shown


def go_to(n: int) -> None:
    st.query_params[STEP_PARAM] = str(min(max(n, 1), len(STEPS)))


def revealed_set() -> set:
    return st.session_state.setdefault(REVEALED_KEY, set())


def set_revealed(token: tuple, shown: bool) -> None:
    (revealed_set().add if shown else revealed_set().discard)(token)


def header(n: int, content_title: str, following: bool = False) -> None:
    """The step's title and Previous / Next (none for a student: their page follows the teacher's)."""
    cols = st.columns([6, 1.7, 1.5] if not following else [1], vertical_alignment="center")
    cols[0].title(f"{n}/{len(STEPS)} · {content_title}", help=t("lesson.step_of", n=n, total=len(STEPS)), anchor=False)
    if following:
        return
    cols[1].button(
        t("lesson.prev"),
        key="lesson_prev",
        on_click=go_to,
        args=(n - 1,),
        disabled=n == 1,
        icon=":material/arrow_back:",
        shortcut="left",
        width="stretch",
    )
    cols[2].button(
        t("lesson.next"),
        key="lesson_next",
        on_click=go_to,
        args=(n + 1,),
        disabled=n == len(STEPS),
        icon=":material/arrow_forward:",
        shortcut="right",
        width="stretch",
        type="primary",
    )


def lab_link(content: StepContent, text: str, model_key: str) -> None:
    """The step's full page in the same state: this URL's language and projector settings, the lesson's model and
    the class's sentence, and the step's own head, row or setting."""
    params = {key: st.query_params[key] for key in st.query_params if key != STEP_PARAM}
    params.update(model=model_key, text=text, **content.lab_params)
    label = t("lesson.open_lab", page=t(f"nav.{content.lab_page}"))
    # A new tab, opened from the URL alone: the lesson stays where it is, and the lab page reads the sentence, model
    # and head from its link (an in-app `st.page_link` carried the lesson's widget state over them: the Masks page
    # opened with an empty text box on its own example batch).
    st.link_button(label, f"/{content.lab_page}?{urlencode(params)}", icon=":material/science:", type="tertiary")


def show_step(
    content: StepContent,
    token: tuple,
    text: str,
    left,
    right,
    ls: Lesson,
    cls: InClass | None = None,
    tools=None,
    links=None,
) -> None:
    """The step's text, question and answer in `left`; its figure in `right`, at the top of the screen, and under
    it (`tools`) the teacher's notes and the link into the lab: on a 1280 × 720 projector the question, the whole
    answer and the figure with its axis labels share the first screen. In a class (`cls`), the question gets the
    class's answers, and a student's page reveals when the teacher's does."""
    student = cls is not None and not cls.teacher
    tools = right if tools is None else tools
    links = tools if links is None else links
    if student and cls.state.revealed:
        set_revealed(token, True)
    shown = content.question is None or token in revealed_set()
    with left:
        # Once the answer is shown, the step's text (read before the question) folds away, so the question and
        # the whole answer fit on the 1280 × 720 projector screen without scrolling.
        # Step 1's text folds from the start: the open sentence box above it takes its room.
        folded = content.question and (shown or content.step == STEPS[0])
        with st.expander(t("lesson.text_again"), icon=":material/menu_book:") if folded else nullcontext():
            st.markdown(content.text)
            if content.extra:
                st.markdown(content.extra)
        if content.skipped:
            st.info(t("lesson.skipped", why=content.skipped), icon=":material/skip_next:")
        if content.question:
            st.info(f"**{t('lesson.predict')}:** {content.question}", icon=":material/psychology_alt:")
            question_panel(cls, ls, lesson_step(content.step).number, beside=right)
            if token in revealed_set():
                st.success(f"**{content.answer_label or t('lesson.answer')}:** {content.answer}", icon=":material/lightbulb:")
                if not student:
                    st.button(
                        t("lesson.hide"),
                        key=f"lesson_hide_{content.step}",
                        on_click=set_revealed,
                        args=(token, False),
                        type="tertiary",
                    )
            elif not student:
                st.button(
                    t("lesson.reveal"),
                    key=f"lesson_reveal_{content.step}",
                    on_click=set_revealed,
                    args=(token, True),
                    type="primary",
                    icon=":material/visibility:",
                )
    with right:
        if content.figure is not None and (shown or not content.figure_hidden):
            show_figure(content.figure, f"lesson_{content.step}", key=f"lesson_fig_{content.step}", html=False)
        elif content.figure is not None:  # an empty half of the projector screen would look like a fault
            st.info(t("lesson.figure_after_reveal"), icon=":material/visibility_off:")
    with tools:
        if content.notes and not student:  # the teacher's notes give answers away
            with st.expander(t("lesson.notes")):
                st.markdown(content.notes)
    with links:  # one row: the lab link, then (the page adds it) the handout
        lab_link(content, text, ls.model_key)


# The lesson's own link carries the sentence and a random model's numbers too (guarded like every page's link). Its
# title is the step's, under Previous / Next, and its sentence box the step's own, so `start_page` draws neither; a
# student's page is put on the teacher's step, model and sentence before any widget reads them.
ctx = start_page("lesson", text="none", title=False, before_model=follow_teacher)
following = ctx.before_model  # what follow_teacher returned: the class this page follows, or None
choice = ctx.model
n = step_number(st.query_params.get(STEP_PARAM))
go_to(n)  # a malformed or out-of-range ?step= is rewritten to the step shown
step = STEPS[n - 1]
top = st.container()  # the step's title and Previous / Next, filled once the sentence is known
# The class's sentence, its label the sentence and the model every step runs. On step 1 (where the class types it,
# open until Reveal) the whole window wide right under the title: typing in it never scrolls the title away, and an
# everyday sentence fits the box. Elsewhere a one-line closed bar over the figure, so the question and the whole
# revealed answer have the left column from the title down (the 1280 × 720 first screen).
sentence_bar = st.container()
left, right = st.columns([2, 3], gap="medium")
if n != 1:
    sentence_bar = right.container()
figure = right.container()  # the step's figure, at the top of the right column
links = right.container(horizontal=True, vertical_alignment="center")  # under the figure: the lab link, the handout
tools = right.container()  # then the teacher's notes
body = left.container()  # the step's text, question and answer, first under the title
current = st.session_state.get(TEXT_KEY, st.query_params.get(TEXT_KEY, example_text(choice.bundle)))
model_words = t("lesson.step_model", model=md_literal(choice.key.split("?", 1)[0]))  # "random?d_model=…": "random"
label = t("lesson.sentence", text=md_literal(current)) if current else t("lesson.sentence_hint")
# Step 1's box closes once its answer is revealed: the answer and its figure then have the screen.
typing = not current or (n == 1 and (step, choice.key, current) not in revealed_set())
with sentence_bar, st.expander(f"{label} · {model_words}", expanded=typing, icon=":material/edit:"):
    check = text_box(choice.bundle)
    st.caption(t("lesson.sentence_hint") + " " + t("lesson.keys"))
if check.text is None:
    with top:
        header(n, t(f"lesson.{step}_title"))
    body.info(t("lesson.no_text"))
else:
    ls = lesson_for(choice.key, check.text)
    content = shared_step(step, ls)  # built once for the whole class (every student moves at once)
    token = (step, choice.key, check.text)
    cls = following or lead_class(n, choice.key, check.text, token in revealed_set())
    if cls is not None and cls.resumed and cls.state.revealed:
        set_revealed(token, True)  # a teacher back from a reload sees the answer their class already sees
    with top:
        header(n, content.title, following=following is not None)
        class_bar(cls, asks_class(ls, n))
    show_step(content, token, check.text, body, figure, ls, cls, tools, links)
    with left:
        class_controls(cls, n, choice.key, check.text)
    if following is None:  # a student's handout would hold every answer before Reveal
        links.download_button(
            t("lesson.handout"),
            data=deferred_handout(ls),
            file_name="attention-lesson.html",
            mime="text/html",
            help=t("lesson.handout_help"),
            icon=":material/download:",
            on_click="ignore",
            key="lesson_handout",
        )
    if cls is not None:  # a class member's browser loads the chart library now, not at the class's first Reveal
        warm_charts()
