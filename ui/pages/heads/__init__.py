"""The Attention-heads page's sections (`views/heads.py`): the head detectors (`detectors`), the heads that matter
(`importance`), the other architecture's button (`counterpart`)."""
