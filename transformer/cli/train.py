"""`python -m transformer train` and `python -m transformer eval`, and the model card they write."""

from __future__ import annotations

import argparse
import dataclasses
import json
import shlex
import signal
import sys
import time
from pathlib import Path
from typing import Any

import torch

from transformer.config import config_overrides
from transformer.storage.checkpoint import ModelBundle, save_checkpoint
from transformer.storage.registry import load_model
from transformer.tasks.recipes import RECIPES
from transformer.training.evaluate import EvalResult, best_head, cross_attention_alignment, is_reordered
from transformer.training.film import FILM, Film, FilmRecorder, probe_pair
from transformer.training.train import TrainProgress, TrainResult, TrainSettings, heldout_metrics, task_with_options, train

# Per-task defaults for flags left out, chosen so that `train --task T --out DIR` gives a good model (each task's
# recipe: `transformer.tasks.recipes`).
PRESETS: dict[str, dict[str, Any]] = {name: dict(recipe.train) for name, recipe in RECIPES.items()}
_RECIPE_FLAGS = (
    "steps",
    "batch_size",
    "warmup",
    "lr_factor",
    "label_smoothing",
    "eval_every",
    "eval_n",
    "target_exact",
    "init_from",
    "bf16",
)

# One-line summaries (English, Chinese) and an input a teacher can type, per task.
SUMMARIES: dict[str, tuple[str, str, str]] = {name: (r.summary, r.summary_zh, r.example) for name, r in RECIPES.items()}
# How each translator's gold word alignment (`Example.alignment`, what the alignment match is measured against) is made.
GOLD_ALIGNMENT: dict[str, str] = {name: r.gold_alignment for name, r in RECIPES.items() if r.gold_alignment}

FINAL_EVAL_N = 1000
# A frame of the probe's attention every 0.5 % of the step budget: a run that reaches its target early (the
# translators stop at 500-1,000 of 3,000-6,000 steps) still films dozens of frames; a long one is thinned to MAX_FRAMES.
FILM_FRAMES = 200
ALIGNMENT_N = 200


def _task_data(task: Any) -> dict[str, Any]:
    """The generator's settings: its class, its dataclass fields, vocabulary sizes and the held-out rule."""
    from transformer.tasks.base import HELDOUT_MODULUS

    data: dict[str, Any] = {"generator": f"{type(task).__module__}.{type(task).__qualname__}"}
    if dataclasses.is_dataclass(task):
        for f in dataclasses.fields(task):
            value = getattr(task, f.name)
            if not f.name.startswith("description") and isinstance(value, (str, int, float, bool)):
                data[f.name] = value
    data["source_vocabulary"] = len(task.source_vocabulary())
    data["target_vocabulary"] = len(task.target_vocabulary())
    data["heldout"] = f"crc32(source) % {HELDOUT_MODULUS} == 0"
    if hasattr(task, "references"):  # a corpus task: its file, split rule and licences travel with the card
        from transformer.tasks.corpus import corpus_card_data

        data.update(corpus_card_data())
    return data


def _example_text(task: Any, name: str) -> str:
    text = SUMMARIES.get(name, ("", "", ""))[2]
    if text and task.is_valid_source(text) and task.reference(text) is not None:
        return text
    return task.examples(1, split="heldout", seed=0)[0].source


def _continued_film(film: Film, init_from: str | None) -> Film:
    """`film` after the film of the checkpoint it continued, when there is one of the same probe and shape.

    A model trained in stages (`--init-from`) then ships the film of its whole training, not of its last stage.
    """
    earlier_path = None if init_from is None else Path(init_from) / FILM
    if earlier_path is None or not earlier_path.is_file():
        return film
    try:
        earlier = Film.load(earlier_path)
    except (OSError, ValueError, KeyError) as error:
        print(f"note: {earlier_path} is not a readable film ({error}); the film covers this run only", file=sys.stderr)
        return film
    if not film.continues(earlier):
        print(f"note: {earlier_path} films another probe or model shape; the film covers this run only", file=sys.stderr)
        return film
    return film.after(earlier)


def command_for(settings: TrainSettings, out: str) -> str:
    """The exact command line that regenerates a model with these settings."""
    words = ["python", "-m", "transformer", "train", "--task", settings.task, "--out", out]
    words += ["--steps", str(settings.steps), "--seed", str(settings.seed), "--batch-size", str(settings.batch_size)]
    words += ["--warmup", str(settings.warmup), "--lr-factor", repr(settings.lr_factor)]
    words += ["--label-smoothing", repr(settings.label_smoothing), "--eval-every", str(settings.eval_every)]
    words += ["--eval-n", str(settings.eval_n), "--target-exact", repr(settings.target_exact)]
    if settings.init_from is not None:
        words += ["--init-from", settings.init_from]
    if settings.bf16:
        words += ["--bf16"]
    elif settings.task in RECIPES and RECIPES[settings.task].train.get("bf16"):
        words += ["--no-bf16"]  # the recipe computes in bfloat16; this run did not
    if settings.device != "cpu":
        words += ["--device", settings.device]
    for key, value in sorted(settings.task_options.items()):
        words += ["--task-option", f"{key}={value if isinstance(value, str) else json.dumps(value)}"]
    for key, value in sorted(settings.config.items()):
        words += ["--config", f"{key}={value if isinstance(value, str) else json.dumps(value)}"]
    return shlex.join(words)


def write_model(result: TrainResult, task: Any, out: str, command: str) -> tuple[dict[str, Any], EvalResult]:
    """Evaluate the trained model, write its checkpoint and card to `out`; return the card."""
    bundle, settings = result.bundle, result.settings
    metrics = heldout_metrics(bundle, task, FINAL_EVAL_N)
    summary, summary_zh, _ = SUMMARIES.get(settings.task, (f"Trained on {settings.task}.", f"在 {settings.task} 上训练。", ""))
    card = {
        "task": settings.task,
        "summary": summary,
        "summary_zh": summary_zh,
        "parameters": bundle.model.num_parameters(),
        "metrics": metrics.as_metrics(),
        "attention": {},
        "training_seconds": round(result.training_seconds, 1),
        "steps": result.steps,
        "stop_reason": result.stop_reason,
        "final_loss": round(sum(result.losses[-50:]) / max(len(result.losses[-50:]), 1), 4),
        "seed": settings.seed,
        "command": command,
        "data": _task_data(task),
        "training": {k: v for k, v in settings.to_dict().items() if k != "config"},
        "example": _example_text(task, settings.task),
        **{k: v for k, v in bundle.card.items() if k == "prompt"},  # a decoder-only model's prompt format
    }
    if hasattr(task, "references"):  # a corpus task: BLEU and chrF, and cross-attention against a dictionary
        from transformer.probes.corpus import corpus_report, probe_dictionary_alignment

        card["attention"], extra_metrics = corpus_report(bundle, task)
        card["attention"]["probe_alignment"] = probe_dictionary_alignment(bundle, task, *probe_pair(task, card["example"]))
    else:
        card["attention"], extra_metrics = attention_report(bundle, task)
    card["metrics"].update(extra_metrics)
    if settings.task in GOLD_ALIGNMENT:
        card["attention"]["gold_alignment"] = GOLD_ALIGNMENT[settings.task]
    if isinstance(getattr(task, "max_len", None), int):
        card["trained_max_len"] = task.max_len  # the longest input trained on; the app warns past it
    bundle = ModelBundle(bundle.model, bundle.target_tokenizer, bundle.source_tokenizer, card, Path(out).name)
    save_checkpoint(bundle, out, card_md=card_markdown(card, bundle))
    return card, metrics


def attention_report(bundle: ModelBundle, task: Any) -> tuple[dict[str, Any], dict[str, float]]:
    """The card's attention facts and any task-specific metrics.

    Translation: the head whose arg-max best matches the task's alignment (cross-attention, or for a
    decoder-only model self-attention from the completion to the prompt), on held-out reordered
    sentences. Induction: the previous-token and induction heads and the loss on each half.
    """
    if task.name == "induction":
        from transformer.probes.induction_probe import induction_report

        return induction_report(bundle)
    heldout = task.examples(ALIGNMENT_N, split="heldout", seed=7)
    reordered = [e for e in heldout if is_reordered(e)] or heldout
    head, score = best_head(cross_attention_alignment(bundle, reordered))
    key = "best_cross_attention_head" if bundle.config.is_encoder_decoder else "best_prompt_attention_head"
    return {key: head, "alignment_argmax_match": round(score, 4), "n_examples": len(reordered)}, {}


def attention_line(card: dict[str, Any]) -> str:
    """The card's one-sentence attention finding."""
    att, m = card["attention"], card["metrics"]
    if "induction_head" in att:
        return (
            f"`{att['previous_token_head']}` is a previous-token head (score {att['previous_token_score']:.3f}) and "
            f"`{att['induction_head']}` an induction head: on {att['n_sequences']} held-out repeated sequences it puts "
            f"{m['induction_score']:.3f} of its weight on the token after the current token's previous occurrence. "
            f"Loss (nats/token): first half {m['loss_first_half']:.3f}, repeated half {m['loss_repeated_half']:.3f}."
        )
    head = att.get("best_cross_attention_head") or att.get("best_prompt_attention_head")
    where = "source position" if "best_cross_attention_head" in att else "prompt position (read through self-attention)"
    if "n_tokens" in att:  # a corpus translator, measured against a dictionary
        return (
            f"in `{head}` the arg-max {where} is a dictionary translation (CC-CEDICT, MDBG, CC BY-SA 4.0) "
            "of the token being written "
            f"for {100 * att['alignment_argmax_match']:.1f} % of the {att['n_tokens']:,} written tokens that have one in "
            f"their source ({att['n_examples']} held-out pairs, teacher-forced on the reference). The heads page opens on it."
        )
    return (
        f"in `{head}` the arg-max {where} matches the task's alignment for "
        f"{100 * att['alignment_argmax_match']:.1f} % of aligned output tokens ({att['n_examples']} held-out examples"
        f"{' with reordering' if card['task'].startswith(('translate', 'gpt-translate')) else ''})."
    )


def prompt_line(card: dict[str, Any]) -> str:
    """A decoder-only card's line on how the model reads its task ("" for encoder-decoder cards)."""
    if "prompt" not in card:
        return ""
    fmt = card["prompt"]
    suffix = " ".join(fmt["suffix"])
    layout = f"`<bos> prompt {suffix} completion{' <eos>' if fmt['end_with_eos'] else ''}`".replace("  ", " ")
    loss = "every token (a plain language model)" if fmt["loss_on_prompt"] else "the completion only (the prompt is given)"
    typed = f"; the app appends `{suffix}` to the text it is given" if suffix else ""
    return f"- **Decoder-only:** one sequence {layout}, trained with the loss on {loss}{typed}.\n"


def quality_line(card: dict[str, Any]) -> str:
    """A corpus translator's BLEU and chrF (sacrebleu) and its data's licences; empty for the generated tasks."""
    m = card["metrics"]
    if "heldout_bleu" not in m:
        return ""
    tokenize = "zh" if card["task"].endswith("-zh") else "13a"
    return (
        f"\n- **Translation quality** (`sacrebleu` 2.6.0, greedy decoding, all {m['n_bleu']:,} held-out source sentences): "
        f"BLEU {m['heldout_bleu']:.1f} and chrF {m['heldout_chrf']:.1f} against the first reference (tokenize={tokenize!r}); "
        f"BLEU {m['heldout_bleu_all_references']:.1f} against all {m['n_references']:,} references. "
        "Exact match is low by nature: a sentence has many right translations. What limits it: a small model "
        "(see the config) trained on one corpus of about 57,000 short everyday pairs, so words and "
        "constructions rare in Tatoeba (technical terms, names, long sentences) come out worse."
        f"\n- **Data:** {card['data'].get('attribution', '')}"
    )


def task_line(card: dict[str, Any], data: str) -> str:
    """Where the card's examples come from: a generated task's sampler, or a corpus file and its split."""
    if "corpus" in card["data"]:
        return (
            f"- **Task:** `{card['task']}` — real sentence pairs read by `transformer.tasks.get_task({card['task']!r})` "
            f"({data}).\n  Training pairs are drawn at random from the training split; a held-out pair's source and "
            "target never occur in training."
        )
    return (
        f"- **Task:** `{card['task']}` — data generator `transformer.tasks.get_task({card['task']!r})` ({data}).\n"
        "  Training examples are drawn on the fly from the training split; the held-out split (about 5 % of all\n"
        "  sources, chosen by a hash of the source text) is never seen in training."
    )


def card_markdown(card: dict[str, Any], bundle: ModelBundle) -> str:
    m, att = card["metrics"], card["attention"]
    gold = f"\n  Gold alignment: {att['gold_alignment']}." if "gold_alignment" in att else ""
    unit = "English words" if card["data"].get("direction") == "en-zh" else "characters"
    longest = (
        f"\n- **Trained length:** inputs of up to {card['trained_max_len']} {unit}; longer input is outside training."
        if "trained_max_len" in card
        else ""
    )
    config = "\n".join(f"| `{k}` | `{v}` |" for k, v in bundle.config.to_dict().items())
    data = ", ".join(f"{k}={v!r}" for k, v in card["data"].items())
    recipe = ", ".join(f"{k}={v!r}" for k, v in card["training"].items())
    return f"""# {bundle.name}

{card["summary"]}

{card["summary_zh"]}

{task_line(card, data)}
{prompt_line(card)}- **Parameters:** {card["parameters"]:,} (float32 safetensors).
- **Training:** {card["steps"]} steps ({card["stop_reason"]}) in {card["training_seconds"]:.0f} s on a shared
  2-core CPU with one thread; the paper's recipe: Adam(β1=0.9, β2=0.98, ε=1e-9), warmup then
  inverse-square-root learning rate, label smoothing. Settings: {recipe}.
- **Held-out accuracy** ({m["n_heldout"]} examples, greedy decoding): exact match {100 * m["heldout_exact_match"]:.1f} %,
  token accuracy {100 * m["heldout_token_accuracy"]:.1f} %.{quality_line(card)}
- **Attention:** {attention_line(card)}{gold}{longest}
- **Try:** `{card["example"]}`

## Config

| field | value |
|---|---|
{config}

## Regenerate

```
{card["command"]}
```
"""


class ProgressBar:
    """A one-line progress bar on stderr, redrawn with a carriage return a few times a second."""

    def __init__(self, stream: Any = None, every: float = 0.5) -> None:
        # Resolved now, not at import: a default of sys.stderr would pin whatever stream was current then.
        self.stream, self.every, self.last = stream or sys.stderr, every, 0.0

    def __call__(self, p: TrainProgress) -> None:
        now = time.monotonic()
        if now - self.last < self.every and p.step != p.total_steps:
            return
        self.last = now
        filled = int(30 * p.step / p.total_steps)
        held = f" heldout {100 * p.heldout_exact:.1f}%" if p.heldout_exact is not None else ""
        self.stream.write(
            f"\r[{'#' * filled}{'.' * (30 - filled)}] {p.step}/{p.total_steps} loss {p.loss:.3f} "
            f"acc {100 * p.token_accuracy:.1f}% lr {p.learning_rate:.2e} {p.elapsed:.0f}s{held}   "
        )
        self.stream.flush()


def cmd_train(args: argparse.Namespace) -> int:
    from transformer.tasks import get_task

    task = get_task(args.task)
    torch.set_num_threads(args.threads)
    preset = PRESETS.get(args.task, {})
    config = {**preset.get("config", {}), **config_overrides(args.config)}
    if args.norm is not None:
        config["norm_position"] = args.norm
    recipe = {k: preset[k] for k in _RECIPE_FLAGS if k in preset}
    recipe.update({k: getattr(args, k) for k in _RECIPE_FLAGS if getattr(args, k) is not None})
    task_options = config_overrides(args.task_option)
    settings = TrainSettings(
        task=args.task, config=config, seed=args.seed, task_options=task_options, device=args.device, **recipe
    )
    task = task_with_options(task, task_options)
    command = command_for(settings, args.out)
    print(f"training {args.task}: {command}", file=sys.stderr)
    bar, stop = ProgressBar(), {"asked": False}
    film = FilmRecorder(
        task, every=max(1, settings.steps // FILM_FRAMES), probe=_example_text(task, args.task), eval_every=settings.eval_every
    )
    budget = None if args.time_budget is None else 60 * args.time_budget

    def ask_to_stop(signum: int, frame: Any) -> None:
        stop["asked"] = True  # finish the current step, then evaluate and write the model

    def callback(p: TrainProgress) -> bool | None:
        bar(p)
        film(p)
        return False if stop["asked"] or (budget is not None and p.elapsed > budget) else None

    previous = {sig: signal.signal(sig, ask_to_stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        result = train(settings, callback, task=task)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    print(file=sys.stderr)
    if result.stop_reason == "stopped":
        # The schedule and data never depend on the step budget, so these settings with
        # --steps <steps taken> regenerate exactly this model.
        command = command_for(dataclasses.replace(settings, steps=result.steps), args.out)
        print(f"stopped at step {result.steps}; writing the model as it is", file=sys.stderr)
    card, metrics = write_model(result, task, args.out, command)
    film.finish()
    recorded = film.film()
    if recorded is not None:  # the training film the page plays (a few % of training per frame)
        _continued_film(recorded, settings.init_from).save(Path(args.out) / FILM)
    m = card["metrics"]
    print(f"{result.stop_reason} after {result.steps} steps in {result.training_seconds:.0f}s; {card['parameters']:,} parameters")
    exact, tokens = 100 * m["heldout_exact_match"], 100 * m["heldout_token_accuracy"]
    print(f"held-out exact match {exact:.2f}%, token accuracy {tokens:.2f}% (n={m['n_heldout']})")
    print(f"attention: {attention_line(card)}")
    for source, want, got in metrics.failures[:3]:
        print(f"  wrong: {source!r} → {got!r} (expected {want!r})")
    print(f"wrote {args.out}")
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    from transformer.tasks import get_task

    torch.set_num_threads(args.threads)
    bundle = load_model(args.model)
    task_name = args.task or bundle.card.get("task")
    if not task_name:
        raise ValueError(f"{args.model} has no task in its card.json; pass --task")
    task = get_task(task_name)
    start = time.perf_counter()
    result = heldout_metrics(bundle, task, args.n, args.seed)
    print(
        f"{bundle.name} on {task_name} held-out (n={result.n}, seed={args.seed}): "
        f"exact match {100 * result.exact_match:.2f}%, token accuracy {100 * result.token_accuracy:.2f}% "
        f"({time.perf_counter() - start:.1f}s)"
    )
    for source, want, got in result.failures[:5]:
        print(f"  wrong: {source!r} → {got!r} (expected {want!r})")
    return 0


def add_commands(sub: Any) -> None:
    """Register `train` and `eval` on the `python -m transformer` sub-parsers."""
    t = sub.add_parser("train", help="train a model on a toy task and write a checkpoint folder")
    t.add_argument("--task", required=True, help=f"one of {', '.join(PRESETS)}")
    t.add_argument("--out", required=True, help="checkpoint folder to write, e.g. assets/models/reverse")
    t.add_argument("--steps", type=int, default=None, help="maximum steps (default: the task's preset)")
    t.add_argument("--config", action="append", default=[], metavar="KEY=VALUE", help="a TransformerConfig field, repeatable")
    t.add_argument("--norm", choices=("post", "pre"), default=None, help="shortcut for --config norm_position=...")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--batch-size", type=int, default=None)
    t.add_argument("--warmup", type=int, default=None)
    t.add_argument("--lr-factor", type=float, default=None)
    t.add_argument("--label-smoothing", type=float, default=None)
    t.add_argument("--eval-every", type=int, default=None, help="steps between held-out checks (0: never)")
    t.add_argument("--eval-n", type=int, default=None, help="held-out examples per check")
    t.add_argument("--target-exact", type=float, default=None, help="stop once a check reaches this exact-match")
    t.add_argument("--init-from", default=None, help="continue from this checkpoint folder's weights (same config)")
    t.add_argument(
        "--bf16",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="bfloat16 autocast for the forward pass (faster on CPUs with AVX-512 BF16 and on GPUs; --no-bf16: "
        "float32, on CPUs without it; default: the task's recipe)",
    )
    t.add_argument(
        "--task-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="change a task field for this run, e.g. max_len=12 for a short first stage (repeatable)",
    )
    t.add_argument("--threads", type=int, default=1, help="torch threads (default 1: the machine is shared)")
    t.add_argument("--device", default="cpu", help="where the steps run: cpu (default) or cuda (a GPU machine)")
    t.add_argument(
        "--time-budget",
        type=float,
        default=None,
        metavar="MINUTES",
        help="stop after this many minutes and write the model (Ctrl-C or SIGTERM does the same)",
    )
    t.set_defaults(func=cmd_train)

    e = sub.add_parser("eval", help="held-out exact-match and token accuracy of a model")
    e.add_argument("--model", required=True, help="a shipped model's name or a checkpoint folder")
    e.add_argument("--n", type=int, default=500, help="held-out examples")
    e.add_argument("--seed", type=int, default=12345, help="held-out sample seed (the card uses 12345)")
    e.add_argument("--task", default=None, help="task to evaluate on (default: the card's)")
    e.add_argument("--threads", type=int, default=1)
    e.set_defaults(func=cmd_eval)
