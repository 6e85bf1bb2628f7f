"""Copying one pretrained module's weights into the project's names: the pieces every family shares.

Each function returns entries of a state dict in the project's names (`transformer.model`'s module
tree), from the pretrained module's tensors. A family's file (`gpt2.py`, `bert.py`, `marian.py`)
says which pretrained module goes where; these say how.
"""

from __future__ import annotations

from torch import Tensor, nn

from hook_names import norm_module
from transformer.hf.errors import UnsupportedModel

# The pretrained config's activation names → the project's (`transformer.feedforward.ACTIVATIONS`).
ACTIVATION_NAMES = {
    "relu": "relu",
    "gelu": "gelu",
    "gelu_new": "gelu_new",
    "gelu_pytorch_tanh": "gelu_new",
    "silu": "silu",
    "swish": "silu",
}

State = dict[str, Tensor]


def activation(name: str) -> str:
    if name not in ACTIVATION_NAMES:
        raise UnsupportedModel(f"activation {name!r} is not one the app converts ({', '.join(sorted(ACTIVATION_NAMES))})")
    return ACTIVATION_NAMES[name]


def linear(prefix: str, module: nn.Linear) -> State:
    """An nn.Linear as it is: weight (out, in) and bias."""
    out = {f"{prefix}.weight": module.weight.detach()}
    if module.bias is not None:
        out[f"{prefix}.bias"] = module.bias.detach()
    return out


def conv1d(prefix: str, weight: Tensor, bias: Tensor) -> State:
    """GPT-2's Conv1D stores (in, out): transposed into an nn.Linear's (out, in)."""
    return {f"{prefix}.weight": weight.detach().t(), f"{prefix}.bias": bias.detach()}


def layer_norm(prefix: str, module: nn.LayerNorm) -> State:
    """torch's LayerNorm weight/bias → the project's gain/bias."""
    return {f"{prefix}.gain": module.weight.detach(), f"{prefix}.bias": module.bias.detach()}


def sublayer_norm(stack: str, layer: int, sublayer: int, module: nn.LayerNorm) -> State:
    return layer_norm(norm_module(stack, layer, sublayer), module)


def attention(prefix: str, q: nn.Linear, k: nn.Linear, v: nn.Linear, o: nn.Linear) -> State:
    """Four separate projections (BERT, Marian) → w_q, w_k, w_v, w_o."""
    return {
        **linear(f"{prefix}.w_q", q),
        **linear(f"{prefix}.w_k", k),
        **linear(f"{prefix}.w_v", v),
        **linear(f"{prefix}.w_o", o),
    }


def feed_forward(prefix: str, inner: nn.Linear, outer: nn.Linear) -> State:
    return {**linear(f"{prefix}.w_1", inner), **linear(f"{prefix}.w_2", outer)}


def same_matrix(*tensors: Tensor) -> bool:
    """Whether the pretrained model ties these weights (one storage): then the project shares them too."""
    return len({t.data_ptr() for t in tensors}) == 1


def require(condition: bool, why: str) -> None:
    if not condition:
        raise UnsupportedModel(why)
