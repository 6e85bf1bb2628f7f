"""The output distribution page's numbers: the next-token distribution at every generated position,
and step-through generation that a URL can replay.

A page keeps only (text, settings, number of steps) in its URL; the tokens written so far are
recomputed by replaying that many steps of `transformer.engine.sampling` (each draw is seeded from
(seed, step)), so a shared link shows exactly the same sequence, and "next token" is one more step.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import torch

from transformer.engine.decoding import output_length_limit
from transformer.engine.encoder_run import mask_id
from transformer.engine.sampling import (
    Distribution,
    SamplingSettings,
    choose,
    distributions,
    distributions_of,
    generate,
    model_inputs,
)
from transformer.storage.checkpoint import ModelBundle
from transformer.text.prompt import text_rows
from transformer.text.reading import reader, symbols
from transformer.text.tokenizer import EOS_ID

__all__ = ["MAX_TOP_K", "OutputSteps", "SamplingSettings", "output_steps", "replay", "room", "step_budget"]

MAX_TOP_K = 20  # bars in one chart: more stop being readable on a projector


@dataclass(frozen=True)
class OutputSteps:
    """Step-through generation after `steps` steps, with the distribution at every output position.

    Attributes:
        prompt_tokens: what the decoder reads before it writes anything (<bos>, or <bos> + prompt for a
            decoder-only model).
        source_tokens: the encoder's input (empty for a decoder-only model).
        generated_ids / generated_tokens: the tokens written so far (never <eos>).
        distributions: one per output position, len(generated) + 1: entry i is what position i predicted
            (at the page's temperature); the last is the distribution of the token to write next.
        chosen: the id each position's step chose (len(distributions); the last is the next token the
            settings write, which may be <eos>).
        reads: the token each output position reads (the decoder input at that row).
        finished: the last step wrote <eos> or the run reached `step_budget`: "next token" does nothing.
        truncated: the text was cut to the model's maximum length.
    """

    prompt_tokens: tuple[str, ...]
    source_tokens: tuple[str, ...]
    generated_ids: tuple[int, ...]
    generated_tokens: tuple[str, ...]
    distributions: tuple[Distribution, ...]
    chosen: tuple[int, ...]
    chosen_tokens: tuple[str, ...]
    reads: tuple[str, ...]
    finished: bool
    truncated: bool

    @property
    def n_positions(self) -> int:
        return len(self.distributions)


def room(bundle: ModelBundle, text: str) -> int:
    """How many tokens the model can still write after the prompt (its maximum length minus the prompt)."""
    if bundle.config.is_encoder_only:
        return 0  # it writes nothing
    return bundle.config.max_len - model_inputs(bundle, text).tgt_in.shape[1]


def step_budget(bundle: ModelBundle, text: str) -> int:
    """The most tokens a run writes: the room left, and as `sampling.generate` by default
    (`transformer.engine.decoding.output_length_limit`), so "to the end" on an untrained model that never writes <eos>
    stops instead of running the whole 512 positions."""
    return min(room(bundle, text), output_length_limit(bundle.config, len(symbols(reader(bundle), text))))


def replay(bundle: ModelBundle, text: str, settings: SamplingSettings, steps: int) -> list[int]:
    """The ids `steps` steps of generation with `settings` write (stopping early at <eos> or `step_budget`):
    `sampling.generate` with that many steps, so the result is a whole run's prefix (step i draws from
    (seed, i)), and each step reads only its newest token (a key/value cache)."""
    budget = max(0, min(steps, step_budget(bundle, text)))
    return list(generate(bundle, text, replace(settings, max_new_tokens=budget), k=1).ids)


@torch.no_grad()
def encoder_output(bundle: ModelBundle, text: str, settings: SamplingSettings, k: int) -> OutputSteps:
    """An encoder-only model (BERT) writes nothing: its output layer predicts the token at each position.

    The positions shown are the text's mask tokens ([MASK]) where it has any, else every text position;
    "chosen" is what the settings pick there (greedy: the arg-max). Nothing is generated, so the run is finished.
    """
    rows = text_rows(bundle, text)
    assert rows.src is not None
    logits = bundle.model(torch.tensor([rows.src]))[0]  # (Ts, V)
    masked = [i for i, token in enumerate(rows.src) if token == mask_id(bundle)]
    positions = masked or list(range(1, len(rows.src) - 1)) or [0]  # the text's, not <bos>/<eos>
    dists = distributions_of(bundle, logits[positions], temperature=settings.temperature, k=k)
    chosen = [choose(d.probs, settings, step) for step, d in enumerate(dists)]
    tokens = tuple(bundle.target_tokenizer.symbols(rows.src))
    return OutputSteps(
        prompt_tokens=tokens,
        source_tokens=tokens,
        generated_ids=(),
        generated_tokens=(),
        distributions=tuple(dists),
        chosen=tuple(chosen),
        chosen_tokens=tuple(bundle.target_tokenizer.symbols(chosen)),
        reads=tuple(tokens[i] for i in positions),
        finished=True,
        truncated=rows.text.truncated,
    )


def output_steps(bundle: ModelBundle, text: str, settings: SamplingSettings, steps: int, k: int = 10) -> OutputSteps:
    """Replay `steps` steps, then the distribution at every output position in one teacher-forced pass."""
    if bundle.config.is_encoder_only:
        return encoder_output(bundle, text, settings, max(1, min(k, MAX_TOP_K)))
    generated = replay(bundle, text, settings, steps)
    k = max(1, min(k, MAX_TOP_K))
    dists = distributions(bundle, text, generated, temperature=settings.temperature, k=k)
    inputs = model_inputs(bundle, text, generated)
    chosen = [*generated, choose(dists[-1].probs, settings, len(generated))]
    target = bundle.target_tokenizer
    tgt_tokens = target.symbols(inputs.tgt_in[0].tolist())
    prompt = tgt_tokens[: inputs.first_output + 1]
    reader = bundle.source_tokenizer or target
    source = reader.symbols(inputs.src[0].tolist()) if inputs.src is not None else []
    full = len(generated) >= step_budget(bundle, text)
    return OutputSteps(
        prompt_tokens=tuple(prompt),
        source_tokens=tuple(source),
        generated_ids=tuple(generated),
        generated_tokens=tuple(target.symbols(generated)),
        distributions=tuple(dists),
        chosen=tuple(chosen),
        chosen_tokens=tuple(target.symbols(chosen)),
        reads=tuple(tgt_tokens[inputs.first_output :]),
        finished=chosen[-1] == EOS_ID or full,
        truncated=inputs.truncated,
    )
