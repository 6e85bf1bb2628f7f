"""viz/ and transformer/ stay pure: importing them never imports streamlit (DESIGN.md §1)."""

import pkgutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _modules(package: str) -> list[str]:
    return [f"{package}.{m.name}" for m in pkgutil.iter_modules([str(ROOT / package)]) if m.name != "__main__"]


def test_viz_and_transformer_do_not_import_streamlit_or_run_ui():
    modules = _modules("viz") + _modules("transformer")
    code = "import sys\n" + "".join(f"import {m}\n" for m in modules) + (
        "bad = [m for m in sys.modules if m.split('.')[0] in ('streamlit', 'ui')]\nprint(bad)\nassert not bad, bad\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr + result.stdout


def test_viz_never_builds_models():
    """viz builds figures; it must not construct or run models (no transformer.model import)."""
    code = "import sys\n" + "".join(f"import {m}\n" for m in _modules("viz")) + (
        "assert 'transformer.model' not in sys.modules\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
