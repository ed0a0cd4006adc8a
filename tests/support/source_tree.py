"""The source tree the tests run from, and its build-only package (``build_support``,
which setup.py reads and no install carries)."""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))
