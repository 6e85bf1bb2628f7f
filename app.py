"""Attention Atlas: `streamlit run app.py`.

Sets the page config, the shared sidebar (language first, so page titles are translated) and
the navigation; each page in views/ renders itself.
"""

import os
from pathlib import Path

# One BLAS thread pool per process, sized for a small machine, set before torch is imported so
# that many sessions don't oversubscribe the CPU.
os.environ.setdefault("OMP_NUM_THREADS", "2")
os.environ.setdefault("MKL_NUM_THREADS", "2")

import streamlit as st

from ui.i18n import t
from ui.sidebar import language_switch

ROOT = Path(__file__).resolve().parent
# (page script in views/, icon), in the order of the navigation; the first is the home page.
PAGES: list[tuple[str, str]] = [
    ("heads", ":material/grid_view:"),
    ("masks", ":material/visibility_off:"),
    ("positional", ":material/waves:"),
    ("layernorm", ":material/equalizer:"),
    ("step_by_step", ":material/calculate:"),
    ("architecture", ":material/account_tree:"),
    ("output", ":material/bar_chart:"),
    ("feed_forward", ":material/unfold_more:"),
    ("training", ":material/model_training:"),
]

# A local favicon (a causal attention pattern): a ":material/…" page icon is fetched from Google's
# font server by the browser, and the app must work offline.
st.set_page_config(page_title="Attention Atlas", page_icon=str(ROOT / "assets" / "favicon.png"), layout="wide")
language_switch()
pages = [
    st.Page(ROOT / "views" / f"{name}.py", title=t(f"nav.{name}"), icon=icon, url_path=name, default=(i == 0))
    for i, (name, icon) in enumerate(PAGES)
]
st.navigation(pages).run()
