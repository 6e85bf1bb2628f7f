"""The rules every page's stylesheet carries, projector mode or not (`ui.projector` adds them to its own).

Fixed strings: no user text ever goes into a stylesheet.
"""

from __future__ import annotations

# A model's output and token lists break only between tokens (spaces, " · "), never inside a Chinese word (今 / 天);
# a single token wider than its box still wraps rather than overflow.
KEEP_WORDS = """.stApp [data-testid="stCode"] code, .stApp [data-testid="stMarkdownContainer"] code {
  word-break: keep-all !important; overflow-wrap: break-word !important;
}"""

# A long input's attention matrix is a layout image stretched over its plot (viz/heatmap.py): each of its pixels is
# a block of cells, drawn as a square of one colour at any zoom, as the exact heatmap's cells are, not blurred.
# (Plotly draws a layout image on a subplot's axes in that subplot's own layer, `.layer-subplot .imagelayer`.)
PIXELATED = """.js-plotly-plot .layer-subplot .imagelayer image { image-rendering: pixelated; }"""

# While a script runs, Streamlit fades stale output to a third of its opacity over one second (after half a second).
# In a browser that composites in software (headless Chromium, many school computers) every frame of that fade
# repaints the page's heatmaps: on two cores it took half a core from the model's run, whose 1,022-token GPT-2-sized
# run then took 1.9 s instead of 1.4 (benchmarks/README.md §15). Stale output still dims after the same delay, in
# one step.
STALE_IN_ONE_STEP = """[data-testid="stApp"][data-test-script-state="running"] * { transition-duration: 0s !important; }"""

EVERY_PAGE = "\n".join((KEEP_WORDS, PIXELATED, STALE_IN_ONE_STEP))
