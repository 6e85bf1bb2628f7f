"""What a training job trains: a task, a small model and the recipe, as one frozen value; and the one-click experiments.

The page's default for each task is the command line's preset (`transformer.train_cli.PRESETS`), with the held-out
check every 250 steps (100 for `reverse`) on 100 examples, an early stop at 99 %, and for the character tasks a
36-symbol alphabet and short strings (`LESSON_ALPHABET`, `LESSON_MAX_LEN`; the time to 99 % is for
`benchmarks/training_live.py --full` to measure). An
experiment changes a few options of that default; its claimed outcome is measured by
`tests/runs/test_training_experiments.py` on a smaller config.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from transformer.schedule import noam_rate
from transformer.train import TrainSettings
from transformer.train_cli import PRESETS, SUMMARIES

TASKS = ("reverse", "copy", "translate-en-zh", "translate-en-fr", "gpt-translate-en-zh", "induction")
DECODER_ONLY_TASKS = ("gpt-translate-en-zh", "induction")  # one decoder stack (their PRESETS name the architecture)
LAYER_CHOICES = (1, 2, 3, 4)
HEAD_CHOICES = (1, 2, 4, 8)
D_MODEL_CHOICES = (16, 32, 64, 128)
MAX_STEPS = 20_000  # about 10 minutes of the default model: a lesson, not a night
FRAMES = 60  # frames of the probe's attention over a full run (one every steps / 60)


@dataclass(frozen=True)
class JobOptions:
    """The few settings a teacher may change; everything else is the task's preset."""

    task: str = "reverse"
    n_layers: int = 2
    n_heads: int = 4
    d_model: int = 64
    steps: int = 6000
    warmup: int = 400
    lr_factor: float = 1.0
    label_smoothing: float = 0.1
    norm_position: str = "pre"
    positional: str = "sinusoidal"
    causal_mask: bool = True
    probe: str = ""  # the sentence whose attention is filmed; "" → the task's example
    seed: int = 0
    batch_size: int = 64
    eval_every: int = 250
    eval_n: int = 100
    target_exact: float = 0.99
    max_len: int | None = None  # the longest training string (a char task's option); None: the task's own

    def __post_init__(self) -> None:
        if self.task not in TASKS:
            raise ValueError(f"task must be one of {', '.join(TASKS)}, got {self.task!r}")
        if not 1 <= self.steps <= MAX_STEPS:
            raise ValueError(f"steps must be from 1 to {MAX_STEPS}, got {self.steps}")

    def settings(self) -> TrainSettings:
        """The training run these options describe (raises ValueError with a clear message for a bad combination)."""
        config = {
            **PRESETS.get(self.task, {}).get("config", {}),
            "n_layers": self.n_layers,
            "n_heads": self.n_heads,
            "d_model": self.d_model,
            "d_ff": 4 * self.d_model,
            "norm_position": self.norm_position,
            "positional": self.positional,
        }
        return TrainSettings(
            task=self.task,
            steps=self.steps,
            config=config,
            seed=self.seed,
            batch_size=self.batch_size,
            warmup=self.warmup,
            lr_factor=self.lr_factor,
            label_smoothing=self.label_smoothing,
            causal_mask=self.causal_mask,
            eval_every=self.eval_every,
            eval_n=self.eval_n,
            target_exact=self.target_exact,
            task_options=self.task_options(),
        )

    def task_options(self) -> dict[str, Any]:
        """The task's fields a lesson changes (shorter strings, shorter repeats)."""
        lengths = {} if self.max_len is None else {"max_len": self.max_len}
        return {**LESSON_TASK_OPTIONS.get(self.task, {}), **lengths}

    @property
    def probe_text(self) -> str:
        """The probe sentence: the teacher's, or the task's example (short, so its attention reads at a glance)."""
        return self.probe or SUMMARIES.get(self.task, ("", "", ""))[2]

    @property
    def frame_every(self) -> int:
        return max(1, self.steps // FRAMES)

    def schedule(self, points: int = 200) -> tuple[list[int], list[float]]:
        """The learning rate over the whole run (the paper's warmup then inverse square root), at `points` steps."""
        stride = max(1, self.steps // points)
        steps = list(range(1, self.steps + 1, stride))
        return steps, [noam_rate(step, self.d_model, self.warmup, self.lr_factor) for step in steps]

    def replace(self, **changes: Any) -> JobOptions:
        return dataclasses.replace(self, **changes)


def default_options(task: str = "reverse") -> JobOptions:
    """The page's starting point for `task`: the command line's preset, sized for a lesson (`LESSON_PRESETS`)."""
    preset = {**PRESETS.get(task, {}), **LESSON_PRESETS.get(task, {})}
    config = {**PRESETS.get(task, {}).get("config", {}), **LESSON_PRESETS.get(task, {}).get("config", {})}
    return JobOptions(
        task=task,
        n_layers=config.get("n_layers", 2),
        n_heads=config.get("n_heads", 4),
        d_model=config.get("d_model", 64),
        steps=preset.get("steps", 3000),
        lr_factor=preset.get("lr_factor", 1.0),
        label_smoothing=preset.get("label_smoothing", 0.1),
        norm_position=config.get("norm_position", "post"),
        positional=config.get("positional", "sinusoidal"),
        eval_every=preset.get("eval_every", 250),
        target_exact=preset.get("target_exact", 0.99),
        max_len=LESSON_MAX_LEN.get(task),
    )


# A lesson trains the character tasks on a small alphabet (`LESSON_ALPHABET`) and short strings. The shipped `reverse`
# (up to 48 characters of a 3,600-symbol alphabet) took 46 minutes in three stages: with thousands of symbols every
# step pays for a softmax over all of them and each symbol is seen rarely. On 36 symbols and strings of up to 8 (the
# probe "hello 世界" is 8), one torch thread on the busy shared 2-core machine: a step costs half the old preset's
# (10-11.6 vs 4.6-4.8 steps/s, same minutes), some cross-attention head puts half its weight on the anti-diagonal by
# step 300 and held-out exact match reaches 96 % by step 1,200; in the page's server, watched by a browser while a
# second session used the heads page, the worker kept 9.3 steps/s (benchmarks/README.md §11).
# tests/runs/test_lesson_preset.py holds the claims to step budgets.
LESSON_MAX_LEN = {"reverse": 8, "copy": 12}
LESSON_ALPHABET = "abcdefghijklmnopqrstuvwxyz 你好世界注意力中文"
# The shipped decoder-only models trained for half an hour (gpt-translate-en-zh: 3 layers of 128; induction: halves
# of up to 24 symbols). A lesson's are smaller: two layers of 64, and for induction halves of up to 8 symbols after a
# lead-in of up to 4 (still at varying offsets, so only the textbook previous-token + induction circuit works).
# The architecture, pre-norm, shared embeddings and learned positions stay the command line's (PRESETS).
# Measured on the 2-core machine under load (one thread, these presets, batch 64): gpt-translate-en-zh reached 97 %
# held-out at step 250 and 99 % (the early stop) at step 500, in 140 s; induction 80 % at step 500, 98 % at 1,500
# (191 s).
LESSON_PRESETS: dict[str, dict[str, Any]] = {
    "reverse": {"steps": 2500, "eval_every": 100},  # a held-out check every 100 steps: the early stop comes sooner
    "gpt-translate-en-zh": {"steps": 2000, "config": {"n_layers": 2, "d_model": 64}},
    "induction": {"steps": 1500},
}
LESSON_TASK_OPTIONS: dict[str, dict[str, Any]] = {
    "induction": {"max_half": 8, "max_lead": 4},
    "reverse": {"alphabet": LESSON_ALPHABET},
    "copy": {"alphabet": LESSON_ALPHABET},
}


# One-click experiments: option changes on top of the task's default (the explanations are in the i18n catalogs,
# training.experiment_<name>_text). Each pair (with / without) is a controlled comparison: one option differs.
# The outcome each explanation claims is measured by tests/runs/test_training_experiments.py, which applies the
# VARIABLES of each experiment to a small config (2 layers, d_model 32, 300 steps on 5-character strings).
VARIABLES = ("causal_mask", "positional", "norm_position", "label_smoothing")
EXPERIMENTS: dict[str, dict[str, Any]] = {
    "default": {},
    # Each decoder position may read the next input token, which is its own answer: the loss collapses, generation fails.
    "no_causal": {"causal_mask": False, "steps": 1500, "target_exact": 2.0},
    # Attention alone sees a bag of characters: reversing needs positions.
    "no_positional": {"positional": "none", "steps": 3000, "target_exact": 2.0},
    # The paper's post-norm against pre-norm at 2.8x the default rate with a short warmup (at d_model 64 the
    # rate the tests use at d_model 32 with factor 2: the schedule scales by d_model^-0.5).
    "post_norm_fast": {"norm_position": "post", "lr_factor": 2.8, "warmup": 100, "steps": 2000, "target_exact": 2.0},
    "pre_norm_fast": {"norm_position": "pre", "lr_factor": 2.8, "warmup": 100, "steps": 2000, "target_exact": 2.0},
    # Label smoothing (paper §5.4) keeps the model from becoming certain; without it the top probability goes to ~1.
    "label_smoothing": {"label_smoothing": 0.1, "steps": 2000, "target_exact": 2.0},
    "no_label_smoothing": {"label_smoothing": 0.0, "steps": 2000, "target_exact": 2.0},
}


def experiment_options(name: str, task: str = "reverse") -> JobOptions:
    """The options of one-click experiment `name` on `task`."""
    if name not in EXPERIMENTS:
        raise ValueError(f"unknown experiment {name!r}; known: {', '.join(EXPERIMENTS)}")
    return default_options(task).replace(**EXPERIMENTS[name])
