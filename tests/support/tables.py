"""Where the tests find Syzygy tables.

Every 3- and 4-piece table (WDL and DTZ, 4.4 MB) ships with the tests in
``tests/data/syzygy``, so a clone alone runs every tablebase test that needs
no more. The five 5-piece tables some tests also use (``../shared/data/syzygy5``,
45 MB) are not shipped: those tests are skipped, with SYZYGY5_MISSING as the
reason, when the folder is not beside the project."""
from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
SYZYGY = TESTS / "data" / "syzygy"
SYZYGY5 = (TESTS.parent.parent / "shared" / "data" / "syzygy5").resolve()
SYZYGY5_MISSING = (f"needs the 5-piece Syzygy tables (KQRvKR, KRRvKR, KRBvKR, KRNvKR, KRPvKR) "
                   f"in {SYZYGY5}, which the project does not ship")
