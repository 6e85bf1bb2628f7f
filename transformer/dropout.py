"""Dropout (paper §5.4), free when it does nothing.

At inference every dropout is the identity, but `nn.Dropout` still passes through `nn.Module.__call__` and
`F.dropout`'s checks: a decoding step of a small model calls it some 90 times, a twentieth of the step.
"""

from __future__ import annotations

from torch import Tensor, nn


class Dropout(nn.Dropout):
    """`nn.Dropout`, returning its input at once outside training (or at p = 0)."""

    def __call__(self, x: Tensor) -> Tensor:
        if not self.training or self.p == 0:
            return x
        return super().__call__(x)
