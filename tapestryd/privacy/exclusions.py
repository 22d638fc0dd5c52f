"""Projects and agents the user never wants watched or imported (``[privacy]`` globs).

``exclude_projects`` are globs of project paths (``~`` expanded; ``*`` also crosses
``/``, as :mod:`fnmatch` does): a path is excluded when it, or any folder above it,
matches. Claude Code stores each project's sessions under a folder named after the
project path with ``/``, ``\\`` and ``.`` turned into ``-`` (``/home/me/acme`` →
``-home-me-acme``), so the same globs are also matched in that encoding, which lets the
tailer skip a folder without reading it. ``exclude_agents`` are globs of agent labels.
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass
from pathlib import PurePath

from tapestryd.config import PrivacySettings

__all__ = ["Exclusions", "encode_project_dir"]

_ENCODE = re.compile(r"[/\\.:]")


def encode_project_dir(path: str) -> str:
    """A project path as Claude Code names its folder: ``/home/me/a.b`` → ``-home-me-a-b``."""
    return _ENCODE.sub("-", path)


@dataclass(frozen=True)
class Exclusions:
    """Compiled ``exclude_projects`` / ``exclude_agents`` globs; empty excludes nothing."""

    projects: tuple[str, ...] = ()
    agents: tuple[str, ...] = ()

    @classmethod
    def from_settings(cls, privacy: PrivacySettings) -> Exclusions:
        """The exclusions of ``settings.privacy`` (``~`` in project globs expanded)."""
        projects = tuple(os.path.expanduser(p).rstrip("/") or "/" for p in privacy.exclude_projects)
        return cls(projects=projects, agents=tuple(privacy.exclude_agents))

    def excludes_agent(self, agent: str) -> bool:
        """Whether agent label ``agent`` matches an ``exclude_agents`` glob."""
        return any(fnmatch.fnmatchcase(agent, glob) for glob in self.agents)

    def excludes_project(self, path: str) -> bool:
        """Whether project path ``path`` (a session's cwd) or a folder above it is excluded."""
        if not path or not self.projects:
            return False
        pure = PurePath(os.path.expanduser(path))
        candidates = [str(pure), *(str(p) for p in pure.parents)]
        return any(fnmatch.fnmatchcase(c, glob) for c in candidates for glob in self.projects)

    def excludes_project_dir(self, dirname: str) -> bool:
        """Whether a Claude Code project folder name (``-home-me-acme``) encodes an excluded path.

        The folder of a sub-path (``-home-me-acme-web``) is excluded by ``/home/me/acme``
        too, as is any folder that merely shares the prefix: the encoding loses ``/``.
        """
        if not dirname or not self.projects:
            return False
        return any(fnmatch.fnmatchcase(dirname, encode_project_dir(glob)) or
                   fnmatch.fnmatchcase(dirname, encode_project_dir(glob) + "-*") for glob in self.projects)

    def excludes(self, *, agent: str = "", project: str = "") -> bool:
        """Whether a conversation of ``agent`` in ``project`` (either may be empty) is excluded."""
        return self.excludes_agent(agent) or self.excludes_project(project)
