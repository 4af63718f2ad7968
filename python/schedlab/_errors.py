"""Errors about a spec: each names the file, the line and column, the field
path and what is wrong (with what would be valid).

The Rust extension raises :class:`SpecError` directly (it imports this module
when it first raises), so every function of the package reports a bad spec
the same way, and the same way as the ``schedlab`` command.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

__all__ = ["Diagnostic", "SpecError"]


@dataclass(frozen=True)
class Diagnostic:
    """One problem (or warning) found in a spec.

    Attributes:
        path: Field path, e.g. ``"tasks[3].period"``; empty for the whole document.
        line: 1-based line in the file, or None when the input gives none.
        column: 1-based column in the file, or None when the input gives none.
        message: What is wrong and what would be valid.
    """

    path: str
    line: int | None
    column: int | None
    message: str

    def render(self, file: str) -> str:
        """The diagnostic as the CLI prints it: ``file:line:col: path: message``."""
        s = file
        if self.line is not None:
            s += f":{self.line}"
            if self.column is not None:
                s += f":{self.column}"
        s += ": "
        if self.path:
            s += f"{self.path}: "
        return s + self.message

    @classmethod
    def _coerce(cls, d: Diagnostic | Mapping[str, object] | Sequence[object]) -> Diagnostic:
        if isinstance(d, Diagnostic):
            return d
        if isinstance(d, Mapping):
            return cls(
                path=str(d.get("path") or ""),
                line=_opt_int(d.get("line")),
                column=_opt_int(d.get("column")),
                message=str(d["message"]),
            )
        path, line, column, message = d
        return cls(path=str(path or ""), line=_opt_int(line), column=_opt_int(column), message=str(message))


def _opt_int(v: object) -> int | None:
    return None if v is None else int(v)  # type: ignore[call-overload]


class SpecError(ValueError):
    """A spec that cannot be used.

    Raised by :func:`schedlab.load`, :func:`schedlab.loads` and by every
    operation that hands a :class:`schedlab.TaskSet` to the Rust core
    (``summary()``, ``to_yaml()``, ``to_json()``, :func:`schedlab.simulate`)
    when the spec is invalid; :func:`schedlab.simulate` also raises it for a
    spec without a ``policy``. It is a :class:`ValueError`.

    Attributes:
        file: The file name as given (``"<string>"`` for text, ``"<taskset>"``
            for a task set built in Python).
        diagnostics: Every problem found, in document order (a tuple of
            :class:`Diagnostic`); there is always at least one.
        path, line, column, message: Those of the first problem.

    ``str(error)`` is what ``schedlab check`` prints: one
    ``file:line:col: path: message`` line per problem.
    """

    file: str
    diagnostics: tuple[Diagnostic, ...]

    def __init__(
        self,
        file: str,
        diagnostics: Iterable[Diagnostic | Mapping[str, object] | Sequence[object]],
    ) -> None:
        diags = tuple(Diagnostic._coerce(d) for d in diagnostics)
        if not diags:
            raise ValueError("SpecError needs at least one diagnostic")
        super().__init__(file, diags)
        self.file = str(file)
        self.diagnostics = diags

    @property
    def path(self) -> str:
        """Field path of the first problem, e.g. ``"tasks[3].period"`` (empty: the whole document)."""
        return self.diagnostics[0].path

    @property
    def line(self) -> int | None:
        """1-based line of the first problem, or None."""
        return self.diagnostics[0].line

    @property
    def column(self) -> int | None:
        """1-based column of the first problem, or None."""
        return self.diagnostics[0].column

    @property
    def message(self) -> str:
        """What is wrong with the first problem, and what would be valid."""
        return self.diagnostics[0].message

    def __str__(self) -> str:
        return "\n".join(d.render(self.file) for d in self.diagnostics)

    def __repr__(self) -> str:
        return f"SpecError({self.file!r}, {list(self.diagnostics)!r})"
