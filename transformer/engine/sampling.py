"""The output distribution and how a token is chosen from it: greedy, or sampled with a temperature.

At each output position the generator's logits z become probabilities p = softmax(z / T):
T = 1 is the model's own distribution, T < 1 sharpens it (T → 0 puts all mass on the arg-max,
which is greedy decoding) and T > 1 flattens it. Sampling draws from p with a `torch.Generator`
seeded from (seed, step), so a run is reproducible and a page can step through it one token at a
time, across reruns, and get exactly the tokens `generate` gets.

Works for both architectures, reading text as `decoding.trace_text` does:
  encoder-decoder: encoder <- text + <eos>;  decoder <- <bos> + generated
  decoder-only:    decoder <- <bos> + text [+ the model's prompt suffix, e.g. "="] + generated
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from transformer.engine.decoding import output_length_limit
from transformer.engine.kv_cache import start_decoding
from transformer.storage.checkpoint import ModelBundle
from transformer.text.prompt import text_rows
from transformer.text.reading import reader as text_reader
from transformer.text.tokenizer import EOS_ID

GREEDY_TEMPERATURE = 0.0
"""A temperature at or below this means greedy: all probability on the arg-max (the T → 0 limit)."""


def probabilities(logits: Tensor, temperature: float = 1.0) -> Tensor:
    """softmax(logits / temperature) over the last axis, in float64.

    temperature <= 0 returns the limit T → 0: probability 1 on the arg-max (the first one on a tie).
    Any finite T > 0 gives finite probabilities: the logits are shifted so their maximum is 0 before the
    division, so a tiny T (1e-310, 5e-324) sends the others to -inf (probability 0) instead of sending
    every logit to ±inf (inf - inf is NaN inside softmax); a huge T gives the uniform distribution.

    Shape: (..., V) → (..., V), each row summing to 1.

    Raises:
        ValueError: `temperature` is NaN or infinite.
    """
    if not math.isfinite(temperature):
        raise ValueError(f"temperature must be a finite number, got {temperature!r}")
    logits = logits.double()
    if temperature <= GREEDY_TEMPERATURE:
        return torch.nn.functional.one_hot(logits.argmax(dim=-1), logits.shape[-1]).double()
    shifted = logits - logits.amax(dim=-1, keepdim=True)  # (..., V), <= 0: z / T overflows for T near 0
    return torch.softmax(shifted / temperature, dim=-1)


def step_generator(seed: int, step: int) -> torch.Generator:
    """The random stream for output step `step` of a run seeded with `seed`: the same every time, so
    step-through generation (one rerun per token) draws what one whole `generate` call draws."""
    return torch.Generator().manual_seed((int(seed) * 1_000_003 + int(step)) % (1 << 63))


@dataclass(frozen=True)
class SamplingSettings:
    """How the next token is chosen.

    Attributes:
        greedy: always take the most probable token (ignores temperature and seed).
        temperature: T in softmax(z / T), finite; 0 is greedy, and so (within float64) is any T so small
            that every other logit's z / T underflows.
        seed: the sampling seed (a page keeps it in the URL, so a shared link replays the same run).
        top_k: sample only among the k most probable tokens (None: all).
        max_new_tokens: stop after this many tokens if <eos> has not come (None: as `trace_text`).
    """

    greedy: bool = False
    temperature: float = 1.0
    seed: int = 0
    top_k: int | None = None
    max_new_tokens: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.temperature, (int, float)) or not math.isfinite(self.temperature) or self.temperature < 0:
            raise ValueError(f"temperature must be a finite number >= 0, got {self.temperature!r}")
        if self.top_k is not None and self.top_k < 1:
            raise ValueError(f"top_k must be at least 1, got {self.top_k}")
        if self.max_new_tokens is not None and self.max_new_tokens < 0:
            raise ValueError(f"max_new_tokens must be >= 0, got {self.max_new_tokens}")

    @property
    def is_greedy(self) -> bool:
        return self.greedy or self.temperature <= GREEDY_TEMPERATURE


def choose(probs: Tensor | np.ndarray, settings: SamplingSettings, step: int) -> int:
    """The token id chosen from `probs` (V,) at output step `step`: the arg-max, or a seeded draw."""
    probs = torch.as_tensor(probs, dtype=torch.float64)
    if settings.is_greedy:
        return int(probs.argmax())
    weights = probs
    if settings.top_k is not None and settings.top_k < probs.shape[-1]:
        kept = probs.topk(settings.top_k).indices  # (k,)
        weights = torch.zeros_like(probs).index_copy_(0, kept, probs[kept])
    return int(torch.multinomial(weights, 1, generator=step_generator(settings.seed, step)))


@dataclass(frozen=True)
class Distribution:
    """The model's next-token distribution at one output position.

    Attributes:
        position: the output step (0 = the first generated token).
        probs: (V,) float64 NumPy probabilities at `temperature`, summing to 1 (NumPy, so pages need no torch).
        top_ids / top_tokens / top_probs: the k most probable tokens, most probable first; each labelled alone
            (they are alternatives, not a sequence: one's bytes never complete another's character).
        top_hex: each top token's raw bytes as hex ("e4 bd"), "" where its label is the text itself (not byte-level).
        greedy_id: the arg-max (what greedy decoding writes here).
        temperature: the temperature `probs` was computed at.
    """

    position: int
    probs: np.ndarray
    top_ids: tuple[int, ...]
    top_tokens: tuple[str, ...]
    top_probs: tuple[float, ...]
    greedy_id: int
    temperature: float
    top_hex: tuple[str, ...] = ()


@dataclass(frozen=True)
class ModelInputs:
    """What the model reads for `text` plus the tokens generated so far."""

    src: Tensor | None  # (1, Ts) or None for decoder-only
    tgt_in: Tensor  # (1, Tt) the decoder's input; its last position predicts the next token
    first_output: int  # index in tgt_in of the position that predicts output token 0
    truncated: bool


def model_inputs(bundle: ModelBundle, text: str, generated: Sequence[int] = ()) -> ModelInputs:
    """The model's input tensors for `text` with `generated` output ids already written (as `trace_text`)."""
    config = bundle.config
    rows = text_rows(bundle, text)
    src = None if rows.src is None else torch.tensor([rows.src])  # (1, Ts)
    prefix = rows.prefix
    room = config.max_len - len(prefix)
    if len(generated) > room:
        raise ValueError(f"the model reads at most {config.max_len} tokens; {len(generated)} generated do not fit")
    tgt_in = torch.tensor([[*prefix, *generated]])  # (1, Tt)
    return ModelInputs(src, tgt_in, len(prefix) - 1, rows.text.truncated)


@torch.no_grad()
def distributions(
    bundle: ModelBundle, text: str, generated: Sequence[int] = (), *, temperature: float = 1.0, k: int = 10
) -> list[Distribution]:
    """The next-token distribution at every output position, in one teacher-forced pass.

    Returns len(generated) + 1 distributions: entry i is what the model predicted for output token i
    given the tokens before it; the last one is the distribution of the token to write next.
    """
    inputs = model_inputs(bundle, text, generated)
    logits = bundle.model(inputs.src, inputs.tgt_in)[0, inputs.first_output :]  # (n + 1, V)
    return distributions_of(bundle, logits, temperature=temperature, k=k)


def distributions_of(
    bundle: ModelBundle, logits: Tensor, *, first: int = 0, temperature: float = 1.0, k: int = 10
) -> list[Distribution]:
    """One `Distribution` per row of `logits` (n, V): output positions first .. first + n - 1, at `temperature`,
    with its top `k`."""
    probs = probabilities(logits, temperature)  # (n, V)
    k = max(1, min(k, probs.shape[-1]))
    top = probs.topk(k, dim=-1)
    tokenizer = bundle.target_tokenizer
    return [
        Distribution(
            position=first + i,
            probs=probs[i].numpy(),
            top_ids=tuple(top.indices[i].tolist()),
            top_tokens=tuple(tokenizer.symbols([j])[0] for j in top.indices[i].tolist()),
            top_probs=tuple(top.values[i].tolist()),
            greedy_id=int(logits[i].argmax()),
            temperature=temperature,
            top_hex=tuple(tokenizer.raw_bytes(top.indices[i].tolist())),
        )
        for i in range(probs.shape[0])
    ]


def next_distribution(
    bundle: ModelBundle, text: str, generated: Sequence[int] = (), *, temperature: float = 1.0, k: int = 10
) -> Distribution:
    """The distribution of the next output token after `generated` (one step of step-through generation)."""
    return distributions(bundle, text, generated, temperature=temperature, k=k)[-1]


def next_token(bundle: ModelBundle, text: str, generated: Sequence[int], settings: SamplingSettings) -> int:
    """The id the run with `settings` writes after `generated`: step `len(generated)` of `generate`."""
    dist = next_distribution(bundle, text, generated, temperature=settings.temperature, k=1)
    return choose(dist.probs, settings, len(generated))


@dataclass(frozen=True)
class Generation:
    """A finished run: the ids written (without <eos>), their text, the distribution at each step."""

    ids: tuple[int, ...]
    tokens: tuple[str, ...]
    text: str
    steps: tuple[Distribution, ...]  # steps[i]: the distribution output token i was chosen from
    finished: bool  # ended with <eos> (not by the token budget)


@torch.no_grad()
def generate(bundle: ModelBundle, text: str, settings: SamplingSettings | None = None, *, k: int = 10) -> Generation:
    """Write an output one token at a time with `settings` (greedy by default: `SamplingSettings(greedy=True)`).

    Each step reads only the newest token, keeping every layer's keys and values (`transformer.engine.kv_cache`):
    a step's distribution is what `next_distribution` shows for that prefix, to float rounding (≤ 1e-6).
    """
    settings = settings or SamplingSettings(greedy=True)
    config = bundle.config
    reader = text_reader(bundle)
    budget = settings.max_new_tokens
    if budget is None:  # outputs are never much longer than the input
        budget = output_length_limit(config, len(reader.tokenize(text)))
    inputs = model_inputs(bundle, text)
    room = config.max_len - inputs.tgt_in.shape[1]
    decoder = start_decoding(bundle.model, inputs.src)
    ys = inputs.tgt_in  # (1, Tt): grows by the chosen token at every step
    ids: list[int] = []
    steps: list[Distribution] = []
    finished = False
    for step in range(min(budget, room)):
        [dist] = distributions_of(
            bundle, decoder.next_logits(ys), first=step, temperature=settings.temperature, k=k
        )  # logits (1, V)
        chosen = choose(dist.probs, settings, step)
        steps.append(dist)
        if chosen == EOS_ID:
            finished = True
            break
        ids.append(chosen)
        ys = torch.cat([ys, torch.tensor([[chosen]])], dim=1)  # (1, Tt + 1)
    target = bundle.target_tokenizer
    return Generation(tuple(ids), tuple(target.symbols(ids)), target.decode(ids), tuple(steps), finished)
