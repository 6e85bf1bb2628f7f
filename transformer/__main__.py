"""`python -m transformer --help`: the command line lives in `transformer.cli`."""

import sys

from transformer.cli import main

sys.exit(main())
