"""The Masks page's sections (`views/masks.py`): the figures and tables (`view`), the causal and intervention controls
(`controls`), the ablation default (`ablation`)."""
