"""The lesson's parts (`views/lesson.py`): each step's words and figure (`steps`, built once for a class by
`shared_steps`), the handout (`handout`), class mode (`class_mode`, `class_join`; app.py shows its banner on the
other pages)."""
