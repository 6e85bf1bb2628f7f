"""Exact arithmetic on request: the sidebar switch that keeps a large model's runs in float32, and the note a
page shows under a run that multiplied in bfloat16 (`transformer.engine.precision` says when and why).

The switch appears only for a model some input of which could run in bfloat16 (a GPT-2-sized checkpoint on a
CPU with native bfloat16; never a shipped model), is off by default (the heads page of a 1,000-token text then
needs 1.9 GB of server memory instead of 2.2 and paints about a tenth sooner: benchmarks/README.md §15), and is kept
in the URL (`?exact=1`) so a copied link computes the same numbers.
"""

from __future__ import annotations

import streamlit as st

from runs.text_run import may_run_fast
from transformer.engine.precision import FAST
from transformer.storage.checkpoint import ModelBundle
from ui.i18n import t
from ui.url_choice import switch_requested, url_switch
from viz.trace import TraceData

EXACT_KEY = "exact"  # session-state key of the switch, and the query parameter


def exact_requested() -> bool:
    """Whether the reader asked for float32 on every run (the switch, or `?exact=1` before it has rendered)."""
    return switch_requested(EXACT_KEY)


def exact_switch(bundle: ModelBundle) -> None:
    """The sidebar switch, for a model that may run in bfloat16; seeded from the URL and kept there."""
    if may_run_fast(bundle):
        url_switch(EXACT_KEY, t("precision.exact"), t("precision.exact_help"))


def precision_note(trace: TraceData) -> None:
    """Under a run's output: that it multiplied in bfloat16, what that changes, and where the switch is."""
    if trace.precision == FAST:
        st.caption(t("precision.bfloat16"))
