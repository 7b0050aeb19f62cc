#!/usr/bin/env python3
"""The peer side of `cargo xtask compare --scale`: scikit-learn's CART, logistic regression and a
10-tree random forest on the synthetic datasets `cargo xtask synth` writes.

For each shape (NAME-train.csv, NAME-test.csv in --data) this script
  - reads the CSV files with the csv module: numeric columns as floats, a categorical dataset's
    columns one-hot (scikit-learn's OneHotEncoder fitted on the training rows);
  - fits each peer on the training rows with BLAS and OpenMP limited to one thread, timing `fit`
    with time.process_time (CPU time of this one-thread process), and scores the test rows;
  - sizes CART and the forest as emlearn C code (bench/peers.py's `compiled_size`: the "loadable"
    int16 node arrays compiled with gcc -Os, plus the 32-bit descriptor), or from emlearn's node
    layout where emlearn cannot take the model (more than 127 inputs), saying so; logistic
    regression as float32 coefficients, intercepts and the scaler's mean and scale.

Output: one JSON object, written to --out.
"""

import argparse
import csv
import json
import os
import platform
import sys
import tempfile
import time

import numpy as np
import sklearn
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from sklearn.tree import DecisionTreeClassifier
from threadpoolctl import threadpool_limits

import peers  # beside this script: emlearn sizing shared with `cargo xtask compare`

# emlearn's import sets numpy.seterr(all="raise"); the peers run under numpy's defaults.
np.seterr(**peers.NUMPY_DEFAULTS)

PEERS = [
    ("cart", "CART", lambda: DecisionTreeClassifier(random_state=0)),
    ("lr", "logistic regression",
     lambda: make_pipeline(StandardScaler(), LogisticRegression(max_iter=10000, random_state=0))),
    ("rf", "random forest", lambda: RandomForestClassifier(n_estimators=10, random_state=0)),
]


def read(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    body = rows[1:]
    return np.array([r[:-1] for r in body]), np.array([r[-1] for r in body])


def numeric(x):
    try:
        return x.astype(float)
    except ValueError:
        return None


def forest_layout(clf):
    trees = [est for est in clf.estimators_]
    nodes = sum(max(int(np.sum(t.tree_.children_left != -1)), 1) for t in trees)
    classes = {int(np.argmax(t.tree_.value[i][0])) for t in trees for i in np.flatnonzero(t.tree_.children_left == -1)}
    return peers.NODE_BYTES * nodes + len(classes) + peers.ROOT_BYTES * len(trees) + peers.DESCRIPTOR_BYTES


def size(key, model, workdir):
    """Model bytes on a 32-bit device and how they were obtained."""
    if key == "lr":
        scaler, lr = model[0], model[-1]
        floats = lr.coef_.size + lr.intercept_.size + scaler.mean_.size + scaler.scale_.size
        return 4 * floats, "float32 coefficients, intercepts, scaler mean and scale"
    bytes_, why = peers.compiled_size(model, workdir)
    if bytes_ is not None:
        return bytes_, "emlearn C, compiled"
    layout = peers.layout_estimate(model) if key == "cart" else forest_layout(model)
    return layout, f"emlearn's node layout ({why})"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--shapes", required=True, help="comma-separated shape names")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as workdir:
        for shape in args.shapes.split(","):
            xtr, ytr = read(os.path.join(args.data, f"{shape}-train.csv"))
            xte, yte = read(os.path.join(args.data, f"{shape}-test.csv"))
            ntr, nte = numeric(xtr), numeric(xte)
            if ntr is None or nte is None:
                enc = OneHotEncoder(handle_unknown="ignore", sparse_output=False).fit(xtr)
                ntr, nte = enc.transform(xtr), enc.transform(xte)
            out = {}
            for key, label, make in PEERS:
                model = make()
                with threadpool_limits(limits=1):
                    start = time.process_time()
                    model.fit(ntr, ytr)
                    seconds = time.process_time() - start
                    accuracy = float(np.mean(model.predict(nte) == yte))
                bytes_, how = size(key, model, workdir)
                out[key] = {"label": label, "accuracy": accuracy, "seconds": seconds, "bytes": bytes_, "bytes_how": how}
                print(f"  {shape}: {label} {100 * accuracy:.2f}% in {seconds:.1f} s, {bytes_} B", flush=True)
            results[shape] = out
    report = {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "sklearn": sklearn.__version__,
        "emlearn": peers.emlearn.__version__ if peers.emlearn is not None else None,
        "peers": [{"key": key, "label": label, "classifier": peers.one_line(make())} for key, label, make in PEERS],
        "shapes": results,
    }
    with open(args.out, "w") as f:
        json.dump(report, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
