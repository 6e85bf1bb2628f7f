"""The engine: how runs are made fast and recorded, apart from what the model computes.

The model's files (`transformer.attention`, `transformer.hooks`, ...) are the paper's steps and nothing else.
Runs that need more (a long input, reduced precision, lent memory, a key/value cache) hand attention to the
engine through one seam, `transformer.attention.run_by` (a per-call context, as `capture` is): inside it
`MultiHeadAttention.forward` passes its queries, keys and values to `attend.ENGINE`, which computes the same
steps with the same hook points, faster. Everything else here calls the model from outside.

- `attend`: the engine's attention (in-place masking, scratch memory, `by_rows`) and the seam's engine;
- `by_rows`: a large layer's attention a block of query rows at a time (bfloat16 runs);
- `precision`: float32 or bfloat16 arithmetic (`arithmetic`);
- `workspace`: scratch memory a run lends its layers (`lending`);
- `records`: how a capture keeps what it records (`keeping` a dtype, room for later rows: `capture(room=)`);
- `record_memory`: the memory of the last long run's records, written again by the next;
- `kv_cache`: incremental decoding, each layer's keys and values kept between steps;
- `decoding`: greedy decoding and `trace_text`, one captured run on a text;
- `recorded_decoding`, `step_capture`: a run recorded by its own decoding steps;
- `encoder_run`: an encoder-only model's run;
- `sampling`: sampled continuations.
"""
