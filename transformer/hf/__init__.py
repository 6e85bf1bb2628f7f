"""Pretrained GPT-2, BERT, Marian, Llama, Qwen2 and Qwen3 checkpoint folders, converted into the project's own `Transformer`.

`load.load_pretrained(folder)` is the entry point (`transformer.storage.registry.load_model` calls it for such a folder);
how each family maps is below. `transformers` is an optional install (requirements-hf.txt), imported only when a
folder is loaded.

Converted, not wrapped (TransformerLens's approach): every hook point keeps its name and meaning, and no view has
per-family code. The config grew only what these families need, each defaulting to the paper: `activation` (relu,
gelu, gelu_new — GPT-2's tanh form —, silu — Marian's swish), `norm_eps` (BERT 1e-12), `scale_embeddings`
(×√d_model: Marian yes, GPT-2 and BERT no), `token_type` (BERT's sentence-A vector), `embed_norm` (BERT's LayerNorm
over embeddings + positions), `output_transform` (BERT's masked-LM head before the output linear),
`positional="sinusoidal-split"` (Marian: sines first), and `architecture="encoder-only"` (BERT: `trace_text` reads
`<bos> text <eos>` once and predicts every position: `transformer.engine.encoder_run`).

- `folder.py`: checks a folder before anything is loaded: a known `model_type`, no `auto_map` (remote code),
  `*.safetensors` present; `PretrainedRefused(reason, …)`, `reason` translated by the app;
- `vocab.py`: `VocabMap`: the project's specials at ids 0–3, project id = 4 + pretrained id; the special rows copy
  the tokens that play those roles, with an output bias of −1e9, so greedy decoding stops where the pretrained
  model would;
- `llama.py`: Llama, Qwen2 and Qwen3 (rotary positions, grouped-query attention, RMSNorm, SwiGLU; Qwen2's q/k/v
  biases, Qwen3's q/k norms), refused from config.json alone where they would not convert exactly;
- `gpt2.py`, `bert.py`, `marian.py`, `llama.py`: per family, `vocab_map`, `config` (refusing variants it cannot convert
  exactly) and `state` (its modules → the project's parameter names);
- `load.py`: `load_pretrained(folder)` (offline, safetensors, no remote code, missing weights refused) and
  `convert(hf_model, hf_tokenizer, family)`, which the exactness tests call on tiny random models;
- `pages.py`: after a load, the file pages of weights the conversion copied (the renumbered vocabulary) are handed
  back to the kernel, so the old matrix does not stay resident beside its copy;
- `tokenizer.py`: `PretrainedTokenizer`, the folder's tokenizer behind the project's `Tokenizer` interface;
- `discover.py`: the folders of the models dirs with family, sizes and parameter count (safetensors headers only);
- `random_folder.py`: tiny (or GPT-2-small-sized) random checkpoints of each family, written offline: the tests'
  and benchmarks' folders.
"""
