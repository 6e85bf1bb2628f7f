"""Direct logit attribution: each head's and each feed-forward's direct share of one token's logit.

As TransformerLens's `decompose_resid` / `logit_attrs` and the NDIF Workbench define it: the stream the output
projection reads is a sum of what each component wrote into it (the embeddings, each head's z·W^O slice, each
feed-forward's output, and constant biases). The norms between them are not linear, so their scale is *frozen from
the run*: each norm divides every component by the same standard deviation (or root mean square) the whole stream
had there in this run, after centring it (LayerNorm) or not (RMSNorm), and multiplies by its gain; its own bias joins
the constants. With the scales frozen, the components pass through every later norm and the output projection
linearly, and their shares add up to the real logit:

    logit(token) = Σ heads + Σ feed-forwards + embeddings + biases

A post-norm stack (the paper's, the shipped models) has a norm after every sublayer; a pre-norm stack (GPT-2, Llama)
only its final norm on the way out. An output head that is not linear (BERT's masked-LM transform: dense, GELU, norm)
has no such decomposition, and is refused with a message. Only the deciding stream's components are shares: what the
encoder of a translator does reaches the decoder through the cross-attention heads, whose shares include it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor, nn

from hook_names import HEAD_SEPARATOR, attn_module, hook_name, layer_module, norm_module, sublayer_module
from transformer.hooks import capture
from transformer.probes.stream import (
    ProbeRefusal,
    Reading,
    final_norm,
    output_logits,
    output_row,
    read_text,
    residual_reads,
    stream_out,
    stream_stack,
    token_id,
)
from transformer.storage.checkpoint import ModelBundle

EMBEDDINGS = "embeddings"
BIASES = "biases"


@dataclass(frozen=True)
class Attribution:
    """Every component's direct share of one logit at one output position; `shares` adds up to `logit`."""

    position: int  # from 1
    token: str
    token_id: int
    logit: float  # the model's real logit for `token` there
    shares: dict[str, float]  # component → share, in the order the model computes: embeddings, heads, FFNs, biases
    heads: dict[str, np.ndarray]  # attention module → (n_heads,) shares
    reading: Reading

    @property
    def total(self) -> float:
        return float(sum(self.shares.values()))

    def to_json(self) -> dict[str, object]:
        return {"position": self.position, "token": self.token, "logit": self.logit, "total": self.total, "shares": self.shares}


def _frozen_norm(norm: nn.Module, seen: Tensor) -> tuple[object, Tensor]:
    """A norm with its scale frozen at what it divided `seen` (d,) by: (linear map on a component, its bias).

    LayerNorm centres and divides by the standard deviation; RMSNorm (a class named so) divides by the root mean
    square. Both multiply by their gain (`gain`, or `weight` in a converted family's own class)."""
    gain = getattr(norm, "gain", None)
    gain = getattr(norm, "weight", None) if gain is None else gain
    bias = getattr(norm, "bias", None)
    eps = float(getattr(norm, "eps", getattr(norm, "variance_epsilon", 1e-5)))
    g = torch.ones_like(seen) if gain is None else gain.detach().double()
    b = torch.zeros_like(seen) if bias is None else bias.detach().double()
    centres = "rms" not in type(norm).__name__.lower()
    if centres:
        scale = torch.sqrt(seen.var(unbiased=False) + eps)
        return (lambda c: g * (c - c.mean()) / scale), b
    scale = torch.sqrt((seen * seen).mean() + eps)
    return (lambda c: g * c / scale), b


@torch.no_grad()
def attribute(
    bundle: ModelBundle, text: str, position: int = 1, token: str | None = None, reading: Reading | None = None
) -> Attribution:
    """Each component's direct share of `token`'s logit (default: the token written) at output `position` (from 1).

    Raises ProbeRefusal for a model whose output head is not linear (BERT), a position past the output or a token
    outside the vocabulary; ValueError when the shares do not add up to the logit (a norm of a kind not handled)."""
    model, config = bundle.model, bundle.config
    generator = model.get_submodule("generator")
    if getattr(generator, "transform", None) is not None:
        raise ProbeRefusal(
            "dla_transform",
            "this model's output head is not linear (a dense layer, GELU and a norm before the output projection), so "
            "its logits do not split into direct shares; the logit lens and patching still work",
        )
    reading = reading if reading is not None else read_text(bundle, text)
    row = output_row(reading, position)
    target = reading.written_ids[position - 1] if token is None else token_id(bundle, token)
    stack = stream_stack(bundle)
    reads = residual_reads(bundle)
    post = config.norm_position == "post"
    names = [reads[0][0]]
    for _, layer, sub in reads[1:]:
        assert layer is not None and sub is not None
        names.append(hook_name(sublayer_module(stack, layer, sub), "sublayer_out"))
        if post:
            names.append(hook_name(norm_module(stack, layer, sub), "in"))
    kinds = {0: "decoder" if stack == "decoder" else "encoder", 1: "cross"}
    last_sub = {layer: sub for _, layer, sub in reads[1:]}
    for _, layer, sub in reads[1:]:
        if sub != last_sub[layer]:
            names.append(hook_name(attn_module(kinds[sub], layer), "z"))  # type: ignore[arg-type,index]
    fnorm = final_norm(bundle)
    if fnorm is not None:
        names.append(hook_name(norm_module(stack, None), "in"))
    with capture(model, names) as cache:
        x = stream_out(bundle, reading.src, reading.tgt)  # (1, T, d): what the generator reads
    logit = float(output_logits(bundle, x)[0, row, target])

    def at(name: str) -> Tensor:
        return cache[name][0, ..., row, :].double() if cache[name].dim() == 3 else cache[name][0, :, row].double()

    parts: dict[str, Tensor] = {EMBEDDINGS: at(reads[0][0])}
    parts[BIASES] = torch.zeros_like(parts[EMBEDDINGS])
    heads: dict[str, list[str]] = {}
    for _, layer, sub in reads[1:]:
        assert layer is not None and sub is not None
        out = at(hook_name(sublayer_module(stack, layer, sub), "sublayer_out"))
        if sub == last_sub[layer]:
            parts[layer_module(stack, layer, "feed_forward")] = out
        else:
            module = attn_module(kinds[sub], layer)
            written = _head_parts(model.get_submodule(module), cache[hook_name(module, "z")][0, :, row].double(), out)
            if written is None:  # no W^O to split by: the whole sublayer is one share
                parts[module] = out
            else:
                per_head, bias = written
                heads[module] = [f"{module}{HEAD_SEPARATOR}{h}" for h in range(len(per_head))]
                parts.update(dict(zip(heads[module], per_head, strict=True)))
                parts[BIASES] = parts[BIASES] + bias
        if post:
            norm = model.get_submodule(norm_module(stack, layer, sub))
            linear, bias = _frozen_norm(norm, at(hook_name(norm_module(stack, layer, sub), "in")))
            parts = {k: linear(v) for k, v in parts.items()}  # type: ignore[operator]
            parts[BIASES] = parts[BIASES] + bias
    if fnorm is not None:
        linear, bias = _frozen_norm(fnorm, at(hook_name(norm_module(stack, None), "in")))
        parts = {k: linear(v) for k, v in parts.items()}  # type: ignore[operator]
        parts[BIASES] = parts[BIASES] + bias
    proj = generator.proj
    w = proj.weight[target].double()  # (d,)
    shares = {k: float(v @ w) for k, v in parts.items()}
    if proj.bias is not None:
        shares[BIASES] += float(proj.bias[target])
    shares[BIASES] = shares.pop(BIASES)  # last, after every component
    total = sum(shares.values())
    if abs(total - logit) > 1e-3 * max(1.0, abs(logit)):
        raise ValueError(f"the shares add up to {total:.5f}, not the logit {logit:.5f}: a norm this probe does not know")
    symbols = bundle.target_tokenizer.symbols([target])
    head_arrays = {m: np.array([shares[n] for n in ns]) for m, ns in heads.items()}
    return Attribution(position, symbols[0], target, logit, shares, head_arrays, reading)


def _head_parts(attention: nn.Module, z: Tensor, out: Tensor) -> tuple[list[Tensor], Tensor] | None:
    """What each head wrote (z_h · W^O_h) and W^O's bias, from z (H, d_k); None where the module has no `w_o` or
    the heads' parts do not add up to the sublayer's output `out` (d,) (a module that does more than W^O)."""
    w_o = getattr(attention, "w_o", None)
    if not isinstance(w_o, nn.Linear):
        return None
    n_heads, d_k = z.shape
    weight = w_o.weight.double().view(-1, n_heads, d_k)  # (d, H, d_k)
    per_head = [weight[:, h] @ z[h] for h in range(n_heads)]  # each (d,)
    bias = w_o.bias.double() if w_o.bias is not None else torch.zeros_like(out)
    if not torch.allclose(sum(per_head) + bias, out, atol=1e-4, rtol=1e-4):
        return None
    return per_head, bias


__all__ = ["BIASES", "EMBEDDINGS", "Attribution", "attribute"]
