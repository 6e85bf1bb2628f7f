"""One vocabulary, two numberings: the project's (specials at ids 0-3) and a pretrained model's.

The whole project reads `<pad>`, `<bos>`, `<eos>`, `<unk>` at ids 0-3 (`transformer.text.tokenizer`), and a
pretrained vocabulary puts them anywhere (GPT-2's `<|endoftext|>` is 50256, BERT's `[CLS]` 101,
Marian's `<pad>` 58100) or lacks them (GPT-2 has no padding token). Converting the model instead of
teaching every page a second numbering: the project's id of pretrained id h is 4 + h, and ids 0-3 hold
copies of the rows of the pretrained tokens that play those roles. Embedding and output matrices are
gathered once, at conversion (`gather_rows`); nothing else in the project needs to know.

The copies must not compete in the output: ids 0, 1 and 3 and the duplicate of `<eos>` get a very low
output bias (`VocabMap.banned`), so greedy decoding stops at id 2 (`<eos>`) exactly when the pretrained
model would choose its end token.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from transformer.text.tokenizer import BOS_ID, EOS_ID, PAD_ID, SPECIALS, UNK_ID

BANNED_LOGIT = -1e9  # added to the logits of tokens that stand for another id: probability exactly 0 in float32


@dataclass(frozen=True)
class VocabMap:
    """Where the project's specials come from in a pretrained vocabulary of `size` tokens.

    Attributes:
        size: the pretrained vocabulary's size.
        pad, bos, eos, unk: the pretrained id that plays each role, or None where the model has none
            (its row is then zeros; GPT-2's padding is never attended to, so the row is never read).
    """

    size: int
    pad: int | None
    bos: int | None
    eos: int
    unk: int | None

    @property
    def roles(self) -> tuple[int | None, ...]:
        return (self.pad, self.bos, self.eos, self.unk)  # in the order of SPECIALS

    def __len__(self) -> int:
        return len(SPECIALS) + self.size

    def ours(self, hf_id: int) -> int:
        """The project's id for pretrained id `hf_id`: a special's own id where it plays one, else 4 + id."""
        for our_id, role in ((EOS_ID, self.eos), (UNK_ID, self.unk), (BOS_ID, self.bos), (PAD_ID, self.pad)):
            if hf_id == role:
                return our_id
        return len(SPECIALS) + hf_id

    def theirs(self, our_id: int) -> int | None:
        """The pretrained id behind the project's id `our_id` (None: a special the model lacks)."""
        if our_id < len(SPECIALS):
            return self.roles[our_id]
        return our_id - len(SPECIALS)

    def output_id(self, hf_id: int) -> int:
        """The project's id whose logit equals the pretrained logit of `hf_id` (the one not banned)."""
        return EOS_ID if hf_id == self.eos else len(SPECIALS) + hf_id

    def banned(self) -> list[int]:
        """Output ids that copy another id's row: ids 0, 1, 3 and 4 + eos (see the module docstring)."""
        return [PAD_ID, BOS_ID, UNK_ID, len(SPECIALS) + self.eos]

    def gather_rows(self, matrix: Tensor) -> Tensor:
        """(size, ...) rows in pretrained order → (4 + size, ...) in the project's order (zeros for a missing role)."""
        out = matrix.new_zeros(len(self), *matrix.shape[1:])  # one copy: GPT-2's 50,257 × 768 rows are 154 MB
        for our_id, role in enumerate(self.roles):
            if role is not None:
                out[our_id] = matrix[role]
        out[len(SPECIALS) :] = matrix
        return out

    def gather_each(self, *matrices: Tensor) -> list[Tensor]:
        """`gather_rows` of each matrix; one matrix under several names (tied weights) is gathered once, so the
        converted model ties them too (`Transformer.tie_embeddings`) and holds one copy."""
        gathered: dict[int, Tensor] = {}
        for matrix in matrices:
            if matrix.data_ptr() not in gathered:
                gathered[matrix.data_ptr()] = self.gather_rows(matrix)
        return [gathered[m.data_ptr()] for m in matrices]

    def output_bias(self, bias: Tensor | None) -> Tensor:
        """The generator's bias in the project's order, with the copies banned (`banned`)."""
        out = self.gather_rows(bias if bias is not None else torch.zeros(self.size))
        out[self.banned()] = BANNED_LOGIT
        return out
