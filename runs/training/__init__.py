"""Training jobs the app runs in the background: options and presets, the worker, and the registry that caps them.

No Streamlit here: the page (`views/training.py`) polls a job's `view()`; tests and benchmarks drive jobs directly.
"""
