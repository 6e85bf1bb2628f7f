"""However many sessions press Enter at once, at most `ATLAS_MODEL_RUNS` model runs execute together
(ui.caches.get_trace): thirty decoders at once fought for the GIL and doubled each run's cost."""

from __future__ import annotations

import threading
import time

import ui.caches as models


def test_simultaneous_runs_wait_for_a_free_slot(monkeypatch):
    running, most, changed = 0, 0, threading.Condition()
    cap = models._MODEL_RUNS._initial_value  # BoundedSemaphore keeps its size

    def slow_run(bundle, text, names=None, interventions=(), exact=False):
        nonlocal running, most
        with changed:
            running += 1
            most = max(most, running)
            changed.notify_all()
            changed.wait_for(lambda: most >= cap, timeout=10)  # the first runs last until every slot is taken once
            running -= 1
        return text

    monkeypatch.setattr(models, "run_text", slow_run)
    texts = [f"student {i} types sentence {time.time_ns()}" for i in range(4 * cap + 2)]  # never cached before
    results: dict[str, object] = {}
    threads = [threading.Thread(target=lambda s=s: results.__setitem__(s, models.get_trace("reverse", s, ()))) for s in texts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert results == {s: s for s in texts}  # every session got its own run
    assert most == cap == 2  # the default: one run per core
