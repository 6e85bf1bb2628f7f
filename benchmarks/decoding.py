"""Incremental decoding: what a new token costs with the key/value cache and without it.

Run:  python -m benchmarks.decoding [--repeats N] [--examples N] [--tables prompt shipped] [--quick]

1. A random decoder-only model of the paper's base size (6 layers × 8 heads, d_model 512, max_len 1024)
   continues a 600-character prompt, run as the app runs a text (`trace_text`, recording every attention
   pattern, the heads page's names): 16 new tokens vs 1 new token, with the cache and with every step
   rerunning the whole prefix (`incremental=False`, the decoder before the cache). Target: 16 tokens
   ≤ 2× one token with the cache (without it: ~8×, every token pays for the prefix again).
2. Every shipped model on its own held-out sentences, one at a time as a student types them: greedy
   decoding alone, and the whole run (decoding + the captured pass), before (full rerun) and after (cache),
   interleaved in the same run. The tokens written are checked to be identical.
"""

from __future__ import annotations

import statistics

import torch

from benchmarks.common import BASE, CONFIGS, SMALL, arguments, header, interleaved_medians, ms, print_table, random_text
from runs.memory import keep_freed_memory
from runs.text_run import attention_names
from transformer.engine.decoding import greedy_decode, trace_text
from transformer.storage.checkpoint import ModelBundle
from transformer.storage.registry import list_models, load_model, random_bundle
from transformer.tasks import get_task
from transformer.text.prompt import text_rows

PROMPT_CHARS = 600
NEW_TOKENS = (1, 16)


def prompt_cost(bundle: ModelBundle, prompt: str, new_tokens: tuple[int, ...], repeats: int) -> list[list[object]]:
    """Rows of table 1: per number of new tokens, the run's median time with and without the cache."""
    names = attention_names(bundle)
    runs = {
        (n, incremental): (
            lambda n=n, incremental=incremental: trace_text(
                bundle, prompt, names=names, max_new_tokens=n, incremental=incremental
            )
        )
        for n in new_tokens
        for incremental in (True, False)
    }
    written = {key: len(run().output_tokens) for key, run in runs.items()}  # also the warm-up
    if written[(new_tokens[-1], True)] != written[(new_tokens[-1], False)]:
        raise SystemExit("the cache wrote a different number of tokens than the full rerun")
    medians = interleaved_medians({str(key): run for key, run in runs.items()}, repeats=repeats, warmup=0)
    one = {incremental: medians[str((new_tokens[0], incremental))] for incremental in (True, False)}
    rows = []
    for n in new_tokens:
        cached, full = medians[str((n, True))], medians[str((n, False))]
        rows.append(
            [
                n,
                written[(n, True)],
                ms(full),
                f"{full / one[False]:.2f}×",
                ms(cached),
                f"{cached / one[True]:.2f}×",
                f"{full / cached:.1f}×",
            ]
        )
    return rows


def held_out_sources(bundle: ModelBundle, n: int) -> list[str]:
    """The model's first `n` held-out sources (test_shipped_models' sample, seed 2024)."""
    task = get_task(bundle.card["task"])
    return [example.source for example in task.examples(n, split="heldout", seed=2024)]


def shipped_cost(name: str, n_examples: int, repeats: int) -> list[object]:
    """A row of table 2: one shipped model's decode and whole-run medians per sentence, before and after."""
    bundle = load_model(name)
    names = attention_names(bundle)
    sources = held_out_sources(bundle, n_examples)
    inputs = []
    for text in sources:
        rows = text_rows(bundle, text)
        src = None if rows.src is None else torch.tensor([rows.src])  # (1, Ts)
        prefix = torch.tensor([rows.prefix])  # (1, Tp)
        budget = min(
            2 * len(rows.text.ids) + 16 if bundle.config.is_encoder_decoder else 64, bundle.config.max_len - prefix.shape[1]
        )
        inputs.append((src, prefix, budget))

    def decode_all(incremental: bool) -> list[list[int]]:
        return [greedy_decode(bundle.model, *args, incremental=incremental)[0].tolist() for args in inputs]

    def trace_all(incremental: bool) -> None:
        for text in sources:
            trace_text(bundle, text, names=names, incremental=incremental)

    if decode_all(True) != decode_all(False):
        raise SystemExit(f"{name}: the cache wrote other tokens than the full rerun")
    medians = interleaved_medians(
        {
            "decode full": lambda: decode_all(False),
            "decode cache": lambda: decode_all(True),
            "run full": lambda: trace_all(False),
            "run cache": lambda: trace_all(True),
        },
        repeats=repeats,
    )
    per = {key: value / len(sources) for key, value in medians.items()}  # seconds per sentence
    lengths = [len(decoded) - inputs[i][1].shape[1] for i, decoded in enumerate(decode_all(True))]
    return [
        name,
        len(sources),
        f"{statistics.mean(lengths):.1f}",
        ms(per["decode full"]),
        ms(per["decode cache"]),
        f"{per['decode full'] / per['decode cache']:.1f}×",
        ms(per["run full"]),
        ms(per["run cache"]),
        f"{per['run full'] / per['run cache']:.2f}×",
    ]


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--repeats", type=int, default=3, help="interleaved rounds per measurement")
    parser.add_argument("--examples", type=int, default=20, help="held-out sentences per shipped model")
    parser.add_argument("--tables", nargs="*", default=["prompt", "shipped"], choices=["prompt", "shipped"], help="which tables")
    args = parser.parse_args()
    keep_freed_memory()  # as the app does (ui.caches): a step's fresh tensors would page-fault otherwise
    if args.quick:  # the smoke test's size: seconds, not minutes
        config, label, chars, new_tokens, repeats, examples = CONFIGS[SMALL], SMALL, 60, (1, 4), 1, 2
    else:
        config, label, chars, new_tokens, repeats, examples = (
            CONFIGS[BASE],
            BASE,
            PROMPT_CHARS,
            NEW_TOKENS,
            args.repeats,
            args.examples,
        )
    bundle = random_bundle(config.replace(architecture="decoder-only", max_len=1024), seed=0)

    header(f"Incremental decoding: a random decoder-only {label}, a {chars}-character prompt, run as the app runs it")
    if "prompt" in args.tables:
        print_table(
            ["new tokens", "written", "full rerun ms", "vs 1 token", "cache ms", "vs 1 token", "speed-up"],
            prompt_cost(bundle, random_text(chars, seed=1), new_tokens, repeats),
        )
    if "shipped" not in args.tables:
        return
    print(f"Shipped models: per held-out sentence ({examples} each), median of {repeats} interleaved rounds\n")
    print_table(
        [
            "model",
            "sentences",
            "tokens written",
            "decode full ms",
            "decode cache ms",
            "speed-up",
            "run full ms",
            "run cache ms",
            "speed-up",
        ],
        [shipped_cost(info.name, examples, repeats) for info in list_models()],
    )


if __name__ == "__main__":
    main()
