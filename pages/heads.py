"""Attention heads: every layer × head of every attention kind (placeholder until the app issue lands)."""

from ui.models import attention_names, get_trace
from ui.page import show_run, start_page

ctx = start_page("heads")
if ctx is not None and ctx.text is not None:
    trace = get_trace(ctx.model.key, ctx.text, attention_names(ctx.bundle))
    show_run(trace)
