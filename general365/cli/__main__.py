"""`python -m general365.cli ...` is the `general365` program."""

import sys

from . import console_main

sys.exit(console_main())
