"""What one call recorded at the model's hook points (`transformer.hooks.capture` fills it), and how a recorded
tensor becomes a NumPy array for viz/ and exports."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import numpy as np
import torch
from torch import Tensor


class ActivationCache(Mapping[str, Tensor]):
    """What one call recorded: hook name → tensor (detached, batch dimension kept).

    Attention-shaped entries (`hook_scores`, `hook_masked_scores`, `hook_pattern`) are
    (B, H, Tq, Tk); `hook_mask` is (B, 1, Tq, Tk) boolean; residual-stream entries are (B, T, d_model).
    """

    def __init__(self, tensors: dict[str, Tensor] | None = None) -> None:
        self._tensors: dict[str, Tensor] = {} if tensors is None else tensors  # not copied: capture fills it live

    def __getitem__(self, name: str) -> Tensor:
        try:
            return self._tensors[name]
        except KeyError:
            raise KeyError(f"{name!r} was not captured; captured: {len(self._tensors)} names") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._tensors)

    def __len__(self) -> int:
        return len(self._tensors)

    def __repr__(self) -> str:
        return f"ActivationCache({len(self)} tensors)"

    def numpy(self) -> dict[str, np.ndarray]:
        """Every tensor as a NumPy array (float tensors as float32), for viz/ and .npz export."""
        return {name: as_numpy(tensor) for name, tensor in self._tensors.items()}


def as_numpy(tensor: Tensor) -> np.ndarray:
    """A captured tensor as NumPy: float16 as it is (recorded so on purpose: `transformer.engine.records.keeping`),
    other floats as float32 (bfloat16 cannot go to NumPy at all), the rest (bool, ids) as they are."""
    t = tensor.detach().cpu()
    return (t.float() if t.is_floating_point() and t.dtype != torch.float16 else t).numpy()
