"""Each one-click experiment's claimed outcome (its explanation in assets/i18n/*/training.json), measured.

A small config (2 layers, d_model 32, 300 steps, reverse on 5-character ASCII strings, seeded) trained with the
experiment's VARIABLES; about 6 s of CPU per run, five distinct runs, each trained once (cached).
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

import pytest
import torch

from runs.training.options import EXPERIMENTS, VARIABLES, JobOptions
from transformer.evaluate import evaluate, make_batch
from transformer.tasks import ReverseTask
from transformer.tokenizer import PAD_ID
from transformer.train import TrainProgress, train

pytestmark = pytest.mark.slow

TASK = ReverseTask(min_len=5, max_len=5, chinese_heavy_fraction=0.0)  # a bag of 5 characters has 120 orders
SMALL = JobOptions(task="reverse", n_layers=2, n_heads=2, d_model=32, steps=300, warmup=100, lr_factor=1.0, batch_size=32,
                   norm_position="pre", eval_every=0, target_exact=2.0)
HELDOUT = TASK.examples(100, split="heldout", seed=1)


@dataclass(frozen=True)
class Outcome:
    loss: float  # mean training loss of the last 20 steps
    batch_accuracy: float  # mean teacher-forced token accuracy of the last 20 training batches (under training's mask)
    exact: float  # held-out exact match, generating with the causal mask
    sure: float  # share of right held-out predictions (teacher-forced) made with probability above 0.95


def outcome(experiment: str) -> Outcome:
    """The small run with `experiment`'s variables (d_ff 64: the runs these thresholds were set on)."""
    options = SMALL.replace(**{k: v for k, v in EXPERIMENTS[experiment].items() if k in VARIABLES})
    return _train(options)


@functools.cache
def _train(options: JobOptions) -> Outcome:
    settings = options.settings()
    settings = dataclasses.replace(settings, config={**settings.config, "d_ff": 64})
    seen: list[TrainProgress] = []
    result = train(settings, seen.append, task=TASK)
    bundle = result.bundle
    batch = make_batch(bundle, HELDOUT)
    with torch.no_grad():
        probs = bundle.model(batch.src, batch.tgt_in).softmax(-1)  # (B, Tt, V)
    top, predicted = probs.max(-1)
    right = (predicted == batch.tgt_out) & (batch.tgt_out != PAD_ID)
    return Outcome(sum(result.losses[-20:]) / 20, sum(p.token_accuracy for p in seen[-20:]) / 20,
                   evaluate(bundle, HELDOUT).exact_match, float((top[right] > 0.95).float().mean()))


def test_the_small_default_learns_reverse():
    assert outcome("default").exact >= 0.3


def test_without_the_causal_mask_training_looks_solved_but_generation_fails():
    lifted, default = outcome("no_causal"), outcome("default")
    assert lifted.batch_accuracy > max(0.9, default.batch_accuracy)  # each position read its own answer
    assert lifted.loss < default.loss - 0.3
    assert lifted.exact <= 0.02 < default.exact  # ...which does not exist yet when generating


def test_without_positional_encoding_reverse_stays_near_chance():
    assert outcome("no_positional").exact <= 0.02  # chance is 1/120 for a bag of 5 distinct characters
    assert outcome("default").exact >= 0.3  # the same run with sinusoids


def test_post_norm_stays_on_the_plateau_longer_than_pre_norm():
    post, pre = outcome("post_norm_fast"), outcome("pre_norm_fast")
    assert post.loss > pre.loss + 1.0
    assert post.exact < pre.exact


def test_label_smoothing_keeps_the_model_unsure():
    smoothed, plain = outcome("label_smoothing"), outcome("no_label_smoothing")
    assert smoothed.sure <= 0.05  # its best possible top probability is 0.9
    assert plain.sure >= 0.3
