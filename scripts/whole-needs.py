#!/usr/bin/env python3
"""What bounds the burst measure: how many needs an offline grouping keeps whole.

The gate opens on a need's heat; with the CLI's defaults (gate 50, half-life
24 h) a need of 100 requests over 36 hours peaks near 62, so a need opens on
its own heat only when one group holds about 80 % of its requests. This
script asks how many of `scripts/bursts.py`'s needs an *offline* grouping
keeps that whole and apart: every request of a stream grouped at once by
average linkage (scikit-learn), on the plain cosine and from the stream's
centre, at each distance threshold from 0.40 to 1.20 by 0.05, the best
threshold chosen on these very streams (an optimistic bound). A need counts
when one group holds at least 80 of its 100 requests and is the largest
group of no other need. The pool's own figure, with support from neighbours,
is the burst measure's "exactly one key" (docs/measurements/evolution.md).

Vectors come from the embedders themselves:

    cargo run --release -p sdsi-model --example cluster_quality -- \\
        --banking77 DIR --hwu64 DIR --model MODEL_DIR --dump-vectors VEC
    scripts/whole-needs.py --vectors VEC --banking77 DIR --hwu64 DIR --embedder model|hash \\
        [--split held-out|calibration] [--seeds 1-6]

Needs numpy and scikit-learn (a measurement, not a test dependency).
"""
import argparse
import json
import os
import sys
import tempfile
from collections import Counter

import numpy as np
from sklearn.cluster import AgglomerativeClustering

sys.path.insert(0, os.path.dirname(__file__))
import bursts  # noqa: E402
import vector_dump  # noqa: E402
from vector_dump import DIMENSION  # noqa: E402

NAME = {"banking77": "Banking77", "hwu64": "HWU64"}
WHOLE = 80


def vectors(directory, corpus, split, embedder):
    tag = "held" if split == "held-out" else "cal"
    _, texts, rows = vector_dump.read(directory, f"{NAME[corpus]}-{tag}", embedder)
    return {" ".join(t.split()): rows[i] for i, t in enumerate(texts)}


def whole_needs(stream, truth, vector_of, dimension):
    """Needs kept whole and apart, per (centred, distance)."""
    texts = [e["message"]["payload"]["other"] for e in stream]
    missing = [t for t in texts if " ".join(t.split()) not in vector_of]
    if missing:
        sys.exit(f"{len(missing)} texts of the stream are not in the dump, e.g. {missing[0]!r}")
    V = np.array([vector_of[" ".join(t.split())] for t in texts])
    intent = [None if e["client"].startswith("one-off") else truth["intent_of"].get(bursts.normal(t))
              for t, e in zip(texts, stream)]
    embedded = np.linalg.norm(V, axis=1) > 0
    counts = Counter()
    for centred in (False, True):
        W = V[embedded] - (V[embedded].mean(0) if centred else 0)
        W = W / np.linalg.norm(W, axis=1, keepdims=True)
        for distance in np.round(np.arange(0.40, 1.21, 0.05), 2):
            groups = np.full(len(V), -1)
            groups[embedded] = AgglomerativeClustering(
                n_clusters=None, metric="cosine", linkage="average", distance_threshold=distance
            ).fit_predict(W)
            top = {}
            for need in truth["needs"]:
                mine = Counter(groups[i] for i in range(len(V)) if intent[i] == need and groups[i] >= 0)
                top[need] = mine.most_common(1)[0] if mine else (-2, 0)
            owners = Counter(group for group, _ in top.values())
            counts[(centred, float(distance))] += sum(
                held >= WHOLE and owners[group] == 1 for group, held in top.values())
    return counts


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--vectors", required=True)
    parser.add_argument("--banking77")
    parser.add_argument("--hwu64")
    parser.add_argument("--embedder", choices=sorted(DIMENSION), required=True)
    parser.add_argument("--split", choices=["held-out", "calibration"], default="held-out")
    parser.add_argument("--seeds", default="1-6")
    args = parser.parse_args()
    for corpus, data in (("banking77", args.banking77), ("hwu64", args.hwu64)):
        if not data:
            continue
        vector_of = vectors(args.vectors, corpus, args.split, args.embedder)
        counts = Counter()
        seeds = bursts.seeds(args.seeds)
        for seed in seeds:
            with tempfile.TemporaryDirectory() as tmp:
                bursts.generate(corpus, data, seed, tmp, args.split)
                stream = [json.loads(line) for line in open(os.path.join(tmp, "events.jsonl"))]
                truth = json.load(open(os.path.join(tmp, "truth.json")))
            counts.update(whole_needs(stream, truth, vector_of, DIMENSION[args.embedder]))
        best = {c: max((n, d) for (cc, d), n in counts.items() if cc == c) for c in (False, True)}
        print(json.dumps({"corpus": corpus, "embedder": args.embedder, "split": args.split,
                          "needs": 8 * len(seeds),
                          "whole_plain": {"needs": best[False][0], "distance": best[False][1]},
                          "whole_centred": {"needs": best[True][0], "distance": best[True][1]}}), flush=True)


if __name__ == "__main__":
    main()
