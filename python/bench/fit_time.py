"""Fit time from Python against `ltu train` on the same CSV, same options and seed.

    python python/bench/fit_time.py DATA.csv [--algo ptree] [--param max_depth=3 ...] [--ltu PATH] [--repeat N]

The command line's time is the whole `ltu -q train DATA --no-estimate` (reading and parsing the CSV
included, as a user pays it); Python's is `fit` on a DataFrame already read with pandas (the
conversion to the trainer's dataset included) and, separately, pandas' read. Both models must be
byte-identical, or the script fails. Prints one JSON object.
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

import ltu

MISSING = ["", "?", "NA", "N/A", "NaN", "nan", "null", "NULL"]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("data")
    p.add_argument("--algo", default="ptree")
    p.add_argument("--param", action="append", default=[], help="NAME=VALUE (an integer, a float or text)")
    p.add_argument("--ltu", default=str(Path(__file__).resolve().parents[2] / "target" / "release" / "ltu"))
    p.add_argument("--repeat", type=int, default=1)
    a = p.parse_args()
    params = {}
    for kv in a.param:
        k, v = kv.split("=", 1)
        for conv in (int, float, str):
            try:
                params[k] = conv(v)
                break
            except ValueError:
                pass
    est = ltu.ESTIMATORS[a.algo](**params)
    t = time.perf_counter()
    df = pd.read_csv(a.data, na_values=MISSING, keep_default_na=False)
    read_s = time.perf_counter() - t
    X, y = df.iloc[:, :-1], df.iloc[:, -1]
    python_s, cli_s = [], []
    with tempfile.TemporaryDirectory() as tmp:
        model = Path(tmp) / "cli.ltu"
        for _ in range(a.repeat):
            t = time.perf_counter()
            subprocess.run(
                est.train_command(a.data, model) + ["-q", "--no-estimate"],
                check=True,
                executable=a.ltu,
                stdout=subprocess.DEVNULL,
            )
            cli_s.append(time.perf_counter() - t)
            t = time.perf_counter()
            est.fit(X, y)
            python_s.append(time.perf_counter() - t)
        same = est.to_bytes(data_file=a.data) == model.read_bytes()
    out = {
        "data": a.data,
        "rows": len(df),
        "command": " ".join(est.train_command(Path(a.data).name, "m.ltu")),
        "cli_seconds": min(cli_s),
        "python_fit_seconds": min(python_s),
        "pandas_read_seconds": read_s,
        "ratio": min(python_s) / min(cli_s),
        "byte_identical": same,
    }
    print(json.dumps(out, indent=2))
    if not same:
        sys.exit("the Python and command-line models differ")


if __name__ == "__main__":
    main()
