"""Reads what `cluster_quality --dump-vectors DIR` wrote (model/examples/cluster_quality/dump.rs):
`{stem}.tsv` (intent index, tab, text) and `{stem}-{embedder}.f32` (little-endian rows)."""
import os
import sys

import numpy as np

DIMENSION = {"hash": 1024, "model": 384}


def read(directory, stem, embedder):
    """(labels, texts, vectors as float64 rows) of one corpus split."""
    rows = [line.rstrip("\n").split("\t", 1) for line in open(os.path.join(directory, f"{stem}.tsv"), encoding="utf-8")]
    vectors = np.fromfile(os.path.join(directory, f"{stem}-{embedder}.f32"), dtype="<f4")
    vectors = vectors.reshape(-1, DIMENSION[embedder]).astype(np.float64)
    if len(vectors) != len(rows):
        sys.exit(f"{stem}: {len(vectors)} vectors for {len(rows)} texts (wrong embedder, or a stale dump?)")
    return np.array([int(label) for label, _ in rows]), [text for _, text in rows], vectors
