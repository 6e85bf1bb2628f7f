"""The command line: `python -m transformer trace|models`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from hook_names import act_name
from transformer.cli import main
from transformer.config import TransformerConfig
from transformer.engine.decoding import trace_text
from transformer.storage.registry import random_bundle

REPO = Path(__file__).resolve().parents[3]
TEXT = "Hi 你好 <b>x</b>"


@pytest.fixture(scope="module")
def traced(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("cli") / "sub" / "trace.npz"
    args = ["trace", "--model", "random", "--config", "n_layers=2", "--config", "d_model=32", "--text", TEXT, "--out", str(out)]
    assert main(args) == 0
    with np.load(out, allow_pickle=False) as npz:
        arrays = {k: npz[k] for k in npz.files}
    return arrays


def test_trace_writes_every_pattern(traced: dict[str, np.ndarray]) -> None:
    src, tgt = traced["tokens.src"], traced["tokens.tgt"]
    ts, tt = len(src), len(tgt)
    h = TransformerConfig().n_heads
    expected = {
        **{act_name("encoder", i, "pattern"): (1, h, ts, ts) for i in range(2)},
        **{act_name("decoder", i, "pattern"): (1, h, tt, tt) for i in range(2)},
        **{act_name("cross", i, "pattern"): (1, h, tt, ts) for i in range(2)},
    }
    assert sorted(k for k in traced if k.endswith("hook_pattern")) == sorted(expected)
    for name, shape in expected.items():
        pattern = traced[name]
        assert pattern.shape == shape and pattern.dtype == np.float32, name
        assert np.allclose(pattern.sum(-1), 1.0, atol=1e-5)
    assert traced["encoder.layers.0.self_attn.hook_mask"].dtype == np.bool_
    assert traced["generator.hook_logits"].shape[:2] == (1, tt)


def test_trace_tokens_and_output_match_a_direct_trace(traced: dict[str, np.ndarray]) -> None:
    bundle = random_bundle(TransformerConfig(n_layers=2, d_model=32), seed=0)
    trace = trace_text(bundle, TEXT)
    assert traced["tokens.src"].dtype.kind == "U" and traced["tokens.tgt"].dtype.kind == "U"
    assert traced["tokens.src"].tolist() == trace.src_tokens
    assert traced["tokens.tgt"].tolist() == trace.tgt_tokens
    assert traced["tokens.next"].tolist() == trace.next_tokens  # what each decoder row writes
    assert trace.src_tokens[-1] == "<eos>" and trace.tgt_tokens[0] == "<bos>"
    assert "".join(trace.src_tokens[:-1]).replace("<unk>", "?") == "".join("?" if c in trace.unknown else c for c in TEXT)
    assert traced["output"].shape == () and str(traced["output"]) == trace.output_text
    assert str(traced["text"]) == TEXT
    name = "decoder.layers.1.cross_attn.hook_pattern"
    assert np.array_equal(traced[name], trace.cache[name].numpy())


@pytest.mark.slow
def test_help_runs_as_a_module() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "transformer", "--help"], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert "trace" in result.stdout and "models" in result.stdout


def test_models_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["models"]) == 0
    assert capsys.readouterr().out.strip()


@pytest.mark.parametrize(
    "pair,message",
    [
        ("d_model=abc", "d_model"),
        ("dropout=abc", "dropout"),
        ("n_heads=5", "divisible"),
        ("n_layrs=2", "n_layrs"),
        ("norm_position=middle", "norm_position"),
        ("d_model", "KEY=VALUE"),
    ],
)
def test_bad_config_exits_2_with_a_clear_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], pair: str, message: str
) -> None:
    out = tmp_path / "t.npz"
    assert main(["trace", "--model", "random", "--config", pair, "--text", "hi", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err
    assert "Traceback" not in err
    assert not out.exists()


def test_config_with_a_shipped_model_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["trace", "--model", "no-such-model", "--config", "d_model=8", "--text", "hi", "--out", str(tmp_path / "t.npz")])
    assert code == 2
    assert "--model random" in capsys.readouterr().err


def test_unknown_model_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["trace", "--model", "no-such-model", "--text", "hi", "--out", str(tmp_path / "t.npz")]) == 2
    assert "no-such-model" in capsys.readouterr().err


def test_missing_arguments_is_a_usage_error() -> None:
    with pytest.raises(SystemExit) as info:
        main(["trace", "--model", "random"])
    assert info.value.code == 2
