"""The names a message calls the one it answers: an opening greeting's, then each closing one's."""

from __future__ import annotations

import pytest

from tapestryd.vocatives import vocatives


@pytest.mark.parametrize(("text", "names"), [
    ("Hey Mel! Good to see you. That's great, Caroline!", ["Mel", "Caroline"]),
    ("I went hiking (finally), Jon? Yes.", ["Jon"]),  # a closing after a bracket
    ("We met , Jon! then left", []),  # a comma after a space closes nothing
    ("Thanks, John!", ["John", "John"]),  # an opening that is a closing too, counted by both
    ("Hey there! Thanks, everyone!", []),
    ('It prints "Hello, Alice!" and `Hi, Bob!`', []),
    ("```\nHi Sam!\n```\nsee, Max!", ["Max"]),
    ("That was fun, Jo-Ann? sure", ["Jo-Ann"]),
    # The code and quote substitutions run only when a text holds a backtick or a quote, and the closing
    # scan only when it holds ! or ?: what each takes out can bring a greeting and a name together.
    ("Hey `x` Bob, hi", ["Bob"]),
    ('Great, "so" Ann! yes', ["Ann"]),
    ("Hi Ann, how are you", ["Ann"]),  # an opening needs no ! or ?
    ("Thanks for that, Ann. Bye", []),
])
def test_names_called_in_a_message(text: str, names: list[str]) -> None:
    assert vocatives(text) == names
