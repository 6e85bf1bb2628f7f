"""Lesson steps that say what today's decoder parts are, on a model that has them (a converted Llama / Qwen folder,
the shipped `gpt-en-zh`), in place of the paper's: no sinusoid where positions are rotary. Each such step asks nothing
(its question would be about a part the model lacks) and sends the class to the page that shows the model's own
part, live. (RMSNorm and SwiGLU keep a question, true on them: `steps.rmsnorm_words`, `steps.feed_forward_words`.)"""

from __future__ import annotations

from typing import Any

from ui.i18n import t

# step → (does the model replace the paper's part?, the page that shows its own)
_REPLACED = {
    "embeddings": (lambda c: c.positional == "rotary", "positional"),
    "positional": (lambda c: c.positional == "rotary", "positional"),
}


def modern_step(ls: Any, step: str, content: type) -> Any | None:
    """The step's content for a model whose part differs from the paper's (None: the paper's step holds)."""
    replaced, page = _REPLACED[step]
    c = ls.bundle.config
    if not replaced(c):
        return None
    text = t(
        f"modern.lesson_{step}_text",
        theta=f"{c.rope_theta:,.0f}",
        d_model=c.d_model,
        d_ff=c.d_ff,
        scaled="√d_model" if c.scale_embeddings else "1",
    )
    return content(step, t(f"modern.lesson_{step}_title"), text, lab_page=page, skipped=t(f"modern.lesson_{step}_why"))
