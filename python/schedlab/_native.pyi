"""Type stubs of the Rust extension module ``schedlab._native``.

Every function takes and returns JSON text; :mod:`schedlab` builds objects
from it. Spec problems raise :class:`schedlab.SpecError`; other bad arguments
raise ValueError.
"""

import os

__version__: str

def load(path: str | os.PathLike[str]) -> str:
    """Load and validate a spec file; JSON ``{"file", "warnings", "spec", "values"}``."""

def loads(text: str, format: str | None = None, file: str = "<string>") -> str:
    """Load and validate spec text; the same JSON document as :func:`load`."""

def summary(spec_json: str) -> str:
    """The summary of ``schedlab check`` for spec JSON, as JSON."""

def to_yaml(spec_json: str) -> str:
    """Spec JSON written as YAML, deterministically."""

def to_json(spec_json: str) -> str:
    """Spec JSON written as canonical pretty JSON, deterministically."""

def gen_options() -> str:
    """The generator option names, as a JSON list."""

def generate(options_json: str) -> str:
    """Generate a task set from a JSON object of options; the same JSON document as :func:`load`."""

def schema() -> str:
    """The JSON Schema of the spec, as pretty JSON."""

def cli_main(argv: list[str]) -> int:
    """Run the ``schedlab`` command with ``argv`` (argv[0] is the program name); its exit code."""
