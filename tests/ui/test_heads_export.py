"""The heads page's .npz export, opened as a user would (issue 10 §1): it keeps the raw token lists (what each
position reads) and adds what each decoder row writes (`next_tokens`), next to the captured patterns."""

from __future__ import annotations

import io

import numpy as np
import pytest
from streamlit.runtime.media_file_manager import MediaFileManager

from hook_names import act_name
from runs.model_ref import ModelRef, load_bundle
from runs.text_run import run_text
from tests.ui.conftest import open_page

TEXT = "i read a book in the library today"


@pytest.fixture
def deferred(monkeypatch) -> dict:
    """file id → the callable a download button runs when clicked (recorded as Streamlit registers it)."""
    seen: dict = {}
    register = MediaFileManager.add_deferred

    def recording(self, data_callable, *args, **kwargs):
        file_id = register(self, data_callable, *args, **kwargs)
        seen[file_id] = data_callable
        return file_id

    monkeypatch.setattr(MediaFileManager, "add_deferred", recording)
    return seen


@pytest.mark.parametrize("model", ["translate-en-zh", "gpt-translate-en-zh"])
def test_the_npz_keeps_raw_tokens_and_adds_what_decoder_rows_write(deferred, model):
    at = open_page("heads", model=model, text=TEXT, lang="en")
    (button,) = [b for b in at.get("download_button") if b.proto.id.endswith("-heads_npz")]
    data = deferred[button.proto.deferred_file_id]()  # what clicking the button downloads
    expected = run_text(load_bundle(ModelRef.parse(model)), TEXT)
    with np.load(io.BytesIO(data), allow_pickle=False) as saved:
        tgt, written = saved["tgt_tokens"].tolist(), saved["next_tokens"].tolist()
        assert tgt == list(expected.tgt_tokens) and tgt[0] == "<bos>"  # raw: what each decoder position reads
        assert written == list(expected.next_tokens) and len(written) == len(tgt)
        first = len(tgt) - len(expected.output_tokens) - 1  # the row that writes the first output token
        assert written[first:-1] == tgt[first + 1 :]  # from there on, row i writes what position i + 1 reads
        assert written[first:] == [*expected.output_tokens, "<eos>"]  # (a decoder-only prompt's rows: its guesses)
        assert saved["src_tokens"].tolist() == list(expected.src_tokens) and str(saved["text"]) == TEXT
        assert str(saved["precision"]) == "float32"  # the run's arithmetic (a large model's long text: bfloat16)
        pattern = saved[act_name("decoder", 0, "pattern")]  # (B, H, Tq, Tk)
        assert pattern.shape[-2] == len(tgt)
        np.testing.assert_allclose(pattern, expected.arrays[act_name("decoder", 0, "pattern")], atol=1e-6)
