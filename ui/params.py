"""Model parameters as plain NumPy for the teaching pages (read only: the shared model is never changed)."""

from __future__ import annotations

import numpy as np

from transformer.checkpoint import ModelBundle
from transformer.hooks import as_numpy
from viz.trace import module_path


def parameter_sizes(bundle: ModelBundle) -> dict[str, int]:
    """Parameter name → number of elements, in model order."""
    return {name: p.numel() for name, p in bundle.model.named_parameters()}


def output_projection(bundle: ModelBundle, kind: str, layer: int) -> tuple[np.ndarray, np.ndarray]:
    """W^O (d_model, H·d_k) and its bias (d_model,) of one attention module, as read-only copies."""
    w_o = bundle.model.get_submodule(module_path(kind, layer)).w_o
    weight, bias = as_numpy(w_o.weight).copy(), as_numpy(w_o.bias).copy()
    weight.setflags(write=False)
    bias.setflags(write=False)
    return weight, bias
