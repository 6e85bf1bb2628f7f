"""The floor a cold start is measured against (`benchmarks/cold_start.py`): the least a Streamlit page with this
app's stack can do, importing PyTorch and drawing one plotly chart, nothing of the app's own."""

import plotly.graph_objects as go
import streamlit as st
import torch

st.title("Floor")
st.plotly_chart(go.Figure(go.Heatmap(z=torch.rand(8, 8).tolist())))
