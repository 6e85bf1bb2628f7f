"""Attention Atlas: `streamlit run app.py`.

Sets the page config, the shared sidebar (language first, so page titles are translated) and
the navigation; each page in views/ renders itself.
"""

import base64
import gc
import os
from pathlib import Path

# One BLAS thread pool per process, sized for a small machine, set before torch is imported so
# that many sessions don't oversubscribe the CPU.
os.environ.setdefault("OMP_NUM_THREADS", "2")
os.environ.setdefault("MKL_NUM_THREADS", os.environ["OMP_NUM_THREADS"])  # one number for both (serve.school says why)
# NumPy's own BLAS (OpenBLAS: rollout's products) on one thread: as fast alone on the heads page of a 1,022-token
# run (0.11 s), and its two threads spin against each other once anything else holds a core (a browser drawing the
# page on the same machine, another session's run): 0.24-1.5 s.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

# The first run imports PyTorch and the app (about a million objects): no garbage collection walks them midway
# (that cost ~0.2 s of the first page); `ui.caches` then freezes them out of every later collection's way.
gc.disable()
import streamlit as st  # noqa: E402 (after gc.disable)

from ui.i18n import t  # noqa: E402 (after gc.disable)
from ui.pages.lesson.class_mode import class_banner  # noqa: E402 (after gc.disable)
from ui.projector import apply_projector_mode, projector_requested, projector_toggle  # noqa: E402 (after gc.disable)
from ui.sidebar import language_switch  # noqa: E402 (after gc.disable)

gc.enable()

ROOT = Path(__file__).resolve().parent
# (page script in views/, icon), in teaching order (the order of the lesson); the first is the home
# page. One line per page.
PAGES: list[tuple[str, str]] = [
    ("lesson", ":material/school:"),
    ("architecture", ":material/account_tree:"),
    ("step_by_step", ":material/calculate:"),
    ("heads", ":material/grid_view:"),
    ("atlas", ":material/travel_explore:"),
    ("masks", ":material/visibility_off:"),
    ("why", ":material/psychology_alt:"),
    ("positional", ":material/waves:"),
    ("layernorm", ":material/equalizer:"),
    ("output", ":material/bar_chart:"),
    ("feed_forward", ":material/unfold_more:"),
    ("training", ":material/model_training:"),
]
# The navigation's sections, each a run of PAGES in order: the lesson (and the whole model it walks through),
# attention itself, the rest of a Transformer block, training.
SECTIONS: list[tuple[str, tuple[str, ...]]] = [
    ("lesson", ("lesson", "architecture")),
    ("attention", ("step_by_step", "heads", "atlas", "masks", "why")),
    ("block", ("positional", "layernorm", "output", "feed_forward")),
    ("training", ("training",)),
]

# A local favicon (a causal attention pattern): a ":material/…" page icon is fetched from Google's
# font server by the browser, and the app must work offline.
# Passed as a data URI: Streamlit hands that to the browser as it is, where a file path is opened with PIL on every
# rerun (PIL's import alone is ~20 ms of the first page).
FAVICON = "data:image/png;base64," + base64.b64encode((ROOT / "assets" / "favicon.png").read_bytes()).decode("ascii")
st.set_page_config(
    page_title="Attention Atlas",
    page_icon=FAVICON,
    layout="wide",
    initial_sidebar_state="collapsed" if projector_requested() else "auto",
)
language_switch()
projector_toggle()
apply_projector_mode()
# Streamlit serves the default page at "/" only: its url_path never answers (`/lesson` said "Page not
# found"). So the lesson is listed once, first, at "/", and a hidden second page on the same script
# answers at `/lesson`, the address a teacher writes on the board, and hands over to "/" with the query
# kept, so the navigation marks the lesson as the current page.
HOME_ALIAS = PAGES[0][0]
pages = [
    st.Page(ROOT / "views" / f"{name}.py", title=t(f"nav.{name}"), icon=icon, url_path="" if i == 0 else name, default=(i == 0))
    for i, (name, icon) in enumerate(PAGES)
]
alias = st.Page(ROOT / "views" / f"{HOME_ALIAS}.py", title=t(f"nav.{HOME_ALIAS}"), url_path=HOME_ALIAS, visibility="hidden")
by_name = dict(zip((name for name, _ in PAGES), pages, strict=True))
sections = {t(f"nav.section_{key}"): [by_name[name] for name in names] for key, names in SECTIONS}
sections[t("nav.section_lesson")].append(alias)  # hidden: listed nowhere, answers at /lesson
current = st.navigation(sections)
if current.url_path == HOME_ALIAS:
    st.switch_page(pages[0], query_params=st.query_params.to_dict())
if current.url_path:  # a lab page: a student in a class sees the way back to the teacher's step
    class_banner(pages[0])
current.run()
