"""Streamlit glue: the only package besides pages/ and app.py that imports streamlit."""
