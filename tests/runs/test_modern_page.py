"""What the pages state about a Llama / Qwen model holds on its numbers: a rotary score is the same for two tokens
moved together and differs with their distance; KV groups; RMSNorm's RMS 1 and uncentred means; SwiGLU's gate."""

import numpy as np
import pytest

from runs.modern_page import kv_groups, rms_statistics, rotary, swiglu_statistics
from transformer.storage.registry import load_model

TEXT = "the cat sat on the mat 你好"


@pytest.mark.parametrize("family", ["llama", "qwen3"])
def test_a_score_depends_on_the_distance_alone(pretrained_dir, family):
    bundle = load_model(pretrained_dir / f"tiny-{family}")
    view = rotary(bundle, TEXT)
    assert view is not None and view.distance < 0 and len(view.shifts) > 10
    assert view.spread < 1e-9 and np.allclose(view.moved_scores, view.moved_scores[0])
    assert view.distance_scores.max() - view.distance_scores.min() > 1e-3  # another distance, another score
    assert np.isclose(view.distance_scores[list(view.distances).index(view.distance)], view.moved_scores[0])
    assert view.frequencies[0] == 1.0 and np.all(np.diff(view.frequencies) < 0)


def test_the_pages_numbers_for_groups_norms_and_gates(pretrained_dir):
    bundle = load_model(pretrained_dir / "tiny-qwen2")
    assert kv_groups(bundle) == [(1, [1, 2]), (2, [3, 4])]  # 4 query heads over 2 key/value heads
    rms = rms_statistics(bundle, TEXT)
    assert abs(rms.rms_out[0] - 1) < 1e-4 and abs(rms.rms_out[1] - 1) < 1e-4
    assert max(abs(rms.mean_out[0]), abs(rms.mean_out[1])) > 1e-3  # RMSNorm centres nothing
    gate = swiglu_statistics(bundle, TEXT)
    assert gate.d_ff == bundle.config.d_ff and 0 < gate.passed <= 1 and 0 < gate.negative < 1
