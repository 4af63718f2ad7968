"""What the Python-implemented verbs (`schedlab plot`, `schedlab report`)
print: with ``--json``, one JSON document on stdout in the shape of every
other verb (``{"written": [...]}`` on success, the error shape of
docs/schemas/error.schema.json on failure); without it, ``wrote FILE`` lines
and messages for people."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence


def written(paths: Sequence[object], as_json: bool) -> int:
    """Announce the files written; exit code 0."""
    if as_json:
        print(json.dumps({"written": [str(p) for p in paths]}))
    else:
        for p in paths:
            print(f"wrote {p}")
    return 0


def failed(verb: str, message: str, as_json: bool, *, file: object = None, path: str | None = None) -> int:
    """Report bad input; exit code 2."""
    print(f"schedlab {verb}: {message}", file=sys.stderr)
    if as_json:
        error = {"file": None if file is None else str(file), "line": None, "column": None, "path": path}
        print(json.dumps({"error": {**error, "message": message, "hint": None}}))
    return 2
