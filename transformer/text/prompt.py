"""How a decoder-only model reads a task: one sequence `<bos> prompt [suffix] completion [<eos>]`.

A decoder-only model has no encoder, so the input ("i read a book") and the output ("我 读 一 本 书")
share one token sequence, joined by a separator the task chooses (`=` for translation):

    <bos> i read a book = 我 读 一 本 书 <eos>

The model is trained as a language model on that sequence, with the loss on the completion only
(the prompt is given, not predicted), and used by completing the prompt greedily. The format lives
in the model's card (`card["prompt"]`), so whoever runs the model on text (the app's `trace_text`,
`sampling.py`) appends the same suffix the model was trained with.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from transformer.text.reading import reader as text_reader
from transformer.text.reading import symbols_that_fit
from transformer.text.rows import EncodedText, cut_text, decoder_row, encoder_only_row, label_row, source_row
from transformer.text.tokenizer import PAD_ID, Tokenizer

CARD_KEY = "prompt"


@dataclass(frozen=True)
class PromptFormat:
    """The layout of a decoder-only training sequence.

    Attributes:
        suffix: symbols appended after the prompt, e.g. ("=",): where the completion starts.
        loss_on_prompt: also predict the prompt's own tokens (a plain language model, e.g. induction),
            instead of only the completion after the suffix.
        end_with_eos: the completion ends with <eos> (translation); False for an endless continuation
            (induction), whose greedy completion is cut at the reference's length.
    """

    suffix: tuple[str, ...] = ()
    loss_on_prompt: bool = False
    end_with_eos: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {"suffix": list(self.suffix), "loss_on_prompt": self.loss_on_prompt, "end_with_eos": self.end_with_eos}

    @classmethod
    def from_dict(cls, data: Any) -> PromptFormat:
        """From `to_dict` output; a clear ValueError for anything else."""
        if not isinstance(data, dict) or set(data) - {"suffix", "loss_on_prompt", "end_with_eos"}:
            raise ValueError(f"a prompt format must be an object with suffix, loss_on_prompt, end_with_eos; got {data!r}")
        suffix = data.get("suffix", [])
        if not isinstance(suffix, list) or not all(isinstance(s, str) and s for s in suffix):
            raise ValueError(f"a prompt suffix must be a list of symbols, got {suffix!r}")
        flags = {k: data.get(k, default) for k, default in (("loss_on_prompt", False), ("end_with_eos", True))}
        if not all(isinstance(v, bool) for v in flags.values()):
            raise ValueError(f"loss_on_prompt and end_with_eos must be true or false, got {flags}")
        return cls(tuple(suffix), **flags)


def prompt_format(bundle: Any) -> PromptFormat | None:
    """The bundle's prompt format: None for an encoder-decoder model; the plain default (no suffix) for
    a decoder-only model whose card does not name one (e.g. a random model)."""
    if bundle.config.is_encoder_decoder:
        return None
    return PromptFormat.from_dict(bundle.card[CARD_KEY]) if CARD_KEY in bundle.card else PromptFormat()


def with_suffix(symbols: Sequence[str], fmt: PromptFormat | None) -> list[str]:
    """The prompt the model reads: `symbols`, then the format's suffix unless the text already ends with it."""
    suffix = list(fmt.suffix) if fmt is not None else []
    if not suffix or list(symbols[len(symbols) - len(suffix) :]) == suffix:
        return list(symbols)
    return [*symbols, *suffix]


def prompt_row(tokenizer: Tokenizer, symbols: Sequence[str], fmt: PromptFormat | None) -> list[int]:
    """A decoder-only model's input before it completes `symbols`: <bos> + prompt + suffix, as ids."""
    return decoder_row(tokenizer.ids(with_suffix(symbols, fmt)))


@dataclass(frozen=True)
class TextRows:
    """How a model reads one text, before anything is generated (`text_rows`)."""

    text: EncodedText  # the text's symbols and ids, cut to fit
    src: list[int] | None  # the encoder's source row (text + <eos>); None for a decoder-only model
    prefix: list[int]  # what the decoder reads first: [<bos>], or <bos> + prompt + suffix ([] without a decoder)


def text_rows(bundle: Any, text: str) -> TextRows:
    """The rows `trace_text`, sampling and the causal lesson feed a model for `text` (`transformer.text.rows`).

    An encoder-decoder model reads the text in its encoder and starts the decoder at <bos>; a
    decoder-only model reads <bos> + the text + its card's suffix, cut to the model's length.
    """
    config = bundle.config
    reader = text_reader(bundle)
    encoded = cut_text(reader, text, symbols_that_fit(config))
    if config.is_encoder_only:  # no decoder: nothing is generated
        return TextRows(encoded, encoder_only_row(encoded.ids), [])
    if config.is_encoder_decoder:
        return TextRows(encoded, source_row(encoded.ids), decoder_row([]))
    prompt = with_suffix(encoded.symbols, prompt_format(bundle))[: symbols_that_fit(config)]
    return TextRows(encoded, None, decoder_row(reader.ids(prompt)))  # the suffix added before the cut


def lm_sequence(
    fmt: PromptFormat, tokenizer: Tokenizer, prompt: Sequence[str], completion: Sequence[str]
) -> tuple[list[int], list[int]]:
    """(decoder input, labels) of one training sequence; labels are <pad> (ignored) where no loss is taken.

    full = <bos> prompt suffix completion [<eos>]; input = full[:-1], labels = full[1:], so the label at
    position t is the token after it. Without `loss_on_prompt` the labels start at the suffix's last
    symbol, whose next token is the completion's first.
    """
    head = prompt_row(tokenizer, prompt, fmt)
    full = [*head, *tokenizer.ids(completion)]
    if fmt.end_with_eos:
        full = label_row(full)
    labels = full[1:]
    if not fmt.loss_on_prompt:
        given = len(head) - 1  # labels 0 .. len(head) - 2 are prompt tokens
        labels = [PAD_ID] * given + labels[given:]
    return full[:-1], labels
