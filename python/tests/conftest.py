"""Fixtures: the `ltu` command line to compare with."""

import os
import shutil
from pathlib import Path

import pytest

from common import ROOT


@pytest.fixture(scope="session")
def ltu_bin():
    """The `ltu` binary: $LTU_BIN (`cargo xtask test` sets it to the binary it builds), else the workspace's release build."""
    path = os.environ.get("LTU_BIN") or str(ROOT / "target" / "release" / "ltu")
    if not Path(path).is_file():
        path = shutil.which("ltu")
    if not path:
        pytest.fail("no ltu binary: set LTU_BIN or build it with `cargo build --release -p ltu`")
    return path
