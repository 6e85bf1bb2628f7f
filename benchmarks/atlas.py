"""The corpus pages: the atlas precompute, opening the page (stored vs computed), and the map of queries and keys.

Run:  python -m benchmarks.atlas [--quick]

1. Precompute (`python -m transformer atlas`'s work, `build_atlas`) of each shipped model over its held-out sample,
   beside the peer a reader already waits for: one sentence on the heads page (`trace_text` with every pattern).
2. Opening the page: reading a shipped `atlas.json` against computing the same atlas on demand (what a converted
   folder pays once, before its disk cache).
3. The map of queries and keys of one head over a few thousand points: q/k vectors + PCA (`runs.qk_map`), building the
   figure, its JSON bytes, and in headless Chromium the time Plotly takes to draw it and to redraw it after a zoom,
   as `Scattergl` (WebGL, what the page uses) beside `Scatter` (SVG), the same points.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import plotly
import plotly.io as pio

from benchmarks.chromium import CHROMIUM_ARGS, chromium_path
from benchmarks.common import arguments, header, print_table, timed
from runs.qk_map import qk_map
from transformer.engine.decoding import trace_text
from transformer.probes.atlas import ATLAS_JSON, HELDOUT, build_atlas, heldout_sentences, load_atlas, pattern_hooks
from transformer.storage.registry import MODELS_DIR, load_model
from viz.atlas_figures import MapText, qk_figure

MODELS = (
    "induction",
    "en-zh",
    "zh-en",
    "gpt-translate-en-zh",
    "reverse",
    "translate-en-fr",
    "translate-en-zh",
    "translate-zh-en",
)
WORDS = MapText("queries", "keys", "yours", "PCA 1", "PCA 2", "sentence")
PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"


def precompute(models: tuple[str, ...], n: int) -> None:
    rows = []
    for name in models:
        bundle = load_model(name)
        texts = heldout_sentences(bundle, n) or []
        one, _ = timed(lambda b=bundle, s=texts[0]: trace_text(b, s, names=pattern_hooks(b)))
        seconds, _ = timed(lambda b=bundle, s=texts: build_atlas(b, s, source=HELDOUT))
        stored = MODELS_DIR / name / ATLAS_JSON
        size = stored.stat().st_size if stored.exists() else 0
        rows.append([name, len(texts), f"{seconds:.1f}", f"{1000 * one:.0f}", f"{seconds / one:.0f}×", f"{size / 1e3:.0f} kB"])
    print("### Precompute (one model's held-out sample) vs one sentence on the heads page\n")
    print_table(["model", "sentences", "atlas (s)", "one sentence (ms)", "ratio", "atlas.json"], rows)


def page_open(name: str, n: int) -> None:
    bundle = load_model(name)
    texts = heldout_sentences(bundle, n) or []
    load_s, _ = timed(lambda: load_atlas(MODELS_DIR / name / ATLAS_JSON))
    compute_s, _ = timed(lambda: build_atlas(bundle, texts, source=HELDOUT))
    print("### Opening the page: the stored atlas vs computing it on demand\n")
    print_table(
        ["model", "read atlas.json (ms)", f"compute over {len(texts)} sentences (s)", "ratio"],
        [[name, f"{1000 * load_s:.1f}", f"{compute_s:.1f}", f"{compute_s / load_s:.0f}×"]],
    )


def browser_draw(fig_json: str, repeats: int) -> tuple[float, float] | None:
    """(median ms to draw, median ms to redraw after a zoom) of a figure in headless Chromium, or None without one."""
    path = chromium_path()
    if path is None:
        return None
    from playwright.sync_api import sync_playwright

    html = "<html><body><div id='g' style='width:1200px;height:600px'></div></body></html>"
    draws, zooms = [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.set_content(html)
        page.add_script_tag(path=str(PLOTLY_JS))
        for _ in range(repeats):
            took = page.evaluate(
                """async (spec) => {
                    const f = JSON.parse(spec); const g = document.getElementById('g'); Plotly.purge(g);
                    const t0 = performance.now(); await Plotly.newPlot(g, f.data, f.layout);
                    await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
                    const t1 = performance.now();
                    const xr = g._fullLayout.xaxis.range; const yr = g._fullLayout.yaxis.range;
                    await Plotly.relayout(g, {'xaxis.range': [xr[0] / 2, xr[1] / 2], 'yaxis.range': [yr[0] / 2, yr[1] / 2]});
                    await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
                    return [t1 - t0, performance.now() - t1];
                }""",
                fig_json,
            )
            draws.append(took[0])
            zooms.append(took[1])
        browser.close()
    draws.sort()
    zooms.sort()
    return draws[len(draws) // 2], zooms[len(zooms) // 2]


def qk_map_timing(name: str, n: int, repeats: int) -> None:
    bundle = load_model(name)
    texts = heldout_sentences(bundle, n) or []
    seconds, m = timed(lambda: qk_map(bundle, texts, "encoder", 1, 0, user_text=texts[0]))
    build_s, fig = timed(lambda: qk_figure(m.xy, m.is_query, m.tokens, m.sentence, m.user, m.texts, WORDS))
    spec = pio.to_json(fig)
    rows = [[name, len(texts), m.n_points, f"{seconds:.2f}", f"{1000 * build_s:.0f}", f"{len(spec) / 1e3:.0f} kB"]]
    print("### The map of queries and keys: computing it\n")
    print_table(["model", "sentences", "points", "q/k + PCA (s)", "figure (ms)", "figure JSON"], rows)
    gl = browser_draw(spec, repeats)
    svg_fig = json.loads(spec)
    for trace in svg_fig["data"]:
        trace["type"] = "scatter"
    svg = browser_draw(json.dumps(svg_fig), repeats)
    if gl is None or svg is None:
        print("(no Chromium: browser drawing not measured)\n")
        return
    print("### The map in headless Chromium (software WebGL, --disable-gpu): Scattergl vs Scatter (SVG)\n")
    print_table(
        ["trace", "points", "draw (ms)", "redraw after zoom (ms)"],
        [
            ["Scattergl (the page)", m.n_points, f"{gl[0]:.0f}", f"{gl[1]:.0f}"],
            ["Scatter (SVG)", m.n_points, f"{svg[0]:.0f}", f"{svg[1]:.0f}"],
            ["ratio SVG / WebGL", "", f"{svg[0] / gl[0]:.1f}×", f"{svg[1] / gl[1]:.1f}×"],
        ],
    )


def main() -> None:
    args = arguments(__doc__).parse_args()
    header("Corpus pages: atlas precompute, page open, map of queries and keys")
    started = time.perf_counter()
    if args.quick:
        precompute(("induction",), 4)
        page_open("translate-en-zh", 4)
        qk_map_timing("translate-en-zh", 6, 1)
    else:
        precompute(MODELS, 40)
        page_open("en-zh", 40)
        qk_map_timing("en-zh", 150, 5)
    print(f"total {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
