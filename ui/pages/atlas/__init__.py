"""The corpus page's sections (`views/atlas.py`): one head across the corpus (`head`), the head finder (`finder`),
the map of queries and keys (`qk`), and what they share (`data`: the atlas and the cached runs)."""
