"""The paper's learning-rate schedule (section 5.3): linear warmup, then inverse square root.

    lrate = factor · d_model^-0.5 · min(step^-0.5, step · warmup^-1.5)

The two branches meet at step = warmup, which is where the rate peaks.
"""

from __future__ import annotations

import torch


def noam_rate(step: int, d_model: int, warmup: int, factor: float = 1.0) -> float:
    """The learning rate at `step` (1-based; step 0 is treated as step 1 so the rate is never 0).

    Args:
        step: the optimizer step about to be taken, counting from 1.
        d_model: the model width (larger models take smaller steps).
        warmup: steps of linear warmup (the paper uses 4000).
        factor: an overall multiplier (the paper's formula has factor 1).
    """
    if d_model <= 0 or warmup <= 0:
        raise ValueError(f"d_model and warmup must be positive, got d_model={d_model}, warmup={warmup}")
    step = max(step, 1)
    return factor * d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)


def noam_optimizer(
    parameters, d_model: int, warmup: int, factor: float = 1.0
) -> tuple[torch.optim.Adam, torch.optim.lr_scheduler.LambdaLR]:
    """Adam with the paper's β1=0.9, β2=0.98, ε=1e-9, driven by `noam_rate`.

    Returns the optimizer and a scheduler; call `scheduler.step()` after each `optimizer.step()`.
    """
    optimizer = torch.optim.Adam(parameters, lr=1.0, betas=(0.9, 0.98), eps=1e-9)
    # LambdaLR multiplies the base lr (1.0) by the lambda of the scheduler's step count (from 0).
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda i: noam_rate(i + 1, d_model, warmup, factor))
    return optimizer, scheduler
