"""Pretrained GPT-2, BERT and Marian checkpoint folders, converted into the project's own `Transformer`.

`load.load_pretrained(folder)` is the entry point (`transformer.storage.registry.load_model` calls it for such a folder);
docs/DESIGN.md ("Pretrained checkpoints: converted, not wrapped") says how each family maps. `transformers` is an
optional install (requirements-hf.txt), imported only when a folder is loaded.
"""
