"""Benchmark: MCP tool latency through a running daemon at 100,000 messages.

Run: python bench/mcp_bench.py [--messages 100000] [--repeats 100]

Builds (once, then reuses) ``bench/out/mcp-home`` with :func:`query_bench.build` (generated
conversations over two years for three agents, every past day closed and summarized), starts
``tapestryd`` on it and waits for its warm index, then starts ``tapestryctl mcp`` and calls
each tool ``--repeats`` times through the MCP SDK's own stdio client, timing every
``call_tool`` round trip as an AI client sees it (JSON-RPC over the pipes, the tool, the
socket request to the daemon, the answer). For comparison, each ``search`` is also sent
straight over the socket just before. Prints p50/p95 per tool, with the CPU time the daemon and the
MCP server spent a call, and writes ``bench/out/mcp_bench.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from daemon_common import cpu_seconds
from query_bench import PROJECTS, build, queries, start_daemon, stats, wait_warm

from tapestryd.config import load_settings
from tapestryd.wire.client import request
from tapestryd.paths import paths_for

OUT = Path(__file__).resolve().parent / "out"
HOME = OUT / "mcp-home"
ROOT = Path(__file__).resolve().parents[1]


def tool_calls(repeats: int, message_ids: list[int]) -> dict[str, list[dict[str, Any]]]:
    """The arguments of each measured tool call, ``repeats`` per tool, varied like an AI's."""
    rng, qs = random.Random(7), queries(repeats)
    months = [f"2025-{m:02d}" for m in range(1, 13)]
    periods = ["yesterday", "last week", "last month", *months]
    return {
        "search": [{"query": q} for q in qs["plain"]],
        "search_time_phrase": [{"query": q} for q in qs["timed"]],
        "search_project": [{"query": q, "project": rng.choice(PROJECTS)} for q in qs["plain"]],
        "timeline": [{"when": rng.choice(periods)} for _ in range(repeats)],
        "get_messages": [{"message_ids": [rng.choice(message_ids)], "before": 2, "after": 2} for _ in range(repeats)],
        "context": [{"project": rng.choice(PROJECTS), "max_tokens": 2000} for _ in range(repeats)],
        "similar": [{"text": q} for q in qs["similar"]],
    }


async def measure_tools(home: Path, calls: dict[str, list[dict[str, Any]]], daemon_pid: int) -> dict[str, Any]:
    """Time each call through a fresh ``tapestryctl mcp`` over stdio; errors are counted, never hidden.

    Each ``search`` is also sent straight over the socket just before (``socket_search``), so
    the two are compared on the same queries under the same load: the difference is what the
    MCP layer adds. Per tool, the CPU time the daemon and the MCP server spent is divided by
    the calls (``daemon_cpu_ms``, ``server_cpu_ms``; for ``search`` the daemon's includes the
    socket twin's), which a loaded machine moves less than the wall time.
    """
    sock, socket_times = paths_for(load_settings(home)).socket, []
    env = {**os.environ, "TAPESTRY_HOME": str(home)}
    params = StdioServerParameters(command=sys.executable, args=["-m", "tapestryd.cli", "mcp"], env=env, cwd=ROOT)
    results: dict[str, Any] = {}
    with (OUT / "mcp_bench_server.log").open("w") as errlog:
        began = time.perf_counter()
        async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=120) as client:
            results["start_and_initialize_s"] = round(time.perf_counter() - began, 2)
            server_pid = _server_pid()
            for name, arg_list in calls.items():
                tool = "search" if name.startswith("search") else name
                times, errors, sizes = [], 0, []
                cpu = cpu_seconds(daemon_pid), cpu_seconds(server_pid)
                for args in arg_list:
                    if name == "search":  # the same query straight over the socket, just before
                        t0 = time.perf_counter()
                        request(sock, "search", {**args, "limit": 10}, timeout=30)
                        socket_times.append(time.perf_counter() - t0)
                    t0 = time.perf_counter()
                    answer = await client.call_tool(tool, args)
                    times.append(time.perf_counter() - t0)
                    errors += bool(answer.is_error)
                    sizes.append(len(answer.content[0].text) if answer.content else 0)
                daemon_cpu, server_cpu = ((cpu_seconds(pid) - before) * 1000 / len(arg_list)
                                          for pid, before in zip((daemon_pid, server_pid), cpu))
                results[name] = {**stats(times), "errors": errors, "median_chars": sorted(sizes)[len(sizes) // 2],
                                 "daemon_cpu_ms": round(daemon_cpu, 1), "server_cpu_ms": round(server_cpu, 1)}
                print(f"  {name:20s} p50 {results[name]['median_ms']:8.2f} ms  p95 {results[name]['p95_ms']:8.2f} ms"
                      f"  CPU a call: daemon {daemon_cpu:6.1f} ms, MCP server {server_cpu:6.1f} ms  errors {errors}",
                      flush=True)
        results["socket_search"] = stats(socket_times)
    return results


def _server_pid() -> int:
    """The pid of the ``tapestryctl mcp`` this process started (a child running ``tapestryd.cli mcp``)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            command = (stat.parent / "cmdline").read_bytes().split(b"\0")
        except (OSError, IndexError, ValueError):
            continue
        if ppid == os.getpid() and b"tapestryd.cli" in command and b"mcp" in command:
            return int(stat.parent.name)
    raise SystemExit("the MCP server process was not found")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=100)
    parser.add_argument("--home", type=Path, default=HOME)
    args = parser.parse_args(argv)
    OUT.mkdir(exist_ok=True)
    built = json.loads((args.home / "built.json").read_text()) if (args.home / "built.json").exists() else None
    if built is None or built["messages"] != args.messages:
        print(f"building {args.home} with {args.messages} messages (once)", flush=True)
        build(args.home, args.messages)
        built = json.loads((args.home / "built.json").read_text())
    sock = paths_for(load_settings(args.home)).socket
    proc = start_daemon(args.home)
    try:
        warm_s, _ = wait_warm(sock)
        hits = request(sock, "search", {"query": "sqlite index", "limit": 200}, timeout=60)["hits"]
        ids = [h["id"] for h in hits if h["kind"] == "message"] or [1]
        calls = tool_calls(args.repeats, ids)
        report: dict[str, Any] = {"built": built, "repeats": args.repeats, "index_ready_after_s": round(warm_s, 1),
                                  "machine": f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f} at start"}
        report["tools"] = asyncio.run(measure_tools(args.home, calls, proc.pid))
        socket = report["tools"]["socket_search"]
        print(f"  {'socket search':20s} p50 {socket['median_ms']:8.2f} ms  p95 {socket['p95_ms']:8.2f} ms "
              "(the same queries)", flush=True)
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    (OUT / "mcp_bench.json").write_text(json.dumps(report, indent=2))
    print(f"wrote {OUT / 'mcp_bench.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
