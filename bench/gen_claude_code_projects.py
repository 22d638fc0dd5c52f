"""Generate a Claude Code ``projects`` folder: N sessions as ``<project>/<session>.jsonl`` (2.x shape).

Each session has turns of a user prompt and an assistant reply streamed over several
lines sharing one ``message.id`` (a thinking line, text, tool calls), with tool results
(several KB, like real ``Read``/``Bash`` output) as user lines, file-history snapshots,
the odd ``isMeta`` caveat, and often a leading ``summary`` line. Deterministic per seed.

Usage: ``python bench/gen_claude_code_projects.py [--sessions 2000] [--out bench/out/claude-projects]``
Prints the folder, bytes, sessions, lines and visible messages (JSON).
"""

from __future__ import annotations

import argparse
import json
import random
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from textgen import TextGen

START = datetime(2025, 6, 1, tzinfo=timezone.utc)


class SessionWriter:
    """Writes sessions line by line and counts what a parser should keep."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.text = TextGen(seed)
        self.lines = 0
        self.messages = 0

    def uid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def session(self, path: Path, index: int, cwd: str) -> None:
        session = self.uid()
        t = START + timedelta(hours=index * 3.1)
        base = {"isSidechain": False, "userType": "external", "cwd": cwd, "sessionId": session,
                "version": "2.0.46", "gitBranch": self.rng.choice(["main", "dev", "fix/flaky-upload"])}
        out: list[dict[str, Any]] = []
        if self.rng.random() < 0.4:
            title = " ".join(self.text.words(5)).capitalize()
            out.append({"type": "summary", "summary": title, "leafUuid": self.uid()})
        parent = None
        for _ in range(self.rng.randint(3, 15)):
            t += timedelta(seconds=self.rng.uniform(30, 900))
            parent = self.turn(out, base, parent, t)
        path.write_text("".join(json.dumps(line) + "\n" for line in out))
        self.lines += len(out)

    def line(self, out: list[dict[str, Any]], base: dict[str, Any], parent: str | None, kind: str,
             message: dict[str, Any], t: datetime, **extra: Any) -> str:
        key = self.uid()
        out.append({"parentUuid": parent, **base, "type": kind, "message": message, "uuid": key,
                    "timestamp": t.isoformat(timespec="milliseconds").replace("+00:00", "Z"), **extra})
        return key

    def turn(self, out: list[dict[str, Any]], base: dict[str, Any], parent: str | None, t: datetime) -> str:
        out.append({"type": "file-history-snapshot", "messageId": self.uid(), "snapshot": {"trackedFileBackups": {}},
                    "isSnapshotUpdate": False})
        parent = self.line(out, base, parent, "user", {"role": "user", "content": self.text.text(5, 60)}, t)
        self.messages += 1
        if self.rng.random() < 0.1:
            parent = self.line(out, base, parent, "user", {"role": "user", "content": "<local-command-caveat>Caveat"
                               "</local-command-caveat>"}, t, isMeta=True)
        msg_id = f"msg_{self.uid().replace('-', '')[:24]}"
        for step in range(self.rng.randint(1, 4)):
            t += timedelta(seconds=self.rng.uniform(1, 20))
            parent = self.reply_part(out, base, parent, msg_id, t, thinking=step == 0 and self.rng.random() < 0.5)
        self.messages += 1
        return parent

    def reply_part(self, out: list[dict[str, Any]], base: dict[str, Any], parent: str, msg_id: str, t: datetime,
                   *, thinking: bool) -> str:
        def assistant(block: dict[str, Any]) -> dict[str, Any]:
            return {"id": msg_id, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
                    "content": [block], "stop_reason": None, "usage": {"input_tokens": 3, "output_tokens": 120}}

        if thinking:
            parent = self.line(out, base, parent, "assistant", assistant(
                {"type": "thinking", "thinking": self.text.text(20, 80), "signature": "sig"}), t, requestId="req")
        parent = self.line(out, base, parent, "assistant", assistant({"type": "text", "text": self.text.text(20, 250)}),
                           t, requestId="req")
        if self.rng.random() < 0.6:
            tool = f"toolu_{self.uid().replace('-', '')[:24]}"
            parent = self.line(out, base, parent, "assistant", assistant(
                {"type": "tool_use", "id": tool, "name": "Read", "input": {"file_path": "/home/sam/x.py"}}), t)
            output = "\n".join(f"{n:6}\t{' '.join(self.text.words(8))}" for n in range(self.rng.randint(10, 120)))
            parent = self.line(out, base, parent, "user", {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": tool, "content": output}]}, t,
                toolUseResult={"type": "text", "file": {"filePath": "/home/sam/x.py", "content": output}})
        return parent


def generate(out: Path, sessions: int, seed: int = 5) -> dict[str, Any]:
    """Write ``sessions`` session files under ``out`` in 40 project folders; returns the figures."""
    writer = SessionWriter(seed)
    for index in range(sessions):
        project = out / f"-home-sam-project{index % 40:02d}"
        project.mkdir(parents=True, exist_ok=True)
        writer.session(project / f"{writer.uid()}.jsonl", index, f"/home/sam/project{index % 40:02d}")
    size = sum(p.stat().st_size for p in out.rglob("*.jsonl"))
    return {"path": str(out), "bytes": size, "sessions": sessions, "lines": writer.lines, "messages": writer.messages}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "out" / "claude-projects")
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    print(json.dumps(generate(args.out, args.sessions, args.seed)))


if __name__ == "__main__":
    main()
