"""The Why page's parts (`views/why.py`): the two sentences and their controls (`inputs`), the words its figures and
verdict use (`labels`), and the patching sweep with its progress bar and Cancel (`sweep`)."""
