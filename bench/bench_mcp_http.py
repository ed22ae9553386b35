"""MCP over HTTP under load: one ``memlens mcp --http`` process on the demo root, many clients.

    python bench/bench_mcp_http.py [--clients 50] [--calls 100] [--soak 10000] [--root DIR]

Starts the server as its own process (``python -m mcp_server --root R --http 127.0.0.1:PORT``),
then one client makes 200 calls (the latency of a call alone), ``--clients`` threads each make ``--calls`` tool calls over keep-alive connections (search
tools over a set of questions, status and timeline now and then), and prints errors, p50/p95
per call, throughput and the server's RSS before and after. ``--soak`` more calls follow (10
clients) with the server's RSS sampled every tenth of them: flat means no per-call leak. The
demo root is generated and indexed under the bench cache once.
"""

from __future__ import annotations

import argparse
import itertools
import json
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from common import BENCH_CACHE, REPO, machine, percentiles

CALLS = [
    ("hybrid_search", {"query": "dinner with maya", "limit": 10}),
    ("hybrid_search", {"query": "what did the doctor say about sleep", "limit": 10}),
    ("keyword_search", {"query": "climbing", "limit": 10}),
    ("semantic_search", {"query": "feeling tired after work", "limit": 10}),
    ("hybrid_search", {"query": "budget meeting last week", "limit": 10}),
    ("index_status", {}),
    ("hybrid_search", {"query": "book recommendations", "limit": 20}),
    ("timeline", {"when": "last month"}),
]


def demo_root(path: Path) -> Path:
    if not (path / ".memlens-demo.json").exists():
        from engine.config import load_config
        from engine.demo import generate_demo_root
        from engine.indexer import reindex

        generate_demo_root(path)
        reindex(config=load_config(path))
    return path


def server_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_clients(url: str, token: str, clients: int, calls: int, on_call=None):
    """(latencies ms, errors) of ``clients`` threads × ``calls`` calls each."""
    import httpx

    latencies: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    counter = itertools.count()
    headers = {"Content-Type": "application/json", "Accept": "application/json",
               "Authorization": f"Bearer {token}"}

    def client(k: int) -> None:
        with httpx.Client(headers=headers, timeout=60) as c:
            for i in range(calls):
                name, args = CALLS[(k + i) % len(CALLS)]
                body = {"jsonrpc": "2.0", "id": i, "method": "tools/call",
                        "params": {"name": name, "arguments": args}}
                t = time.perf_counter()
                try:
                    r = c.post(url, content=json.dumps(body))
                    ok = r.status_code == 200 and r.json()["result"]["isError"] is False
                    why = None if ok else f"{r.status_code} {r.text[:120]}"
                except Exception as exc:  # noqa: BLE001 - counted, the run goes on
                    why = repr(exc)
                ms = (time.perf_counter() - t) * 1000
                with lock:
                    latencies.append(ms)
                    if why:
                        errors.append(why)
                n = next(counter)
                if on_call is not None:
                    on_call(n)

    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return latencies, errors


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--calls", type=int, default=100)
    ap.add_argument("--soak", type=int, default=10_000)
    ap.add_argument("--root", type=Path, default=BENCH_CACHE / "demo-mcp")
    args = ap.parse_args()
    root = demo_root(args.root)
    port = free_port()
    log = open(root.parent / "bench-mcp-http.log", "w")  # noqa: SIM115
    server = subprocess.Popen([sys.executable, "-m", "mcp_server", "--root", str(root),
                               "--http", f"127.0.0.1:{port}"], cwd=REPO, stderr=log,
                              stdout=subprocess.DEVNULL)
    try:
        from mcp_server.http import read_token

        url = f"http://127.0.0.1:{port}/mcp"
        deadline = time.monotonic() + 60
        token = None
        while True:
            token = token or read_token(root)
            if token:
                try:
                    lat, err = run_clients(url, token, 1, 1)
                    if not err:
                        break
                except Exception:  # noqa: BLE001 - not up yet
                    pass
            if time.monotonic() > deadline or server.poll() is not None:
                raise SystemExit("the server did not start: see " + log.name)
            time.sleep(0.2)
        print(f"machine: {machine()}; demo root {root}")
        alone, alone_err = run_clients(url, token, 1, 200)
        a = percentiles(alone)
        print(f"\none client: 200 calls, {len(alone_err)} errors; p50 {a['p50']} ms, "
              f"p95 {a['p95']} ms")
        rss0 = server_rss_mb(server.pid)
        t = time.perf_counter()
        lat, err = run_clients(url, token, args.clients, args.calls)
        wall = time.perf_counter() - t
        rss1 = server_rss_mb(server.pid)
        p = percentiles(lat)
        print(f"\nload: {args.clients} clients × {args.calls} calls = {len(lat)} calls, "
              f"{len(err)} errors; p50 {p['p50']} ms, p95 {p['p95']} ms, max {p['max']} ms; "
              f"{len(lat) / wall:.0f} calls/s; server RSS {rss0:.0f} → {rss1:.0f} MiB")
        for e in err[:5]:
            print("  error:", e)
        samples = []
        step = max(1, args.soak // 10)

        def sample(n: int) -> None:
            if (n + 1) % step == 0:
                samples.append(round(server_rss_mb(server.pid)))

        clients = 10
        lat2, err2 = run_clients(url, token, clients, args.soak // clients, sample)
        p2 = percentiles(lat2)
        print(f"soak: {len(lat2)} calls, {len(err2)} errors; p50 {p2['p50']} ms, p95 "
              f"{p2['p95']} ms; server RSS every {step} calls (MiB): {samples}")
    finally:
        server.terminate()
        server.wait(10)
        log.close()


if __name__ == "__main__":
    main()
