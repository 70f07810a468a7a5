#!/usr/bin/env python3
"""What bounds the need ARI: the pool's needs against exact offline groupings
that use the pool's own linkage at the pool's own threshold.

For each corpus and split of a `cluster_quality --dump-vectors` directory,
and each of a few shuffled orders, the split's texts go through
`sdsi cluster` (its defaults, the same vectors as the dump); then, with the
background and need threshold that run measured (its summary line) and the
pool's centre (the mean of every vector, shortened to |m|² = background as
the pool shortens it), two exact offline groupings by average linkage on
the centred link `(v_i − m) · (v_j − m) / (1 − |m|²)`, best pair first,
stopping at the centred threshold `(t − |m|²) / (1 − |m|²)` and at ± 0.05,
± 0.1 around it:

- over the pool's own fine clusters (each a running sum, as the need level
  links them): what an exact regroup of the fine clusters could reach;
- over every text at once (scipy): what any grouping of these vectors by
  this linkage at this threshold reaches, online or not.

    cargo run --release -p sdsi-model --example cluster_quality -- \\
        --banking77 DIR --hwu64 DIR --model MODEL_DIR --dump-vectors VEC
    scripts/need-bound.py --vectors VEC --sdsi target/release/sdsi [--model MODEL_DIR] [--orders 3] [--threshold X]

Without --model the hashing embedder's vectors (`*-hash.f32`) are used.
Needs numpy, scipy and scikit-learn (a measurement, not a test dependency).
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

import numpy as np
from scipy.cluster.hierarchy import fcluster, linkage
from sklearn.metrics import adjusted_rand_score

sys.path.insert(0, os.path.dirname(__file__))
import vector_dump  # noqa: E402

OFFSETS = (-0.1, -0.05, 0.0, 0.05, 0.1)


def cluster(sdsi, model, texts, threshold=None):
    """`sdsi cluster` over `texts`: (fine cluster per line, need per line, summary)."""
    with tempfile.NamedTemporaryFile("w", suffix=".txt", encoding="utf-8", delete=False) as f:
        f.write("\n".join(texts) + "\n")
    try:
        command = [sdsi, "cluster", f.name] + (["--model", model] if model else [])
        command += ["--threshold", str(threshold)] if threshold is not None else []
        lines = subprocess.run(command, capture_output=True, text=True, check=True).stdout.splitlines()
    finally:
        os.unlink(f.name)
    objects = [json.loads(line) for line in lines]
    final = next(o["final"] for o in objects if "final" in o)
    summary = next(o["summary"] for o in objects if "summary" in o)
    return np.array(final["clusters"]), np.array(final["needs"]), summary


def shortened_centre(vectors, background):
    m = vectors.mean(0)
    squared = float(m @ m)
    return m * min(1.0, np.sqrt(max(background, 0.0) / squared)) if squared > 0 else m


def regroup(sums, counts, m, thresholds):
    """Exact average linkage over groups given by their sums and sizes, on
    the centred link, best pair first: the grouping (a label per group) at
    each threshold, highest first."""
    scale = 1.0 - float(m @ m)
    centred = sums - counts[:, None] * m
    n = counts.astype(np.float64).copy()
    links = centred @ centred.T / np.outer(n, n) / scale
    np.fill_diagonal(links, -np.inf)
    owner = np.arange(len(n))
    out = {}
    for t in sorted(thresholds, reverse=True):
        while len(n) > 1:
            a, b = np.unravel_index(np.argmax(links), links.shape)
            if links[a, b] < t:
                break
            centred[a] += centred[b]
            n[a] += n[b]
            owner[owner == b] = a
            links[b, :] = -np.inf
            links[:, b] = -np.inf
            row = centred @ centred[a] / (n * n[a]) / scale
            row[owner != np.arange(len(n))] = -np.inf  # groups merged away
            row[a] = -np.inf
            links[a, :] = row
            links[:, a] = row
        out[t] = owner.copy()
    return out


def texts_grouped(vectors, m, thresholds):
    """Exact average linkage over every vector on the centred link (scipy's
    UPGMA on the distance top − link), cut at each threshold."""
    centred = vectors - m
    similarity = centred @ centred.T / (1.0 - float(m @ m))
    upper = similarity[np.triu_indices(len(vectors), 1)]
    # Average linkage is unchanged by a shift; the centred link may pass 1.
    top = max(1.0, float(upper.max()))
    tree = linkage(top - upper, "average")
    return {t: fcluster(tree, top - t, "distance") for t in thresholds}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--vectors", required=True)
    parser.add_argument("--sdsi", default=os.path.join(os.path.dirname(__file__), "..", "target", "release", "sdsi"))
    parser.add_argument("--model", help="the sentence-transformer directory; without it, the hashing embedder")
    parser.add_argument("--threshold", type=float, help="the fine threshold, passed to sdsi cluster (default: the embedder's)")
    parser.add_argument("--orders", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    embedder = "model" if args.model else "hash"
    for corpus in ("Banking77", "HWU64"):
        for split, tag in (("calibration", "cal"), ("held-out", "held")):
            stem = f"{corpus}-{tag}"
            if not os.path.exists(os.path.join(args.vectors, f"{stem}-{embedder}.f32")):
                continue
            labels, texts, vectors = vector_dump.read(args.vectors, stem, embedder)
            kept = np.flatnonzero(np.linalg.norm(vectors, axis=1) > 0)  # what the pool embeds at all
            rng = random.Random(args.seed)
            rows = []
            offline_texts = None
            for _ in range(args.orders):
                order = list(kept)
                rng.shuffle(order)
                fine, needs, summary = cluster(args.sdsi, args.model, [texts[i] for i in order], args.threshold)
                truth, V = labels[order], vectors[order]
                background = summary.get("background") or 0.0
                m = shortened_centre(V, background)
                t = (summary["need_threshold"] - m @ m) / (1 - m @ m)
                thresholds = [round(float(t) + d, 4) for d in OFFSETS]
                ids = np.unique(fine)
                sums = np.array([V[fine == k].sum(0) for k in ids])
                counts = np.array([(fine == k).sum() for k in ids])
                grouped = regroup(sums, counts, m, thresholds)
                index = {k: i for i, k in enumerate(ids)}
                position = np.array([index[f] for f in fine])
                over_fine = [adjusted_rand_score(truth, grouped[th][position]) for th in thresholds]
                if offline_texts is None:  # order-free: once, with this order's centre and threshold
                    cut = texts_grouped(V, m, thresholds)
                    offline_texts = [adjusted_rand_score(truth, cut[th]) for th in thresholds]
                rows.append((adjusted_rand_score(truth, needs), adjusted_rand_score(truth, fine), float(t), over_fine))
            print(json.dumps({
                "corpus": corpus, "split": split, "embedder": embedder, "orders": args.orders,
                "pool_needs_ari": round(float(np.mean([r[0] for r in rows])), 3),
                "pool_fine_ari": round(float(np.mean([r[1] for r in rows])), 3),
                "centred_threshold": round(float(np.mean([r[2] for r in rows])), 3),
                "offsets": list(OFFSETS),
                "regroup_fine_ari": [round(float(np.mean([r[3][k] for r in rows])), 3) for k in range(len(OFFSETS))],
                "offline_texts_ari": [round(x, 3) for x in offline_texts],
            }), flush=True)


if __name__ == "__main__":
    main()
