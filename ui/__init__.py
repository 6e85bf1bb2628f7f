"""Streamlit glue: the only package besides views/ and app.py that imports streamlit."""
