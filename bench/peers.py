#!/usr/bin/env python3
"""The peer side of `cargo xtask compare`: scikit-learn's CART and other peers on ltu's exact folds.

Input: the JSON that `cargo xtask compare` writes (target/compare/folds.json). For every
dataset it holds the data exactly as ltu loaded it (attribute kinds, values as numbers with
null for missing, class indices) and every fold's train and test row indices, plus the
training-fold mean of each numeric attribute (what ltu puts in place of a missing number).

For each fold this script
  - encodes like ltu: numeric attributes as they are, a missing number replaced by the
    training-fold mean; categorical attributes one-hot, a missing category as all zeros
    (ltu's "unknown": every one of its equality features is off);
  - fits DecisionTreeClassifier(random_state=0) with default parameters and predicts the
    test rows, timing encode + fit + predict with time.perf_counter;
  - fits and times the other peers (`PEERS`: logistic regression and an MLP on standardized
    inputs, a 10-tree random forest) the same way, on the same encoded inputs, recording
    whether each fit converged (no ConvergenceWarning) and its iteration count;
  - measures the size of the same tree as emlearn C code ("loadable" method, emlearn's
    default int16 node layout): generates the C, compiles it with `gcc -Os -c` and sums the
    sizes of the model's arrays (nodes, tree roots, leaves) read with `nm -S`; their element
    types (int8/int16/int32 fields) have the same size and alignment on x86-64 and on a
    Cortex-M. The EmlTrees descriptor holds pointers, so its 32-bit size (28 bytes) is added
    from the header rather than measured on this 64-bit host. Without emlearn or gcc, or when
    the tree has more inputs than emlearn's int8 feature index holds, the size is estimated
    from emlearn 0.23's layout instead and the output says so.

With --recordings (target/compare/recordings.json), also the peers of the sensor-recording
sets, defined and run by bench/series_peers.py, under `recordings` in the output.

Output: one JSON object (see `main`), written to --out.
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
import sklearn
from sklearn.ensemble import RandomForestClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier
from threadpoolctl import threadpool_limits  # a scikit-learn dependency

import series_peers  # beside this script: the peers of the sensor-recording sets

try:
    import emlearn
except ImportError:  # reported in the output, sizes become estimates
    emlearn = None

# emlearn 0.23 eml_trees.h: EmlTreesNode { int8_t feature; int16_t value; int16_t left;
# int16_t right; } is 8 bytes with padding; leaves are uint8_t class indices (duplicates merged);
# tree_roots is int32_t[n_trees]; the EmlTrees descriptor is 6 four-byte fields and 3 int8_t,
# 28 bytes on a 32-bit target.
NODE_BYTES = 8
ROOT_BYTES = 4
DESCRIPTOR_BYTES = 28
MAX_LOADABLE_FEATURES = 127

# numpy's default floating-point error handling (see peer_fold).
NUMPY_DEFAULTS = {"divide": "warn", "over": "warn", "under": "ignore", "invalid": "warn"}

# The peers besides CART: (key, label, constructor). Everything not named is scikit-learn's
# default; max_iter is raised so that the fits converge (each fold records whether it did).
PEERS = [
    ("lr", "logistic regression",
     lambda: make_pipeline(StandardScaler(), LogisticRegression(max_iter=10000, random_state=0))),
    ("mlp", "MLP",
     lambda: make_pipeline(StandardScaler(), MLPClassifier(max_iter=5000, random_state=0))),
    ("rf", "random forest",
     lambda: RandomForestClassifier(n_estimators=10, random_state=0)),
]


def layout_estimate(clf):
    """emlearn's size for a fitted tree, from its node layout (no compiler involved)."""
    tree = clf.tree_
    internal = int(np.sum(tree.children_left != -1))
    leaf_ids = np.flatnonzero(tree.children_left == -1)
    classes = {int(np.argmax(tree.value[i][0])) for i in leaf_ids}
    # A single-leaf tree gets one dummy decision node.
    return NODE_BYTES * max(internal, 1) + len(classes) + ROOT_BYTES + DESCRIPTOR_BYTES


def compiled_size(clf, workdir):
    """Bytes of the emlearn model's data (arrays compiled, descriptor for a 32-bit target), or
    None and why not."""
    if emlearn is None:
        return None, "emlearn is not installed"
    if clf.n_features_in_ > MAX_LOADABLE_FEATURES:
        return None, f"{clf.n_features_in_} inputs exceed emlearn's int8 feature index"
    model = emlearn.convert(clf, method="loadable", dtype="int16_t")
    src = os.path.join(workdir, "model.c")
    obj = os.path.join(workdir, "model.o")
    code = model.save(name="model", include_proba=False)
    with open(src, "w") as f:
        f.write(code)
    cc = ["gcc", "-Os", "-w", "-c", "-I", emlearn.includedir, src, "-o", obj]
    try:
        subprocess.run(cc, check=True, capture_output=True)
        nm = subprocess.run(["nm", "-S", "--defined-only", obj], check=True, capture_output=True, text=True)
    except (OSError, subprocess.CalledProcessError) as e:
        return None, f"could not compile emlearn's C with gcc ({e})"
    wanted = {"model_nodes", "model_tree_roots", "model_leaves"}
    total, seen = DESCRIPTOR_BYTES, set()
    for line in nm.stdout.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[3] in wanted:
            total += int(parts[1], 16)
            seen.add(parts[3])
    if seen != wanted:
        return None, f"symbols {sorted(wanted - seen)} not found in the compiled emlearn model"
    return total, None


def encode(ds, rows, means):
    """The rows' inputs: numbers as they are (missing: training mean), categories one-hot."""
    x = ds["_x"][rows]
    columns = []
    for j, attr in enumerate(ds["attributes"]):
        col = x[:, j]
        if attr["kind"] == "numeric":
            columns.append(np.where(np.isnan(col), means[j], col)[:, None])
        else:
            onehot = np.zeros((len(rows), max(attr["n_values"], 1)))
            present = ~np.isnan(col)
            onehot[np.flatnonzero(present), col[present].astype(int)] = 1.0
            columns.append(onehot)
    return np.hstack(columns)


def run_dataset(ds, workdir):
    ds["_x"] = np.array(ds["x"], dtype=float)  # null -> nan
    y = np.array(ds["y"])
    folds = []
    for fold in ds["folds"]:
        train, test = np.array(fold["train"]), np.array(fold["test"])
        start = time.perf_counter()
        xtr = encode(ds, train, fold["numeric_means"])
        xte = encode(ds, test, fold["numeric_means"])
        clf = DecisionTreeClassifier(random_state=0)
        clf.fit(xtr, y[train])
        pred = clf.predict(xte)
        seconds = time.perf_counter() - start
        size, why = compiled_size(clf, workdir)
        folds.append(
            {
                "accuracy": float(np.mean(pred == y[test])),
                "seconds": seconds,
                "nodes": int(clf.tree_.node_count),
                "leaves": int(clf.get_n_leaves()),
                "depth": int(clf.get_depth()),
                "inputs": int(xtr.shape[1]),
                "emlearn_bytes": size if size is not None else layout_estimate(clf),
                "emlearn_layout_bytes": layout_estimate(clf),
                "emlearn_estimated": size is None,
                "emlearn_note": why,
            }
        )
    peers = {}
    for key, _, make in PEERS:
        peers[key] = [peer_fold(ds, y, fold, make) for fold in ds["folds"]]
    return {"name": ds["name"], "folds": folds, "peers": peers}


def n_iter(model):
    """The iteration count of a fitted pipeline's last step, if it has one."""
    last = model.steps[-1][1] if hasattr(model, "steps") else model
    it = getattr(last, "n_iter_", None)
    if it is None:
        return None
    return int(np.max(it))


def peer_fold(ds, y, fold, make):
    """One fold of a peer: encode (as for CART), fit, predict; timed together."""
    train, test = np.array(fold["train"]), np.array(fold["test"])
    # emlearn's import sets numpy.seterr(all="raise"); the peers run under numpy's defaults, as
    # in a plain scikit-learn session (an underflow in adam's moment update is not an error).
    with warnings.catch_warnings(record=True) as caught, np.errstate(**NUMPY_DEFAULTS):
        warnings.simplefilter("always", ConvergenceWarning)
        start = time.perf_counter()
        xtr = encode(ds, train, fold["numeric_means"])
        xte = encode(ds, test, fold["numeric_means"])
        model = make()
        model.fit(xtr, y[train])
        pred = model.predict(xte)
        seconds = time.perf_counter() - start
    converged = not any(issubclass(w.category, ConvergenceWarning) for w in caught)
    return {
        "accuracy": float(np.mean(pred == y[test])),
        "seconds": seconds,
        "converged": converged,
        "n_iter": n_iter(model),
    }


def one_line(model):
    """scikit-learn's repr of an unfitted model, on one line."""
    return " ".join(repr(model).split())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--folds", required=True, help="folds JSON written by cargo xtask compare")
    ap.add_argument("--out", required=True, help="where to write the results JSON")
    ap.add_argument("--recordings", help="recordings JSON written by cargo xtask compare (sensor sets)")
    args = ap.parse_args()
    with open(args.folds) as f:
        spec = json.load(f)
    results = []
    # One thread for BLAS and OpenMP, like one ltu fold: on a shared machine, numpy's default of
    # one thread per core made the MLP several times slower, not faster.
    with tempfile.TemporaryDirectory() as workdir, threadpool_limits(limits=1):
        for ds in spec["datasets"]:
            start = time.perf_counter()
            result = run_dataset(ds, workdir)
            results.append(result)
            accs = ", ".join(
                f"{key} {100 * np.mean([f['accuracy'] for f in result['peers'][key]]):.2f}%" for key, _, _ in PEERS
            )
            print(f"  peers on {ds['name']}: {len(ds['folds'])} folds in {time.perf_counter() - start:.1f} s "
                  f"(CART {100 * np.mean([f['accuracy'] for f in result['folds']]):.2f}%, {accs})",
                  flush=True)
        recordings = None
        if args.recordings:
            with open(args.recordings) as f:
                recordings = series_peers.run(json.load(f))
    out = {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "sklearn": sklearn.__version__,
        "emlearn": emlearn.__version__ if emlearn is not None else None,
        "classifier": "DecisionTreeClassifier(random_state=0)",
        "threads": 1,
        # The exact settings: scikit-learn's repr lists every parameter that differs from its default.
        "peers": [{"key": key, "label": label, "classifier": one_line(make())} for key, label, make in PEERS],
        "datasets": results,
        "recordings": recordings,
    }
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
