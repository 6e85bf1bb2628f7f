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

# On a phone, a heatmap shown at its own width keeps that width and scrolls sideways in its box
# (`ui.charts.show_figure(keep_width=True)` puts it in a container keyed `KEEP_WIDTH_KEY` + its key). Streamlit
# otherwise shrinks a chart to its column, and on a 390 px screen an attention matrix's tick labels and colour bar
# kept their pixels while the matrix itself was left about 80 px: the labels overlapped and the title was cut.
# Streamlit writes such a chart's width on its element container (`width="580px"`) and caps it with
# `max-width: 100%`.
KEEP_WIDTH_KEY = "keep_width_"
NARROW_SCREEN_PX = 640
CHARTS_KEEP_WIDTH = f"""@media (max-width: {NARROW_SCREEN_PX}px) {{
  .stApp [class*="st-key-{KEEP_WIDTH_KEY}"] {{ overflow-x: auto; }}
  .stApp [class*="st-key-{KEEP_WIDTH_KEY}"] [data-testid="stElementContainer"][width$="px"] {{ max-width: none !important; }}
}}"""

# A class member's page draws one tiny figure from the moment it joins, so the browser loads its chart library while
# the class waits (`ui.chart_warmup`). It is laid out off the screen: it takes no room, and nobody sees or reaches it.
WARMUP_KEY = "chart_warmup"
OFF_SCREEN = f""".stApp .st-key-{WARMUP_KEY} {{
  position: absolute !important; left: -10000px; top: 0; width: 320px; height: 80px; overflow: hidden; pointer-events: none;
}}"""

EVERY_PAGE = "\n".join((KEEP_WORDS, PIXELATED, STALE_IN_ONE_STEP, CHARTS_KEEP_WIDTH, OFF_SCREEN))
