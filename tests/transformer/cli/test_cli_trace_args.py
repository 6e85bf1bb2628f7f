"""`trace`'s arguments (issue 14): every bad --text, --out or --seed is one clear line and exit 2.

The rule for --out: it must end in .npz (numpy would otherwise append .npz and write a file other
than the one named), must not be a folder, and its folder must be creatable and writable. These
are checked before the model runs, so nothing is computed or written for a bad path.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from transformer.cli import main

RANDOM_SMALL = ["--model", "random", "--config", "n_layers=1", "--config", "d_model=16"]


def _refused(capsys: pytest.CaptureFixture[str], args: list[str], *fragments: str) -> str:
    assert main(["trace", *RANDOM_SMALL, *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    for fragment in fragments:
        assert fragment in err, err
    return err


def _files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.parametrize("text", ["", " ", "\t\n  "])
def test_empty_or_blank_text_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str) -> None:
    _refused(capsys, ["--text", text, "--out", str(tmp_path / "t.npz")], "--text is empty")
    assert _files(tmp_path) == []


def test_out_without_npz_suffix_is_refused_and_nothing_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _refused(capsys, ["--text", "hi", "--out", str(tmp_path / "noext")], "must end in .npz", "noext.npz")
    assert _files(tmp_path) == []


def test_out_empty_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _refused(capsys, ["--text", "hi", "--out", ""], "--out is empty")
    _refused(capsys, ["--text", "hi", "--out", ".npz"], "needs a file name")
    assert _files(tmp_path) == []  # no hidden "..npz" or ".npz"


def test_out_existing_folder_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "existing").mkdir()
    _refused(capsys, ["--text", "hi", "--out", str(tmp_path / "existing")], "must end in .npz")
    (tmp_path / "folder.npz").mkdir()
    _refused(capsys, ["--text", "hi", "--out", str(tmp_path / "folder.npz")], "is a folder")
    assert _files(tmp_path) == ["existing", "folder.npz"]


def test_out_under_a_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "plain").write_text("x")
    _refused(capsys, ["--text", "hi", "--out", str(tmp_path / "plain" / "sub" / "t.npz")], "is a file, not a folder")


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into a read-only-mode folder")
def test_out_in_a_read_only_folder_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    try:
        _refused(capsys, ["--text", "hi", "--out", str(locked / "t.npz")], "not writable")
    finally:
        locked.chmod(0o700)


@pytest.mark.skipif(not Path("/sys").is_dir(), reason="needs /sys, which no one (not even root) can create files in")
def test_out_in_an_unwritable_system_folder_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    _refused(capsys, ["--text", "hi", "--out", "/sys/attention-atlas-trace.npz"], "/sys")


def test_good_out_is_written_and_reported_truthfully(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "new" / "t.npz"
    assert main(["trace", *RANDOM_SMALL, "--text", "hi", "--out", str(out)]) == 0
    assert out.is_file() and f"to {out}\n" in capsys.readouterr().out


@pytest.mark.parametrize("seed", [str(2**64), str(10**30), "-1"])
def test_seed_out_of_range_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], seed: str) -> None:
    err = _refused(capsys, ["--text", "hi", "--out", str(tmp_path / "t.npz"), "--seed", seed], "seed must be an integer from 0")
    assert "Overflow" not in err


def test_largest_seed_works(tmp_path: Path) -> None:
    assert main(["trace", *RANDOM_SMALL, "--text", "hi", "--out", str(tmp_path / "t.npz"), "--seed", str(2**64 - 1)]) == 0


def test_oversized_random_config_fails_fast(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    start = time.perf_counter()
    args = ["trace", "--model", "random", "--config", "n_layers=100000", "--text", "hi", "--out", str(tmp_path / "t.npz")]
    assert main(args) == 2
    assert time.perf_counter() - start < 0.5
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "n_layers=100000" in err and "limit of 24" in err


def test_train_refuses_an_oversized_seed_clearly() -> None:
    from transformer.training.train import TrainSettings, train

    with pytest.raises(ValueError, match="seed must be an integer from 0"):
        train(TrainSettings(task="reverse", steps=1, seed=2**64))
