"""The ``schedlab`` console script: the Rust CLI, run in this process.

``pip install`` puts a ``schedlab`` command on PATH that calls :func:`main`;
it behaves as the native ``schedlab`` binary (same options, same output, same
exit codes: 0 success, 2 bad input, 1 other failure).
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Sequence

from . import _native

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``schedlab`` command and return its exit code.

    Args:
        argv: The arguments after the program name; ``sys.argv[1:]`` when None.

    Returns:
        The command's exit code (the console script exits with it).
    """
    args = list(sys.argv[1:] if argv is None else argv)
    # Python buffers its own streams; the Rust side writes to the file
    # descriptors directly, so anything Python printed must go out first.
    sys.stdout.flush()
    sys.stderr.flush()
    # Ctrl-C must stop a long command as it stops the native binary: Python's
    # handler would only set a flag that the Rust code never checks.
    if argv is None:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    # `plot`, `report` and `sweep --ray` run Python code: this interpreter.
    os.environ.setdefault("SCHEDLAB_PYTHON", sys.executable)
    return int(_native.cli_main(["schedlab", *args]))


if __name__ == "__main__":
    sys.exit(main())
