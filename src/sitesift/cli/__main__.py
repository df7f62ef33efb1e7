"""`python -m sitesift.cli`: the command line."""

import sys

from sitesift.cli import main

sys.exit(main())
