"""Server time per heads-page rerun, split into model, view-model, figure build and serialization.

Run:  python -m benchmarks.server_time [--lengths 16 64 128 ...] [--repeats N] [--no-apptest] [--quick]

- model: what `ui.caches.get_trace` (`runs.text_run.run_text`) does on a cache miss for an untrained model: one teacher-forced
  captured pass of the attention patterns (the decoder reads <bos> + the text: Tt = T), as NumPy
  (`TraceData`). Timed once. `--generate` times what it did before: greedy decoding with a trained
  model's budget (an untrained model rarely says <eos>, so Tt = min(2·T + 16, max_len − 1)) and
  then the captured pass: 59.5 s at T = 512 on the base config.
  Decoding recomputes the whole prefix at every step (cost ∝ Tt²); the projection is what it would
  cost if each step fed only its new token (Tt − 1 one-token steps + the captured pass).
- view-model, figures, serialize: everything else views/heads.py does after a new text's model
  run (benchmarks/heads_rerun.py: the same viz calls), median of `--repeats`, on a run with T
  tokens on both sides (an untrained model's output length is arbitrary: Tt above can be 1 or
  max_len, and T × T for every kind is the case the target names); "same-text rerun"
  is a later rerun (another head picked, a language switch), where the page's per-run caches
  hold the grids, statistics and rollout and only the small figures are rebuilt and all re-sent.
- AppTest: a whole-page rerun through `streamlit.testing.v1.AppTest` with the run cached (script
  execution, widgets, every element's protobuf; no browser), for reference.
Target: at T = 128 on the base config (48 heads a kind), everything but the model ≤ 300 ms.
"""

from __future__ import annotations

import logging
import statistics
from pathlib import Path
from urllib.parse import quote

import torch

from benchmarks.common import (
    BASE,
    BASE_QUERY,
    CONFIGS,
    SMALL,
    arguments,
    header,
    interleaved_medians,
    ms,
    print_table,
    random_text,
    timed,
)
from benchmarks.heads_rerun import heads_rerun, pattern_names, square_trace
from transformer.engine.decoding import trace_text
from transformer.hooks import capture
from transformer.storage.checkpoint import ModelBundle
from transformer.storage.registry import random_bundle
from transformer.text.tokenizer import SPECIALS
from viz.trace import TraceData

APP = Path(__file__).resolve().parents[1] / "app.py"
SMALL_QUERY = {"model": "random"}  # the sidebar's default random model is the small config
APP_MAX_TOKENS = 512  # the app's random models: max_len 512 (runs.model_ref.RANDOM_DEFAULTS), 511 characters + <eos>


def decoding_split(bundle: ModelBundle, trace: TraceData, step: bool = True) -> tuple[float, float]:
    """(seconds of the one captured pass, seconds of one decoder step for a single new token, or
    NaN with `step=False`: a teacher-forced run has no decoding to project).

    Greedy decoding reruns the decoder over the whole prefix at every step, so its cost grows as
    Tt²; a step that fed only the newest token (a key/value cache) would cost about the second
    number, so (Tt − 1) × it + the pass is what the model part could shrink to.
    """
    first = len(SPECIALS)  # ids below are <pad> <bos> <eos> <unk>
    symbols = len(bundle.target_tokenizer) - first
    src = torch.tensor([[first + i % symbols for i in range(len(trace.src_tokens))]]) if trace.src_tokens else None  # (1, Ts)
    tgt = torch.tensor([[first + i % symbols for i in range(len(trace.tgt_tokens))]])  # (1, Tt)
    model = bundle.model
    with torch.no_grad():
        memory = model.encode(src) if src is not None else None

        def captured_pass() -> None:
            with capture(model, pattern_names(bundle)):
                model(src, tgt)

        def one_token() -> None:
            model.generator(model.decode(tgt[:, -1:], memory, src)[:, -1])

        medians = interleaved_medians({"pass": captured_pass, **({"step": one_token} if step else {})}, repeats=3)
    return medians["pass"], medians.get("step", float("nan"))


def direct_rows(label: str, lengths: list[int], repeats: int, generate: bool = False) -> list[list[object]]:
    bundle = random_bundle(CONFIGS[label])
    rows = []
    for length in lengths:
        text = random_text(length - 1, seed=length)  # + <eos> = T source tokens
        model_s, trace = timed(
            lambda t=text: TraceData.from_trace(trace_text(bundle, t, names=pattern_names(bundle), generate=generate))
        )
        pass_s, step_s = decoding_split(bundle, trace, step=generate)
        steps = len(trace.tgt_tokens) - 1
        square = square_trace(bundle, length, seed=length)  # T × T for every kind, whatever the output length
        heads_rerun(bundle, square)  # warm-up: plotly's first figure loads its validators, as a running server has done
        runs = [heads_rerun(bundle, square) for _ in range(repeats)]
        stage = {name: statistics.median(r.seconds[name] for r in runs) for name in runs[0].seconds}
        rest = statistics.median(r.total_seconds for r in runs)
        memo: dict = {}
        same = statistics.median(heads_rerun(bundle, square, memo).total_seconds for _ in range(repeats + 1))
        projected = [ms(steps * step_s + pass_s)] if generate else []  # only decoding could use a KV cache
        rows.append(
            [
                label,
                length,
                len(trace.tgt_tokens),
                ms(model_s),
                ms(pass_s),
                *projected,
                ms(stage["view-model"]),
                ms(stage["figures"]),
                ms(stage["serialize"]),
                ms(rest),
                ms(same),
            ]
        )
    return rows


def apptest_rows(label: str, lengths: list[int], repeats: int) -> list[list[object]]:
    """First run (model included) and the median cached rerun of the whole page, in-process."""
    from streamlit.testing.v1 import AppTest

    logging.getLogger("streamlit").setLevel(logging.ERROR)  # "missing ScriptRunContext" noise from bare imports
    rows = []
    for length in (n for n in lengths if n <= APP_MAX_TOKENS):
        query = {"lang": "en", **(BASE_QUERY if label == BASE else SMALL_QUERY), "text": random_text(length - 1, seed=length)}
        at = AppTest.from_file(str(APP), default_timeout=900)
        at.switch_page("views/heads.py")  # the app opens on the lesson: this measures the heads page
        at.query_params.update(query)
        first_s, _ = timed(at.run)
        if at.exception:
            raise RuntimeError(f"the heads page failed: {[e.value for e in at.exception]}")
        reruns = [timed(at.run)[0] for _ in range(repeats)]
        rows.append(
            [
                label,
                length,
                ms(first_s),
                ms(statistics.median(reruns)),
                f"?{'&'.join(f'{k}={quote(v)}' for k, v in query.items() if k != 'text')}",
            ]
        )
    return rows


def main() -> None:
    parser = arguments(__doc__, lengths=(16, 64, 128, 256, 512))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-apptest", action="store_true", help="skip the whole-page AppTest reference")
    parser.add_argument(
        "--generate",
        action="store_true",
        help="time greedy decoding with a trained model's budget, as the app ran untrained models before",
    )
    args = parser.parse_args()
    labels = [SMALL] if args.quick else [SMALL, BASE]
    lengths = [16] if args.quick else args.lengths
    repeats = 1 if args.quick else args.repeats
    header("Server time of one heads-page rerun (direct calls; model timed once, the rest median of reruns)")
    rows = [row for label in labels for row in direct_rows(label, lengths, repeats, args.generate)]
    projected = ["model with a KV cache ms (projected)"] if args.generate else []
    print_table(
        [
            "config",
            "T (source)",
            "Tt (decoder)",
            "model ms",
            "of which captured pass ms",
            *projected,
            "view-model ms",
            "figures ms",
            "serialize ms",
            "all but model ms",
            "same-text rerun ms",
        ],
        rows,
    )
    if not args.no_apptest:
        print("Whole page through AppTest (in-process; the run cached after the first):\n")
        rows = [row for label in labels for row in apptest_rows(label, lengths, repeats)]
        print_table(["config", "T (source)", "first run ms (model included)", "cached rerun ms", "query"], rows)


if __name__ == "__main__":
    main()
