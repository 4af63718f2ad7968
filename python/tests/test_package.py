"""The package surface: exports, version, docstrings, typing marker."""

from __future__ import annotations

import inspect
from importlib import metadata
from pathlib import Path

import schedlab


def test_version_matches_the_distribution() -> None:
    assert schedlab.__version__ == metadata.version("schedlab")


def test_every_public_name_is_documented() -> None:
    for name in schedlab.__all__:
        obj = getattr(schedlab, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            assert inspect.getdoc(obj), name
            for member_name, member in vars(obj).items():
                if not member_name.startswith("_") and (inspect.isfunction(member) or isinstance(member, property)):
                    assert inspect.getdoc(member), f"{name}.{member_name}"


def test_typed_package() -> None:
    root = Path(schedlab.__file__).parent
    assert (root / "py.typed").exists()
    assert (root / "_native.pyi").exists()


def test_the_c_header_ships_with_the_package() -> None:
    # c:LIB:SYMBOL job bodies build against it (docs/runtime.md).
    h = Path(schedlab.__file__).parent / "include" / "schedlab.h"
    assert "struct schedlab_job" in h.read_text()
    assert "int (*preemption_point)(const struct schedlab_job *job);" in h.read_text()
