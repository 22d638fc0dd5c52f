"""Per-level prompts for chat-completion providers, and how their answers are read.

Every prompt asks for a factual, specific, first-person summary ("I decided…") that keeps
names, numbers, dates and decisions, within a word budget derived from the level's
length budget (:mod:`tapestryd.summarize.levels`), and for a first line ``Title: …``.
Telescoping context is given for continuity only. :data:`PROMPT_VERSION` changes whenever
the wording does, and is recorded in every NodeSummarized.
"""

from __future__ import annotations

import re

from tapestryd.errors import ProviderError
from tapestryd.summarize.base import LEVEL_NAMES, Passage, SummaryRequest
from tapestryd.summarize.levels import target_chars

__all__ = ["PROMPT_VERSION", "answer_tokens", "parse_answer", "render_messages", "word_budget"]

PROMPT_VERSION = "p1"

SYSTEM = (
    "You keep my personal memory of the conversations I have with AI assistants. Write as me, in the first "
    "person (\"I asked…\", \"I decided…\", \"we fixed…\"). Be factual and specific: keep names of people, places, "
    "projects, files and tools, numbers, dates, decisions, results and open questions. Leave out pleasantries, "
    "advice I did not take up, and anything that is not in the material. Never invent."
)

TASKS = {
    0: "Summarize this conversation I had with {agent} on {period}: what I wanted, what we found or did, "
       "what I decided and what is still open.",
    1: "Summarize my day, {period}, from the summaries of that day's conversations below.",
    2: "Summarize my week, {period}, from its daily summaries below: the threads that ran through it and what "
       "got done.",
    3: "Summarize my month, {period}, from its weekly summaries below: the main threads, what changed and what "
       "got done.",
    4: "Summarize my year, {period}, from its monthly summaries below: the main projects, turning points and "
       "results.",
}

ANSWER_FORM = ("Answer in exactly this form:\nTitle: <at most 8 words>\n\n<the summary, at most {words} words, "
               "plain prose or short bullet points>")

_TITLE_LINE = re.compile(r"^[\s#*_>-]*title[\s*_]*:[\s*_]*(.+?)[\s*_]*$", re.I)


def word_budget(request: SummaryRequest) -> int:
    """The summary's word budget: the level's character budget at six characters a word."""
    chars = sum(len(p.text) for p in request.inputs)
    return max(40, target_chars(request.level, request.source_chars, chars) // 6)


def answer_tokens(words: int) -> int:
    """``max_tokens`` to ask for: room for the title and about 1.5 tokens per word, doubled."""
    return 64 + words * 3


def render_messages(request: SummaryRequest, inputs: tuple[Passage, ...], *, carried: str = "",
                    part: tuple[int, int] = (1, 1)) -> list[dict[str, str]]:
    """The chat messages (system, user) for one call on ``inputs`` (a chunk of the request's).

    ``carried`` is the summary of the earlier chunks and ``part`` is (this chunk, chunks).
    """
    task = TASKS[request.level].format(agent=request.agent or "an AI assistant", period=request.period)
    blocks = [task]
    if request.title_hint and request.level == 0:
        blocks.append(f"The conversation is titled: {request.title_hint}")
    if request.context:
        blocks.append("For continuity, what came before (do not summarize it again; use it only to understand "
                      "references):\n" + _render(request.context))
    if part[1] > 1:
        blocks.append(f"This is part {part[0]} of {part[1]} of the material."
                      + (f" My summary of the earlier parts:\n{carried}\nUpdate it with this part and answer with "
                         "the whole updated summary." if carried else ""))
    what = "messages" if request.level == 0 else f"{LEVEL_NAMES[request.level - 1]} summaries"
    blocks.append(f"The {what}:\n" + _render(inputs))
    blocks.append(ANSWER_FORM.format(words=word_budget(request)))
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "\n\n".join(blocks)}]


def _render(passages: tuple[Passage, ...]) -> str:
    return "\n".join(f"[{p.label}] {p.text.strip()}" for p in passages)


def parse_answer(answer: str) -> tuple[str, str]:
    """``(title, summary)`` from a model's answer; raises ProviderError for an empty one.

    A first line ``Title: …`` (markdown emphasis or a heading mark allowed) gives the
    title; otherwise the first line does when it is short, else the first eight words.
    """
    lines = [line.rstrip() for line in answer.strip().splitlines()]
    if not lines or not "".join(lines).strip():
        raise ProviderError("the provider answered with an empty summary", retryable=True)
    first = _TITLE_LINE.match(lines[0])
    if first:
        title, body = first.group(1), "\n".join(lines[1:]).strip()
    elif len(lines) > 1 and len(lines[0]) <= 80:
        title, body = lines[0].strip("#*_ "), "\n".join(lines[1:]).strip()
    else:
        body = "\n".join(lines).strip()
        title = " ".join(body.split()[:8])
    return title.strip() or " ".join(body.split()[:8]), body or title
