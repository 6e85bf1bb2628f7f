"""The run layer: everything a page computes, with no Streamlit in it.

Between `ui/` (widgets and thin `st.cache_*` wrappers) and `transformer/` + `viz/`: resolving a model
reference to a loaded bundle (`model_ref`), running text once (`text_run`), checking text
(`validation`), the reference verdict (`reference`), padded batches of sentences and their masks
(`sentence_batch`), the arrays of the teaching pages (`teaching_arrays`), the heads page's numbers
(`heads`) and the Masks page's experiments (`experiments`). Benchmarks and tests call it directly.
"""
