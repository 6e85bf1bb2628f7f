"""One room per page whose sections need more than the page script: `ui/pages/<page>/` serves `views/<page>.py` only.

The shared widgets stay at the top of `ui/`. A room imports no other page's room, and nothing at the top of
`ui/` imports a room (`tests/test_layers.py`): what two pages need is shared, and lives one floor up.
"""
