"""The Python package and the command line give the same model file and the same predictions."""

import csv
import io
import json
import subprocess

import numpy as np
import pytest

import ltu
from common import DATA, read_csv

CASES = [
    ("iris.csv", "ptree", {}),
    ("iris.csv", "ndl", {}),
    ("glass.csv", "oblique", {}),
    ("house-votes-84.csv", "hsi", {}),
    ("house-votes-84.csv", "sparse", {}),
    ("car.csv", "fringe", {}),
    ("glass.csv", "ptree", {"max_bytes": 300}),
    ("breast-cancer-wisconsin.csv", "ptree", {"random_state": 3, "max_depth": 3}),
]


@pytest.mark.parametrize("name,algo,params", CASES, ids=[f"{c[0]}-{c[1]}-{len(c[2])}" for c in CASES])
def test_same_model_file_and_predictions(tmp_path, ltu_bin, name, algo, params):
    path = DATA / name
    X, y = read_csv(path)
    est = ltu.ESTIMATORS[algo](**params).fit(X, y)
    cli_model = tmp_path / "cli.ltu"
    subprocess.run(est.train_command(path, cli_model) + ["-q", "--no-estimate"], check=True, executable=ltu_bin)
    assert est.to_bytes(data_file=path) == cli_model.read_bytes()
    py_model = tmp_path / "py.ltu"
    est.save(py_model, data_file=path)
    assert py_model.read_bytes() == cli_model.read_bytes()
    out = subprocess.run([ltu_bin, "--json", "predict", str(cli_model), str(path)], check=True, capture_output=True)
    expected = json.loads(out.stdout)["predictions"]
    assert [str(p) for p in est.predict(X)] == expected
    loaded = ltu.load(cli_model)
    assert list(loaded.predict(X)) == expected


def test_inspect_is_the_cli_report(tmp_path, ltu_bin):
    path = DATA / "iris.csv"
    X, y = read_csv(path)
    est = ltu.PerceptronTree().fit(X, y)
    model = tmp_path / "m.ltu"
    est.save(model, data_file=path)
    out = subprocess.run([ltu_bin, "--json", "inspect", str(model)], check=True, capture_output=True)
    cli = json.loads(out.stdout)
    mine = est.inspect(data_file=path)
    cli.pop("model"), mine.pop("model")
    assert mine == cli
    stripped = tmp_path / "strip.ltu"
    subprocess.run(est.train_command(path, stripped) + ["-q", "--no-estimate", "--strip"], check=True, executable=ltu_bin)
    cost = est.device_cost()
    assert cost["device_bytes"] == stripped.stat().st_size
    assert cost["max_macs"] == cli["max_macs"]


def test_generated_c_is_the_cli_output(tmp_path, ltu_bin):
    path = DATA / "iris.csv"
    X, y = read_csv(path)
    est = ltu.PerceptronTree().fit(X, y)
    model = tmp_path / "model.ltu"
    est.save(model)
    subprocess.run([ltu_bin, "-q", "codegen", str(model), "--lang", "c", "-o", str(tmp_path / "model.c")], check=True)
    files = est.codegen("c")["files"]
    assert files["model.c"] == (tmp_path / "model.c").read_text()
    assert files["model.h"] == (tmp_path / "model.h").read_text()


@pytest.mark.parametrize("name,algo,params", CASES, ids=[f"{c[0]}-{c[1]}-{len(c[2])}" for c in CASES])
def test_decision_function_is_the_cli_scores(tmp_path, ltu_bin, name, algo, params):
    path = DATA / name
    X, y = read_csv(path)
    est = ltu.ESTIMATORS[algo](**params).fit(X, y)
    model = tmp_path / "m.ltu"
    est.save(model, data_file=path)
    out = subprocess.run([ltu_bin, "predict", "--scores", str(model), str(path)], check=True, capture_output=True, text=True)
    header, *rows = list(csv.reader(io.StringIO(out.stdout)))
    assert header[0] == "class" and len(rows) == len(X)
    # The printed score of each class, in the order of `classes_`; an empty cell: not scored.
    column = {h[len("score:"):]: k for k, h in enumerate(header) if h.startswith("score:")}
    printed = np.array([[float(r[column[str(c)]]) if r[column[str(c)]] else -np.inf for c in est.classes_] for r in rows])
    assert np.isfinite(printed).any()
    mine = est.decision_function(X)
    loaded = ltu.load(model)
    if len(est.classes_) == 2:
        assert mine.shape == (len(X),)
        np.testing.assert_array_equal(mine, printed[:, 1] - printed[:, 0])
        # Positive where the runtime predicts the second class, but at a tie the runtime broke.
        second = est.predict(X) == est.classes_[1]
        assert ((mine > 0) == second)[mine != 0].all()
    else:
        assert mine.shape == (len(X), len(est.classes_))
        np.testing.assert_array_equal(mine, printed)
        # The predicted class has the highest score.
        predicted = np.searchsorted(est.classes_, est.predict(X))
        assert (mine[np.arange(len(X)), predicted] == mine.max(axis=1)).all()
    # The loaded model scores in its own class order (`classes_` of the file).
    order = [list(loaded.classes_).index(str(c)) for c in est.classes_]
    theirs = loaded.decision_function(X)
    if len(est.classes_) == 2:
        np.testing.assert_array_equal(theirs if order == [0, 1] else -theirs, mine)
    else:
        np.testing.assert_array_equal(theirs[:, order], mine)
