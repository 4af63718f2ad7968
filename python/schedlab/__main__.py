"""``python -m schedlab``: the same as the ``schedlab`` command."""

import sys

from ._cli import main

sys.exit(main())
