"""The trainer: the paper's schedule, loss going down, the progress callback, determinism, the CLI."""

from __future__ import annotations

import io
import itertools
import json
import math

import pytest
import torch

from transformer.storage.checkpoint import load_checkpoint
from transformer.tasks import CopyTask, Example, ReverseTask
from transformer.text.tokenizer import BOS_ID, EOS_ID, PAD_ID
from transformer.training.evaluate import alignment_sets, evaluate, is_reordered, make_batch
from transformer.training.schedule import noam_optimizer, noam_rate
from transformer.training.train import TrainProgress, TrainSettings, build_bundle, train

TINY = {"n_layers": 1, "d_model": 32, "n_heads": 2, "d_ff": 64, "dropout": 0.0}
SHORT_COPY = CopyTask(min_len=1, max_len=6)


def tiny_settings(**changes) -> TrainSettings:
    base = {"task": "copy", "steps": 40, "config": TINY, "batch_size": 16, "warmup": 10, "eval_every": 0, "seed": 3}
    return TrainSettings(**{**base, **changes})


@pytest.fixture(autouse=True)
def one_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)  # determinism and fairness on a shared 2-core machine
    yield
    torch.set_num_threads(before)


def test_rate_follows_the_papers_formula():
    d_model, warmup = 512, 4000
    for step in (1, 10, 100, 3999, 4000, 4001, 10_000, 100_000):
        want = d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)
        assert math.isclose(noam_rate(step, d_model, warmup), want, rel_tol=1e-12)
    assert math.isclose(noam_rate(100, 64, 400, factor=2.0), 2 * noam_rate(100, 64, 400))


def test_rate_rises_linearly_peaks_at_warmup_then_decays_as_inverse_sqrt():
    d_model, warmup = 64, 400
    rates = [noam_rate(s, d_model, warmup) for s in range(1, 2001)]
    assert max(range(len(rates)), key=rates.__getitem__) + 1 == warmup
    assert math.isclose(noam_rate(200, d_model, warmup), 0.5 * noam_rate(400, d_model, warmup), rel_tol=1e-12)  # linear
    assert math.isclose(noam_rate(1600, d_model, warmup), 0.5 * noam_rate(400, d_model, warmup), rel_tol=1e-12)  # 1/sqrt
    assert all(a < b for a, b in itertools.pairwise(rates[:warmup]))
    assert all(a > b for a, b in itertools.pairwise(rates[warmup - 1 :]))


def test_optimizer_uses_the_papers_adam_and_schedule():
    params = [torch.nn.Parameter(torch.zeros(3))]
    optimizer, scheduler = noam_optimizer(params, d_model=64, warmup=10)
    group = optimizer.param_groups[0]
    assert group["betas"] == (0.9, 0.98) and group["eps"] == 1e-9
    for step in range(1, 15):
        assert math.isclose(group["lr"], noam_rate(step, 64, 10), rel_tol=1e-9)
        optimizer.step()
        scheduler.step()


def test_batches_follow_the_decoding_conventions():
    bundle = build_bundle(SHORT_COPY, tiny_settings())
    batch = make_batch(bundle, [Example("ab", "ab", (0, 1)), Example("abcd", "abcd", (0, 1, 2, 3))])
    tok = bundle.source_tokenizer
    a, b = tok.index["a"], tok.index["b"]
    assert batch.src[0].tolist() == [a, b, EOS_ID, PAD_ID, PAD_ID]
    assert batch.tgt_in[0].tolist() == [BOS_ID, a, b, PAD_ID, PAD_ID]
    assert batch.tgt_out[0].tolist() == [a, b, EOS_ID, PAD_ID, PAD_ID]
    assert batch.tgt_in.shape == batch.tgt_out.shape == (2, 5)


@pytest.mark.slow
def test_a_few_dozen_steps_lower_the_loss():
    result = train(tiny_settings(steps=60, lr_factor=2.0), task=SHORT_COPY)
    assert result.steps == 60 and result.stop_reason == "completed"
    first, last = sum(result.losses[:5]) / 5, sum(result.losses[-5:]) / 5
    assert last < first - 0.5, (first, last)
    assert not result.bundle.model.training


def test_bf16_autocast_trains_and_keeps_float32_weights():
    full = train(tiny_settings(steps=60, lr_factor=2.0), task=SHORT_COPY)
    mixed = train(tiny_settings(steps=60, lr_factor=2.0, bf16=True), task=SHORT_COPY)
    assert all(math.isfinite(loss) for loss in mixed.losses)
    assert sum(mixed.losses[-5:]) / 5 < sum(mixed.losses[:5]) / 5 - 0.5  # it learns as the float32 run does
    assert mixed.losses != full.losses  # the forward pass really ran in bfloat16
    assert {p.dtype for p in mixed.bundle.model.parameters()} == {torch.float32}


def test_callback_sees_every_step_and_false_stops_training():
    seen: list[TrainProgress] = []

    def callback(progress: TrainProgress) -> bool | None:
        seen.append(progress)
        return False if progress.step == 7 else None

    result = train(tiny_settings(steps=30), callback, task=SHORT_COPY)
    assert [p.step for p in seen] == list(range(1, 8))
    assert result.steps == 7 and result.stop_reason == "stopped" and len(result.losses) == 7
    p = seen[-1]
    assert p.total_steps == 30 and p.elapsed >= 0 and 0 <= p.token_accuracy <= 1 and math.isfinite(p.loss)
    assert math.isclose(p.learning_rate, noam_rate(7, TINY["d_model"], 10))


@pytest.mark.slow
def test_same_seed_same_losses_and_weights_different_seed_differs():
    settings = tiny_settings(steps=15, config={**TINY, "dropout": 0.1})
    one, two = train(settings, task=SHORT_COPY), train(settings, task=SHORT_COPY)
    assert one.losses == two.losses
    for (name, p), q in zip(one.bundle.model.state_dict().items(), two.bundle.model.state_dict().values(), strict=True):
        assert torch.equal(p, q), name
    other = train(tiny_settings(steps=15, seed=4, config={**TINY, "dropout": 0.1}), task=SHORT_COPY)
    assert other.losses != one.losses


def test_early_stop_when_heldout_target_reached():
    result = train(tiny_settings(steps=50, eval_every=5, eval_n=10, target_exact=0.0), task=SHORT_COPY)
    assert result.stop_reason == "target reached" and result.steps == 5 and result.checks == [(5, result.checks[0][1])]


def test_evaluate_counts_exact_matches_and_tokens():
    result = train(tiny_settings(steps=1), task=SHORT_COPY)
    examples = SHORT_COPY.examples(20, split="heldout", seed=0)
    ev = evaluate(result.bundle, examples, batch_size=7)
    assert ev.n == 20 and 0 <= ev.exact_match <= ev.token_accuracy <= 1
    assert len(ev.failures) == min(10, round(20 * (1 - ev.exact_match)))


def test_alignment_helpers():
    reverse = ReverseTask().examples(1, split="heldout", seed=0)[0]
    n = len(reverse.source)
    assert alignment_sets(reverse) == {j: {n - 1 - j} for j in range(n)}
    assert is_reordered(reverse) == (n > 1)
    assert not is_reordered(Example("a b c", "a x b c", (0, None, 1, 2)))
    assert is_reordered(Example("a b c", "a c b", (0, 2, 1)))


def test_cli_trains_writes_a_loadable_model_with_a_card_and_evaluates(tmp_path, capsys, monkeypatch):
    from transformer.cli import main
    from transformer.cli import train as cli_train

    monkeypatch.setattr(cli_train, "FINAL_EVAL_N", 20)
    monkeypatch.setattr(cli_train, "ALIGNMENT_N", 10)
    monkeypatch.setattr("sys.stderr", io.StringIO())
    out = tmp_path / "m"
    argv = ["train", "--task", "translate-en-zh", "--out", str(out), "--steps", "3", "--eval-every", "0", "--seed", "1"]
    argv += ["--config", "d_model=16", "--config", "n_layers=1", "--config", "d_ff=32", "--norm", "pre"]
    assert main(argv) == 0
    bundle = load_checkpoint(out)
    assert bundle.config.norm_position == "pre" and bundle.config.d_model == 16
    card = json.loads((out / "card.json").read_text(encoding="utf-8"))
    keys = ("task", "summary", "summary_zh", "parameters", "metrics", "training_seconds", "steps", "seed", "command", "data")
    for key in (*keys, "example"):
        assert key in card, key
    assert set(card["metrics"]) >= {"heldout_exact_match", "heldout_token_accuracy", "n_heldout"}
    assert card["parameters"] == bundle.model.num_parameters() and card["steps"] == 3
    assert "--config d_model=16" in card["command"] and "--config norm_position=" in card["command"]
    assert "held-out" in (out / "card.md").read_text(encoding="utf-8").lower()
    capsys.readouterr()
    assert main(["eval", "--model", str(out), "--n", "10"]) == 0
    assert "exact match" in capsys.readouterr().out


def test_cli_time_budget_stops_and_records_the_steps_taken(tmp_path, monkeypatch):
    from transformer.cli import main
    from transformer.cli import train as cli_train

    monkeypatch.setattr(cli_train, "FINAL_EVAL_N", 5)
    monkeypatch.setattr(cli_train, "ALIGNMENT_N", 5)
    monkeypatch.setattr("sys.stderr", io.StringIO())
    out = tmp_path / "m"
    argv = ["train", "--task", "copy", "--out", str(out), "--steps", "500", "--eval-every", "0", "--time-budget", "0"]
    assert main([*argv, "--config", "d_model=16", "--config", "n_layers=1", "--config", "d_ff=32"]) == 0
    card = json.loads((out / "card.json").read_text(encoding="utf-8"))
    assert card["steps"] == 1 and card["stop_reason"] == "stopped" and "--steps 1 " in card["command"]


@pytest.mark.slow
def test_init_from_continues_from_a_checkpoints_weights(tmp_path):
    from transformer.storage.checkpoint import save_checkpoint

    first = train(tiny_settings(steps=60, lr_factor=2.0), task=SHORT_COPY)
    save_checkpoint(first.bundle, tmp_path / "stage1")
    continued = train(tiny_settings(steps=1, lr_factor=0.01, init_from=str(tmp_path / "stage1")), task=SHORT_COPY)
    fresh = train(tiny_settings(steps=1, lr_factor=0.01), task=SHORT_COPY)
    assert continued.losses[0] < fresh.losses[0] - 0.5  # starts where stage 1 ended, not from scratch
    with pytest.raises(ValueError, match="another config"):
        train(tiny_settings(steps=1, config={**TINY, "d_ff": 32}, init_from=str(tmp_path / "stage1")), task=SHORT_COPY)


def test_init_from_grows_the_vocabulary_keeping_every_known_symbols_rows(tmp_path):
    """reverse's fourth stage: a level-1 checkpoint continues on the level-1 + level-2 alphabet. Each known symbol
    keeps its embedding and output row at its new id (the sorted alphabet moves them); only new symbols start fresh."""
    from transformer.storage.checkpoint import save_checkpoint
    from transformer.training.train import _continue_from, task_with_options

    level_one = {"hanzi_levels": 1, "chinese_punctuation": False, "unknown_share": 0}
    small = train(tiny_settings(steps=2, task_options=level_one), task=SHORT_COPY)
    save_checkpoint(small.bundle, tmp_path / "level1")
    grown = build_bundle(SHORT_COPY, tiny_settings())
    _continue_from(grown, str(tmp_path / "level1"))
    old, new = small.bundle.target_tokenizer, grown.target_tokenizer
    assert len(new) == len(old) + 3000 + 1 + 15 - 12  # level 2, 闫 and the marks; 12 common hanzi were known already
    assert old.index["鼎"] != new.index["鼎"]  # ids shift: level-2 characters sort in before it
    for name in ("src_embed.lut.weight", "tgt_embed.lut.weight", "generator.proj.weight", "generator.proj.bias"):
        before, after = small.bundle.model.state_dict()[name], grown.model.state_dict()[name]
        for symbol in ("<unk>", "<eos>", "a", "张", "涵", "鼎"):
            torch.testing.assert_close(after[new.index[symbol]], before[old.index[symbol]])
    torch.testing.assert_close(
        grown.model.state_dict()["encoder.layers.0.feed_forward.w_1.weight"],
        small.bundle.model.state_dict()["encoder.layers.0.feed_forward.w_1.weight"],
    )
    assert "梓" not in old.index and after[new.index["梓"]].abs().sum() > 0  # a new symbol keeps its fresh init
    save_checkpoint(grown, tmp_path / "grown")
    with pytest.raises(ValueError, match="another config or vocabulary"):  # a vocabulary cannot shrink
        _continue_from(build_bundle(task_with_options(SHORT_COPY, level_one), tiny_settings()), str(tmp_path / "grown"))
