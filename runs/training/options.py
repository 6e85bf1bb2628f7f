"""What a training job trains: a task, a small model and the recipe, as one frozen value; and the one-click experiments.

The page's default for each task is its recipe (`transformer.tasks.recipes`: the command line's preset), with the held-out
check every 250 steps (100 for `reverse`) on 100 examples, an early stop at 99 %, and for the character tasks a
36-symbol alphabet and short strings (each recipe's `lesson`; the time to 99 % is for
`benchmarks/training_live.py --full` to measure). An
experiment changes a few options of that default; its claimed outcome is measured by
`tests/runs/test_training_experiments.py` on a smaller config.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from transformer.tasks.recipes import RECIPES, is_decoder_only_recipe
from transformer.training.schedule import noam_rate
from transformer.training.train import TrainSettings

TASKS = tuple(name for name, recipe in RECIPES.items() if recipe.lesson is not None)  # the tasks a class may train
DECODER_ONLY_TASKS = tuple(name for name in TASKS if is_decoder_only_recipe(name))  # one decoder stack
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
            **RECIPES[self.task].train.get("config", {}),
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
        lesson = RECIPES[self.task].lesson
        return {**(lesson.task_options if lesson else {}), **lengths}

    @property
    def probe_text(self) -> str:
        """The probe sentence: the teacher's, or the task's example (short, so its attention reads at a glance)."""
        return self.probe or RECIPES[self.task].example

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
    """The page's starting point for `task`: the command line's preset, sized for a lesson (its recipe's `lesson`)."""
    recipe = RECIPES[task]
    lesson = recipe.lesson.preset if recipe.lesson else {}
    preset = {**recipe.train, **lesson}
    config = {**recipe.train.get("config", {}), **lesson.get("config", {})}
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
        max_len=recipe.lesson.max_len if recipe.lesson else None,
    )


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
