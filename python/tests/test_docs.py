"""The README's "From Python" lines and docs/PYTHON.md's walk-through run as written: every
```python block in order in one namespace, from a directory where `data/` is the repository's;
a ```text block right after a block is the output it must print."""

import contextlib
import io
import os
import re

import pytest

from common import ROOT

BLOCK = re.compile(r"```(python|text)\n(.*?)```", re.S)


def run_blocks(path, tmp_path, monkeypatch):
    (tmp_path / "data").symlink_to(ROOT / "data")
    monkeypatch.chdir(tmp_path)
    blocks = BLOCK.findall(path.read_text())
    assert any(kind == "python" for kind, _ in blocks), f"{path} has no python block"
    namespace = {}
    for i, (kind, text) in enumerate(blocks):
        if kind != "python":
            continue
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(text, f"{path.name} block {i}", "exec"), namespace)
        if i + 1 < len(blocks) and blocks[i + 1][0] == "text":
            assert out.getvalue() == blocks[i + 1][1], f"{path.name} block {i}"
    return namespace


def test_python_md_walk_through(tmp_path, monkeypatch):
    run_blocks(ROOT / "docs" / "PYTHON.md", tmp_path, monkeypatch)
    assert (tmp_path / "bcw.c").is_file() and (tmp_path / "bcw.h").is_file()


def test_readme_from_python(tmp_path, monkeypatch):
    readme = (ROOT / "README.md").read_text()
    section = readme.split("### From Python", 1)[1].split("\n## ", 1)[0]
    (tmp_path / "section.md").write_text(section)
    run_blocks(tmp_path / "section.md", tmp_path, monkeypatch)
    assert (tmp_path / "iris.ltu").is_file()
