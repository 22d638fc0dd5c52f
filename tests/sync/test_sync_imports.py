"""SQLAlchemy, psycopg and cryptography stay off the paths of search, context and status."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("sqlalchemy", "sqlmodel", "psycopg", "cryptography")


def test_status_search_and_context_do_not_import_the_sync_libraries(tmp_path: Path) -> None:
    code = f"""
import sys
from pathlib import Path
home = Path({str(tmp_path)!r})
(home / "tapestry.toml").write_text('[general]\\ntimezone = "UTC"\\n[sync]\\nurl = "postgresql://u@127.0.0.1:9/x"\\n')
from tapestryd.config import load_settings
from tapestryd.operations.dispatch import run_here
from tapestryd.operations.requests import ContextRequest, IngestRequest, SearchRequest, StatusRequest
settings = load_settings(home)
session = home / "s.jsonl"
session.write_text('{{"type":"user","uuid":"u","sessionId":"s","timestamp":"2026-03-04T10:00:00Z",'
                   '"message":{{"role":"user","content":"hello heron"}}}}\\n')
run_here(settings, IngestRequest(paths=(str(session),)))
before = {{m for m in sys.modules if m.split(".")[0] in {HEAVY!r}}}
assert not before, before
status = run_here(settings, StatusRequest()).to_json()
assert status["sync"]["enabled"] and status["sync"]["to_push"] > 0, status["sync"]
run_here(settings, SearchRequest(query="heron"))
run_here(settings, ContextRequest())
import tapestryd.cli.fast
loaded = sorted(m for m in sys.modules if m.split(".")[0] in {HEAVY!r})
assert not loaded, loaded
"""
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
