"""`python -m sitesift`: the command line."""

import sys

from sitesift.cli import main

sys.exit(main())
