"""`python -m transformer lens|patch --json`: one JSON object each, in the shapes issue 37 gives; refusals are
`error: …` with status 2, never a traceback."""

from __future__ import annotations

import json

import pytest

from hook_names import attn_module, hook_name, sublayer_module
from transformer.cli import main
from transformer.storage.registry import load_model

CLEAN, CORRUPTED = "the cat is on the mat", "the dog is on the mat"


def _json(capsys: pytest.CaptureFixture[str], args: list[str]) -> dict:
    assert main(args) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1  # one object, nothing else on stdout
    return json.loads(out[0])


def test_lens_json(capsys: pytest.CaptureFixture[str]) -> None:
    data = _json(capsys, ["lens", "--model", "en-zh", "--text", CLEAN, "--json"])
    assert data["position"] == 1 and data["token"] == "猫"
    layers = data["layers"]
    n_layers = load_model("en-zh").config.n_layers
    assert len(layers) == 1 + 3 * n_layers  # the input, then self-attention, cross-attention, feed-forward per layer
    assert layers[0]["name"] == "tgt_pos.hook_out" and layers[-1]["name"] == hook_name(
        sublayer_module("decoder", n_layers - 1, 2), "resid"
    )
    last = layers[-1]
    assert last["top"][0][0] == data["token"] and last["p_token"] == last["top"][0][1]
    assert all(isinstance(t, str) and 0 <= p <= 1 for t, p in last["top"])


def test_patch_json(capsys: pytest.CaptureFixture[str]) -> None:
    data = _json(capsys, ["patch", "--model", "en-zh", "--clean", CLEAN, "--corrupted", CORRUPTED, "--json"])
    config = load_model("en-zh").config
    assert data["position"] == 1 and data["target"] == "猫"
    assert data["clean_diff"] > data["corrupted_diff"]
    residual = data["residual"]
    assert len(residual) == config.n_layers + 1
    assert residual[-1][0] == pytest.approx(1.0, abs=1e-9)  # the output row of the final stream: all restored
    assert set(data["heads"]) == {
        attn_module(kind, i) for kind in ("encoder", "decoder", "cross") for i in range(config.n_layers)
    }
    assert all(len(v) == config.n_heads for v in data["heads"].values())


def test_patch_target_and_position(capsys: pytest.CaptureFixture[str]) -> None:
    data = _json(
        capsys,
        ["patch", "--model", "en-zh", "--clean", CLEAN, "--corrupted", CORRUPTED, "--target", "狗", "--position", "1", "--json"],
    )
    assert data["target"] == "狗" and data["position"] == 1 and data["foil"] != "狗"


@pytest.mark.parametrize(
    "args",
    [
        ["patch", "--model", "en-zh", "--clean", CLEAN, "--corrupted", "the dog is on a big mat"],
        ["patch", "--model", "en-zh", "--clean", CLEAN, "--corrupted", CLEAN],
        ["patch", "--model", "en-zh", "--clean", " ", "--corrupted", CLEAN],
        ["patch", "--model", "en-zh", "--clean", CLEAN, "--corrupted", CORRUPTED, "--target", "no-such-token-xyz"],
        ["lens", "--model", "en-zh", "--text", CLEAN, "--position", "40"],
        ["lens", "--model", "en-zh", "--text", ""],
    ],
)
def test_refusals_are_messages(capsys: pytest.CaptureFixture[str], args: list[str]) -> None:
    assert main([*args, "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("error: ") and "Traceback" not in captured.err and captured.out == ""
