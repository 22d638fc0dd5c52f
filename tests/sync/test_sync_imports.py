"""SQLAlchemy, psycopg and cryptography stay off the paths of search, context and status."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("sqlalchemy", "sqlmodel", "psycopg", "cryptography")
SETUP = """
from pathlib import Path
from tapestryd.config import load_settings
home = Path({home!r})
settings = load_settings(home)
"""


def _run(code: str) -> None:
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


def test_status_search_and_context_do_not_import_the_sync_libraries(tmp_path: Path) -> None:
    (tmp_path / "tapestry.toml").write_text('[general]\ntimezone = "UTC"\n[sync]\nurl = "postgresql://u@127.0.0.1:9/x"\n')
    (tmp_path / "s.jsonl").write_text('{"type":"user","uuid":"u","sessionId":"s","timestamp":"2026-03-04T10:00:00Z",'
                                      '"message":{"role":"user","content":"hello heron"}}\n')
    _run(SETUP.format(home=str(tmp_path)) + """
from tapestryd.operations.dispatch import run_here
from tapestryd.operations.requests import IngestRequest
run_here(settings, IngestRequest(paths=(str(home / "s.jsonl"),)))
""")
    _run(SETUP.format(home=str(tmp_path)) + f"""
import sys
from tapestryd.operations.dispatch import run_here
from tapestryd.operations.requests import ContextRequest, SearchRequest, StatusRequest
status = run_here(settings, StatusRequest()).to_json()
assert status["sync"]["enabled"] and status["sync"]["to_push"] > 0, status["sync"]
assert run_here(settings, SearchRequest(query="heron")).to_json()["hits"]
run_here(settings, ContextRequest())
import tapestryd.cli.fast
loaded = sorted(m for m in sys.modules if m.split(".")[0] in {HEAVY!r})
assert not loaded, loaded
""")
