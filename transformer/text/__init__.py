"""Text: from what a reader types to the ids a model reads, and back.

- `tokenizer`: the shipped models' character and word tokenizers (ids, special tokens, <unk>);
- `graphemes`: user-perceived characters (an emoji, a Chinese character, "é"), the unit a character model reads;
- `rows`: one text encoded for the encoder, the decoder or a label row, and how much of it fits (`text_limit`);
- `prompt`: a task's prompt format around the text, and the rows of one run (`text_rows`);
- `batch`: several sentences padded into one batch with their masks.

Nothing here runs a model; the model's own files never import this room.
"""
