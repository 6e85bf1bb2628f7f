"""The training page's sections (`views/training.py`): a job's or a film's view (`panel`), the heads finding their job
(`scores`)."""
