"""Thin Streamlit caches over the output, feed-forward and head-detector run modules (`runs/`).

Same bounded-by-bytes cache as `ui.models`; each function only picks the cache, the work is in `runs/`.
"""

from __future__ import annotations

from runs import feed_forward, head_detectors, output
from runs.byte_cache import byte_cached, shared_cache
from runs.feed_forward import FeedForwardRun
from runs.head_detectors import DetectorTable
from runs.output import OutputSteps, SamplingSettings
from ui.models import get_bundle


@byte_cached(shared_cache())
def get_output_steps(model_key: str, text: str, settings: SamplingSettings, steps: int, k: int) -> OutputSteps:
    """`runs.output.output_steps`, cached per arguments (a rerun that only changes the chart costs nothing)."""
    return output.output_steps(get_bundle(model_key), text, settings, steps, k)


@byte_cached(shared_cache())
def get_feed_forward(model_key: str, text: str) -> FeedForwardRun:
    """`runs.feed_forward.feed_forward_run`, cached per model and text."""
    return feed_forward.feed_forward_run(get_bundle(model_key), text)


@byte_cached(shared_cache())
def get_detectors(model_key: str) -> DetectorTable:
    """`runs.head_detectors.detector_table`: per model (it reads a fixed repeated random sequence, not the text)."""
    return head_detectors.detector_table(get_bundle(model_key))
