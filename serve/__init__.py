"""Serving a school: several `streamlit run app.py` processes behind Debian's nginx (`python -m serve.school`)."""
