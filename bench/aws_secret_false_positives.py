"""Measure: bare AWS secret access key detection (tapestryd.privacy.awskeys) on real text.

Run: python bench/aws_secret_false_positives.py [FOLDER ...]
(default: ../shared/corpus and ../shared/evals beside the repository, read in place).

Every string of every JSON / JSONL file under the folders (message texts, titles, tool
output), and every other text file (``.py``, ``.md``, ``.txt``, ``.html``, ``.js``) whole,
goes through the detector (a harder sample: a virtualenv's ``lib`` folder, code full of
hashes, test vectors and base64). None of these files holds a real AWS key, so every
finding is a false positive; each is printed masked (first and last 4 characters) with its
file, so a documentation example can be told apart. Also counts the 40-character base64
runs the guards looked at, and checks recall on random keys. Writes
bench/out/aws_secret_false_positives.json.
"""

from __future__ import annotations

import json
import random
import re
import string
import sys
from collections.abc import Iterator
from pathlib import Path

from tapestryd.privacy.awskeys import find_bare_aws_secrets

ROOT = Path(__file__).resolve().parent
RUN_OF_40 = re.compile(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")  # what the guards look at
SHARED = ROOT.parent.parent / "shared"


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


SUFFIXES = (".json", ".jsonl", ".py", ".md", ".txt", ".html", ".js")


def _documents(path: Path) -> Iterator[object]:
    raw = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix not in (".json", ".jsonl"):
        yield raw
        return
    try:
        yield json.loads(raw)
        return
    except ValueError:
        pass
    for line in raw.splitlines():
        try:
            yield json.loads(line)
        except ValueError:
            yield line  # a broken line is text too


def _recall(n: int = 20_000) -> float:
    rng = random.Random(17)
    alphabet = string.ascii_letters + string.digits + "/+"
    keys = ["".join(rng.choice(alphabet) for _ in range(40)) for _ in range(n)]
    return sum(bool(list(find_bare_aws_secrets(f"aws secret: {k}"))) for k in keys) / n


def main(folders: list[Path]) -> int:
    files = sorted(p for folder in folders for p in folder.rglob("*") if p.suffix in SUFFIXES and p.is_file())
    texts = runs = 0
    found: list[dict[str, str]] = []
    for path in files:
        for doc in _documents(path):
            for text in _strings(doc):
                texts += 1
                runs += sum(1 for _ in RUN_OF_40.finditer(text))
                for start, end in find_bare_aws_secrets(text):
                    value = text[start:end]
                    found.append({"file": str(path), "masked": f"{value[:4]}…{value[-4:]}",
                                  "context": text[max(0, start - 30):start].replace("\n", " ")})
    recall = _recall()
    result = {"folders": [str(f) for f in folders], "files": len(files), "strings": texts,
              "runs_of_40": runs, "false_positives": len(found), "findings": found,
              "recall_on_random_keys": round(recall, 4)}
    print(f"{len(files)} files, {texts:,} strings, {runs} runs of exactly 40 base64 characters (the candidates)")
    print(f"false positives (bare AWS secret keys reported): {len(found)}")
    for f in found:
        print(f"  {f['file']}: …{f['context']}{f['masked']}")
    print(f"recall on 20,000 random 40-character keys after 'aws secret:': {recall:.2%}")
    out = ROOT / "out"
    out.mkdir(exist_ok=True)
    (out / "aws_secret_false_positives.json").write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    given = [Path(a) for a in sys.argv[1:]]
    defaults = [p for p in (SHARED / "corpus", SHARED / "evals") if p.is_dir()]
    sys.exit(main(given or defaults))
