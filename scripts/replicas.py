#!/usr/bin/env python3
"""Replicas against one process: the throughput measure of benches/README.md.

Builds a long stream from several burst streams (scripts/bursts.py generate,
held-out split, one per seed, each shifted two days after the last), then
times, on a throwaway PostgreSQL server (run it under scripts/with-postgres.sh):

- `plain`: one `sdsi evolve` over the file, no database;
- `one`:   one `sdsi evolve --state postgresql://… --replica one -`;
- `three`: three such replicas, each line dealt to one of them at random in
           time order, as fast as they take it (a load balancer).

Each configuration runs in a fresh database, --runs times; it prints the
median wall time of each and the ratios, and checks that `one` and `three`
propose the same keys as `plain`, with no error event.

    bash scripts/with-postgres.sh python3 scripts/replicas.py \
        --sdsi target/release/sdsi --banking77 ../shared/data/banking77 --seeds 1-8
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timedelta, timezone

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bursts  # noqa: E402


def long_stream(corpus, data, seeds, out):
    """The seeds' streams one after another, two days apart."""
    lines = []
    for k, seed in enumerate(seeds):
        part = bursts.generate(corpus, data, seed, os.path.join(out, f"seed{seed}"))
        with open(os.path.join(part, "events.jsonl")) as f:
            for line in f:
                event = json.loads(line)
                at = datetime.strptime(event["at"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
                event["at"] = (at + timedelta(days=2 * k)).strftime("%Y-%m-%dT%H:%M:%SZ")
                lines.append(json.dumps(event) + "\n")
    events = os.path.join(out, "events.jsonl")
    with open(events, "w") as f:
        f.writelines(lines)
    return events, os.path.join(out, f"seed{seeds[0]}", "template.json"), lines


def server():
    params = dict(kv.split("=", 1) for kv in os.environ["SDSI_TEST_POSTGRES"].split())
    return params


def fresh_url(params, name):
    conn = f"host={params['host']} port={params['port']} user={params['user']} dbname={params['dbname']}"
    for sql in (f"DROP DATABASE IF EXISTS {name}", f"CREATE DATABASE {name}"):
        subprocess.run(["psql", conn, "-q", "-c", sql], check=True, capture_output=True)
    return f"postgresql://{params['user']}@localhost:{params['port']}/{name}?host={params['host']}"


def keys(outputs):
    found, errors = [], []
    for output in outputs:
        for line in output.splitlines():
            event = json.loads(line)
            if event["event"] in ("proposed", "held"):
                found += [(event["event"], k["key_name"]) for k in event["patch"]["new_keys"]]
            if event["event"] == "error":
                errors.append(line)
    return sorted(found), errors


def run_replicas(sdsi, template, lines, url, n, extra, seed):
    procs = [
        subprocess.Popen(
            [sdsi, "evolve", "--schema", template, "--state", url, "--replica", f"r{i}", *extra, "-"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )
        for i in range(n)
    ]
    outputs = [None] * n

    def drain(i):
        outputs[i] = procs[i].stdout.read().decode()

    readers = [threading.Thread(target=drain, args=(i,)) for i in range(n)]
    for r in readers:
        r.start()
    rng = random.Random(seed)
    start = time.perf_counter()
    for line in lines:
        procs[rng.randrange(n)].stdin.write(line.encode())
    for p in procs:
        p.stdin.close()
    for p in procs:
        p.wait()
    elapsed = time.perf_counter() - start
    for r in readers:
        r.join()
    return elapsed, outputs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sdsi", required=True)
    parser.add_argument("--banking77", required=True)
    parser.add_argument("--seeds", default="1-8")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--replicas", type=int, default=3)
    parser.add_argument("--model")
    parser.add_argument("--whole-state", action="store_true",
                        help="the replicas save the state as one blob (sdsi evolve --whole-state)")
    args = parser.parse_args()
    seeds = bursts.seeds(args.seeds)
    extra = ["--model", args.model] if args.model else []
    replica_extra = extra + (["--whole-state"] if args.whole_state else [])
    params = server()
    with tempfile.TemporaryDirectory() as tmp:
        events, template, lines = long_stream("banking77", args.banking77, seeds, tmp)
        times = {"plain": [], "one": [], "three": []}
        for run in range(args.runs):
            start = time.perf_counter()
            plain = subprocess.run([args.sdsi, "evolve", "--schema", template, *extra, events],
                                   capture_output=True, text=True, check=True).stdout
            times["plain"].append(time.perf_counter() - start)
            expected, errors = keys([plain])
            assert not errors, errors
            elapsed, out = run_replicas(args.sdsi, template, lines, fresh_url(params, "sdsi_bench_one"),
                                        1, replica_extra, run)
            times["one"].append(elapsed)
            assert keys(out) == (expected, []), (keys(out), expected)
            elapsed, out = run_replicas(args.sdsi, template, lines, fresh_url(params, "sdsi_bench_three"),
                                        args.replicas, replica_extra, run)
            times["three"].append(elapsed)
            got, errors = keys(out)
            assert not errors, errors
            if got != expected:
                print(f"run {run}: three replicas proposed {got}, one process {expected}", file=sys.stderr)
            print(f"run {run}: " + ", ".join(f"{k} {v[-1]:.2f} s" for k, v in times.items()), file=sys.stderr)
        median = {k: statistics.median(v) for k, v in times.items()}
        print(json.dumps({
            "lines": len(lines), "seeds": args.seeds, "runs": args.runs, "replicas": args.replicas,
            "embedder": "model" if args.model else "hashing", "keys": len(expected),
            "whole_state": args.whole_state,
            "median_seconds": {k: round(v, 2) for k, v in median.items()},
            "three_over_one": round(median["three"] / median["one"], 2),
            "three_over_plain": round(median["three"] / median["plain"], 2),
            "one_over_plain": round(median["one"] / median["plain"], 2),
        }))


if __name__ == "__main__":
    main()
