"""The raw bytes a byte-level folder's own tokenizer gives a piece, read through `transformers`: what the app's
hovers must show, computed independently of the app's own hex (`transformer.hf.tokenizer.Tokenizer.raw_bytes`)."""

from transformer.hf.tokenizer import piece_bytes


def their_hex(bundle, our_id: int) -> str:
    """Our id's piece's bytes as hex ("e4 bd"), from the folder's tokenizer; "" for a special (no text)."""
    tokenizer = bundle.target_tokenizer
    their = tokenizer.map.theirs(our_id)
    if their is None or their in tokenizer.hf.all_special_ids:  # a special (<|endoftext|>) is no text: no bytes
        return ""
    raw = piece_bytes(tokenizer.hf.convert_ids_to_tokens(their))
    return " ".join(f"{b:02x}" for b in raw or b"")
