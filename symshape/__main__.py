"""``python -m symshape``: the same as the ``symshape`` command."""

import sys

from symshape.cli import main

if __name__ == "__main__":
    sys.exit(main())
