"""`python -m general365 ...` is the `general365` program."""

import sys

from .cli import console_main

sys.exit(console_main())
