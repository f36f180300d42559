"""``python -m benchmarks``: run the benchmark (``--help`` for its options)."""
import sys

from benchmarks.cli import main

sys.exit(main())
