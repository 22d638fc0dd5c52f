"""Generate a ChatGPT ``conversations.json`` of about N MB in the 2025 export shape.

Each conversation has a null root, a hidden system node, a hidden custom-instructions
node, then user/assistant turns with the metadata real exports carry; some assistant turns
go through a web search (an internal tool call and a hidden tool result), some user turns
have a regenerated answer on an abandoned branch, a few user turns carry an image.
Written streaming, one conversation at a time; deterministic for a given seed.

Usage: ``python bench/gen_chatgpt_export.py [--mb 200] [--out bench/out/chatgpt-200mb.json]``
Prints the path, size, conversations and visible messages (JSON on the last line).
"""

from __future__ import annotations

import argparse
import json
import random
import uuid
from pathlib import Path
from typing import Any

from textgen import TextGen

START = 1_700_000_000.0


class ExportWriter:
    """Builds conversations node by node with one random source."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.text = TextGen(seed)
        self.messages = 0

    def uid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def node(self, mapping: dict[str, Any], parent: str | None, role: str, content: dict[str, Any], ts: float | None,
             **extra: Any) -> str:
        key = self.uid()
        metadata = extra.pop("metadata", {})
        if role == "assistant":
            metadata = {"finish_details": {"type": "stop", "stop_tokens": [200002]}, "is_complete": True,
                        "citations": [], "content_references": [], "message_type": None, "model_slug": "gpt-4o",
                        "default_model_slug": "gpt-4o", "parent_id": parent, "request_id": self.uid()[:20],
                        "timestamp_": "absolute", **metadata}
        message = {"id": key, "author": {"role": role, "name": extra.pop("name", None), "metadata": {}},
                   "create_time": ts, "update_time": None, "content": content, "status": "finished_successfully",
                   "end_turn": role == "assistant", "weight": 1.0, "metadata": metadata,
                   "recipient": extra.pop("recipient", "all"), "channel": None}
        mapping[key] = {"id": key, "message": message, "parent": parent, "children": []}
        if parent is not None:
            mapping[parent]["children"].append(key)
        return key

    def conversation(self, index: int) -> dict[str, Any]:
        t = START + index * 3600.0 * self.rng.uniform(0.5, 1.5)
        mapping: dict[str, Any] = {}
        root = self.uid()
        mapping[root] = {"id": root, "message": None, "parent": None, "children": []}
        hidden = {"metadata": {"is_visually_hidden_from_conversation": True}}
        leaf = self.node(mapping, root, "system", {"content_type": "text", "parts": [""]}, None, **hidden)
        leaf = self.node(mapping, leaf, "user", {"content_type": "user_editable_context",
                                                 "user_profile": self.text.text(10, 30),
                                                 "user_instructions": self.text.text(10, 30)}, t,
                         metadata={"is_visually_hidden_from_conversation": True, "is_user_system_message": True})
        for _ in range(self.rng.randint(1, 20)):
            t += self.rng.uniform(20, 600)
            leaf = self.turn(mapping, leaf, t)
        return {"title": " ".join(self.text.words(4)).title(), "create_time": START + index * 3600.0,
                "update_time": t, "mapping": mapping, "moderation_results": [], "current_node": leaf,
                "plugin_ids": None, "conversation_id": (cid := self.uid()), "conversation_template_id": None,
                "gizmo_id": None, "gizmo_type": None, "is_archived": False, "is_starred": None, "safe_urls": [],
                "blocked_urls": [], "default_model_slug": "gpt-4o", "conversation_origin": None,
                "voice": None, "async_status": None, "disabled_tool_ids": [], "is_do_not_remember": False,
                "memory_scope": "global_enabled", "id": cid}

    def turn(self, mapping: dict[str, Any], parent: str, t: float) -> str:
        parts: list[Any] = [self.text.text(8, 80)]
        if self.rng.random() < 0.05:
            parts.insert(0, {"content_type": "image_asset_pointer", "asset_pointer": f"file-service://file-{self.uid()}",
                             "size_bytes": 120000, "width": 1024, "height": 768})
        kind = "multimodal_text" if len(parts) > 1 else "text"
        user = self.node(mapping, parent, "user", {"content_type": kind, "parts": parts}, t)
        self.messages += 1
        if self.rng.random() < 0.05:
            self.node(mapping, user, "assistant", {"content_type": "text", "parts": [self.text.text(40, 200)]}, t + 5)
        leaf = user
        if self.rng.random() < 0.1:
            leaf = self.node(mapping, leaf, "assistant", {"content_type": "code", "language": "unknown",
                                                          "text": f"search({' '.join(self.text.words(5))!r})"},
                             t + 1, recipient="web")
            leaf = self.node(mapping, leaf, "tool", {"content_type": "code", "language": "unknown", "text": ""},
                             t + 2, name="web", recipient="assistant",
                             metadata={"is_visually_hidden_from_conversation": True})
        self.messages += 1
        return self.node(mapping, leaf, "assistant", {"content_type": "text", "parts": [self.text.text(60, 400)]},
                         t + self.rng.uniform(3, 30))


def generate(out: Path, megabytes: float, seed: int = 11) -> dict[str, Any]:
    """Write the export to ``out`` until it reaches ``megabytes``; returns its figures."""
    writer = ExportWriter(seed)
    target = int(megabytes * 1_000_000)
    out.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with out.open("w", encoding="utf-8") as fh:
        fh.write("[")
        while fh.tell() < target:
            fh.write(("," if count else "") + json.dumps(writer.conversation(count), ensure_ascii=False))
            count += 1
        fh.write("]")
    return {"path": str(out), "bytes": out.stat().st_size, "conversations": count, "messages": writer.messages}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=200.0, help="target size in MB (10^6 bytes)")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "out" / "chatgpt-200mb.json")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    print(json.dumps(generate(args.out, args.mb, args.seed)))


if __name__ == "__main__":
    main()
