"""A sentence a page states about a run, as data: the catalog key and the numbers it rests on.

Pages render it with `ui.i18n.t`; tests format the same key in both catalogs and check the sentence against the
numbers (issue 39: every sentence about a run is computed from it or holds on every model).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Claim:
    """One sentence of a page: its catalog key and the numbers it is formatted with."""

    key: str
    params: dict[str, object] = field(default_factory=dict)
