"""The Python package and the command line give the same model file and the same predictions."""

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
    ("car.csv", "ptree", {"max_bytes": 300}),
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
