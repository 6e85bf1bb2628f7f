"""Exact arithmetic on request: the sidebar switch that keeps a large model's runs in float32, and the note a
page shows under a run that multiplied in bfloat16 (`transformer.precision` says when and why).

The switch appears only for a model some input of which could run in bfloat16 (a GPT-2-sized checkpoint on a
CPU with native bfloat16; never a shipped model), is off by default (the heads page of a 1,000-token text then
needs 1.9 GB of server memory instead of 2.2 and paints about a tenth sooner: benchmarks/README.md §15), and is kept
in the URL (`?exact=1`) so a copied link computes the same numbers.
"""

from __future__ import annotations

import streamlit as st

from transformer.checkpoint import ModelBundle
from transformer.precision import FAST, large_work, native_bfloat16
from ui.i18n import t
from ui.url_values import switched_on
from viz.trace import TraceData

EXACT_KEY = "exact"  # session-state key of the switch, and the query parameter


def exact_requested() -> bool:
    """Whether the reader asked for float32 on every run (the switch, or `?exact=1` before it has rendered)."""
    if EXACT_KEY in st.session_state:
        return bool(st.session_state[EXACT_KEY])
    return switched_on(st.query_params.get(EXACT_KEY))


def may_run_fast(bundle: ModelBundle) -> bool:
    """Whether some input of `bundle` could run in bfloat16 here: a model large enough at its longest input, on a
    CPU that multiplies bfloat16 natively."""
    return native_bfloat16() and large_work(bundle.config.estimated_parameters(), bundle.config.max_len)


def exact_switch(bundle: ModelBundle) -> None:
    """The sidebar switch, for a model that may run in bfloat16; seeded from the URL and kept there."""
    if not may_run_fast(bundle):
        return
    if EXACT_KEY not in st.session_state:
        st.session_state[EXACT_KEY] = exact_requested()
    st.sidebar.toggle(t("precision.exact"), key=EXACT_KEY, help=t("precision.exact_help"))
    if st.session_state[EXACT_KEY]:
        st.query_params[EXACT_KEY] = "1"
    elif EXACT_KEY in st.query_params:
        del st.query_params[EXACT_KEY]


def precision_note(trace: TraceData) -> None:
    """Under a run's output: that it multiplied in bfloat16, what that changes, and where the switch is."""
    if trace.precision == FAST:
        st.caption(t("precision.bfloat16"))
