"""Pure view-models and plotly figures: NumPy in, figures out. Never imports streamlit or runs a model."""
