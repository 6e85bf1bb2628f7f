"""Attention Atlas: `streamlit run app.py`."""

import os

# One BLAS thread pool per process, sized for a small machine, set before torch is imported so
# that many sessions don't oversubscribe the CPU.
os.environ.setdefault("OMP_NUM_THREADS", "2")
os.environ.setdefault("MKL_NUM_THREADS", "2")

import streamlit as st

st.set_page_config(page_title="Attention Atlas", layout="wide")
st.title("Attention Atlas")
