"""Storage: models on disk and the catalog of the ones the app can show.

- `untrusted_files`: reading files nobody vouches for (size limits, JSON, model cards) with clear errors;
- `checkpoint`: a model, its tokenizers and its card saved and loaded (`ModelBundle`, safetensors only);
- `registry`: the shipped models, converted pretrained folders and random models by name (`load_model`).

The model's own files never import this room.
"""
