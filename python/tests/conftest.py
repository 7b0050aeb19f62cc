"""Shared fixtures: the repository's data folder and the `ltu` command line to compare with."""

import os
import shutil
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"
# The words the command line reads as missing in a numeric column, and `?`/empty everywhere.
MISSING = ["", "?", "NA", "N/A", "NaN", "nan", "null", "NULL"]


def read_csv(path):
    """A data file as `ltu train` reads it: every column but the last an attribute, the last the class."""
    df = pd.read_csv(path, na_values=MISSING, keep_default_na=False)
    return df.iloc[:, :-1], df.iloc[:, -1]


@pytest.fixture(scope="session")
def ltu_bin():
    """The `ltu` binary: $LTU_BIN (what `cargo xtask test` builds), else the workspace's release build."""
    path = os.environ.get("LTU_BIN") or str(ROOT / "target" / "release" / "ltu")
    if not Path(path).is_file():
        path = shutil.which("ltu")
    if not path:
        pytest.fail("no ltu binary: set LTU_BIN or build it with `cargo build --release -p ltu`")
    return path
