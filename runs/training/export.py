"""A trained job's model as a zip of a checkpoint folder (the shipped format, plus its film), for a download.

The app stays read-only on the server: nothing is written except a temporary folder that is zipped and deleted.
Unzipped, the folder loads with `transformer.storage.checkpoint.load_checkpoint` (or the app's `--model` path) like a
shipped model.
"""

from __future__ import annotations

import io
import tempfile
import zipfile
from pathlib import Path

from runs.training.job import TrainingJob
from transformer.storage.checkpoint import save_checkpoint
from transformer.training.film import FILM


def checkpoint_zip(job: TrainingJob) -> tuple[str, bytes]:
    """(file name, zip bytes) of the job's model folder. Raises ValueError while the job trains or after it failed."""
    bundle = job.bundle
    if bundle is None:
        raise ValueError("only a model that has stopped training can be saved")
    folder_name = job.id
    buffer = io.BytesIO()
    with tempfile.TemporaryDirectory() as tmp:
        folder = save_checkpoint(bundle, Path(tmp) / folder_name)
        film = job.recorder.film()
        if film is not None:
            film.save(folder / FILM)
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in sorted(folder.iterdir()):
                archive.write(path, f"{folder_name}/{path.name}")
    return f"{folder_name}.zip", buffer.getvalue()
