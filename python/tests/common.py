"""Helpers of the tests: the repository's data folder and reading its files as `ltu train` does."""

from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"
# The words the command line reads as missing in a numeric column, and `?`/empty everywhere.
MISSING = ["", "?", "NA", "N/A", "NaN", "nan", "null", "NULL"]


def read_csv(path):
    """A data file as `ltu train` reads it: every column but the last an attribute, the last the class."""
    df = pd.read_csv(path, na_values=MISSING, keep_default_na=False)
    return df.iloc[:, :-1], df.iloc[:, -1]


