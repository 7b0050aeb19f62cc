"""The peers of `cargo xtask compare` on the sensor-recording sets, run by `bench/peers.py`.

Input: the JSON that `cargo xtask compare` writes (target/compare/recordings.json): per set, every
training and test recording as samples[channel][time] (the raw values of the data file, test
channels in the training recordings' order) and class indices (test classes mapped to the
training recordings' classes by name).

Each peer is fitted on the archive's training recordings and scored on its test recordings:
  - raw samples: every channel's samples one after the other. Recordings of different lengths
    (japanese-vowels) are cut to the shortest recording of either split (7 frames). A
    1-nearest-neighbour classifier (Euclidean) and a random forest of 10 trees;
  - statistics of k equal segments of each channel: the mean, the population standard deviation,
    the mean square, the minimum and the maximum of each segment, for k = 1, 4 and 8, channel by
    channel and segment by segment. The segments are numpy.array_split's (the first n mod k of
    them one sample longer); when a recording is shorter than k samples the empty last segments
    repeat its last sample. (ltu's runtime cuts segments at floor(i*n/k) instead; the peers keep
    numpy's cut, the definition their reference figures were measured with.) Random forests of
    10 trees on each k, of 100 trees on k = 8, and logistic regression on standardized k = 8
    statistics.

Random forests use random_state=0; the time of a peer is feature extraction, fit and predict,
measured with time.perf_counter.
"""

import time
import warnings

import numpy as np
from sklearn.ensemble import RandomForestClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

# numpy's default floating-point error handling (emlearn's import sets numpy.seterr(all="raise")).
NUMPY_DEFAULTS = {"divide": "warn", "over": "warn", "under": "ignore", "invalid": "warn"}


def segment_stats(recording, k):
    """Per channel, per segment: mean, population std, mean square, min, max."""
    out = []
    for channel in recording:
        x = np.asarray(channel, dtype=float)
        for s in np.array_split(x, k):
            if len(s) == 0:  # only the last segments of a recording shorter than k
                s = x[-1:]
            out.extend([s.mean(), s.std(), np.mean(s * s), s.min(), s.max()])
    return out


def raw(recordings, length):
    """Every channel's first `length` samples, one channel after the other."""
    return np.array([[v for channel in r for v in channel[:length]] for r in recordings], dtype=float)


def stats(recordings, k):
    return np.array([segment_stats(r, k) for r in recordings], dtype=float)


def forest(n_trees):
    return lambda: RandomForestClassifier(n_estimators=n_trees, random_state=0)


def logistic():
    return make_pipeline(StandardScaler(), LogisticRegression(max_iter=10000, random_state=0))


def nearest():
    return KNeighborsClassifier(n_neighbors=1)


# (key, label, features, constructor, microcontroller-sized, about). `features` is "raw" or the
# number of segments k.
PEERS = [
    ("nn_raw", "1-NN raw", "raw", nearest, True,
     "1-nearest-neighbour (Euclidean) on the raw samples"),
    ("rf10_raw", "RF(10) raw", "raw", forest(10), False,
     "random forest of 10 trees on the raw samples"),
    ("rf10_k1", "RF(10) k=1", 1, forest(10), True,
     "random forest of 10 trees on the statistics of the whole recording"),
    ("rf10_k4", "RF(10) k=4", 4, forest(10), True,
     "random forest of 10 trees on the statistics of 4 segments"),
    ("rf10_k8", "RF(10) k=8", 8, forest(10), True,
     "random forest of 10 trees on the statistics of 8 segments"),
    ("rf100_k8", "RF(100) k=8", 8, forest(100), False,
     "random forest of 100 trees on the statistics of 8 segments"),
    ("lr_k8", "LR k=8", 8, logistic, False,
     "logistic regression on the standardized statistics of 8 segments"),
]


def size(model, x):
    """A peer's size: the nodes of its trees, or the values a nearest-neighbour classifier stores."""
    last = model.steps[-1][1] if hasattr(model, "steps") else model
    if hasattr(last, "estimators_"):
        return f"{sum(int(t.tree_.node_count) for t in last.estimators_)} tree nodes"
    if isinstance(last, KNeighborsClassifier):
        return f"{x.shape[0] * x.shape[1]} stored values"
    return f"{x.shape[1] * len(last.classes_) if len(last.classes_) > 2 else x.shape[1]} weights"


def run_set(ds):
    """Every peer on one set: its test accuracy, time, inputs and size."""
    train, test = ds["train"]["samples"], ds["test"]["samples"]
    # Class names as labels, so that scikit-learn orders the classes by name whatever ltu's order.
    classes = np.array(ds["classes"])
    ytr, yte = classes[ds["train"]["y"]], classes[ds["test"]["y"]]
    shortest = min(len(r[0]) for r in train + test)
    results = {}
    for key, _, features, make, _, _ in PEERS:
        with warnings.catch_warnings(record=True) as caught, np.errstate(**NUMPY_DEFAULTS):
            warnings.simplefilter("always", ConvergenceWarning)
            start = time.perf_counter()
            if features == "raw":
                xtr, xte = raw(train, shortest), raw(test, shortest)
            else:
                xtr, xte = stats(train, features), stats(test, features)
            model = make()
            model.fit(xtr, ytr)
            pred = model.predict(xte)
            seconds = time.perf_counter() - start
        results[key] = {
            "accuracy": float(np.mean(pred == yte)),
            "seconds": seconds,
            "inputs": int(xtr.shape[1]),
            "size": size(model, xtr),
            "converged": not any(issubclass(w.category, ConvergenceWarning) for w in caught),
        }
    return {"name": ds["name"], "shortest": shortest, "peers": results}


def run(spec):
    """The peers on every set of the recordings JSON, as `peers.py` writes them under `recordings`."""
    sets = []
    for ds in spec["datasets"]:
        start = time.perf_counter()
        result = run_set(ds)
        sets.append(result)
        accs = ", ".join(f"{label} {100 * result['peers'][key]['accuracy']:.1f}%" for key, label, *_ in PEERS)
        print(f"  peers on {ds['name']} (recordings): {time.perf_counter() - start:.1f} s ({accs})", flush=True)
    peers = [
        {"key": key, "label": label, "small": small, "about": about}
        for key, label, _, _, small, about in PEERS
    ]
    return {"peers": peers, "datasets": sets}
