"""Measure training speed without any games: one epoch over synthetic positions.

    python tools/train_speed.py --positions 1000000 --data /tmp/synthetic-1m.dat [--hidden 768]

Writes the data file first when it does not exist (random legal play, labels
from material; see fianchetto.learn.synthetic), then trains one epoch with
``fianchetto train``'s defaults (the shipped network's recipe) but for the
sizes given, and prints positions per second. A machine without the
self-play cache can so tell what a training run will cost on it; the losses
of material labels mean nothing.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from typing import List, Optional

from fianchetto.learn.data import write_records
from fianchetto.learn.synthetic import material_records
from fianchetto.learn.train import TrainConfig, run_train

DEFAULTS = TrainConfig(data=[], out="")


def parse_args(argv: Optional[List[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=1_000_000, help="positions written to a new data file")
    parser.add_argument("--data", required=True, help="data file (written when missing)")
    parser.add_argument("--hidden", type=int, default=DEFAULTS.hidden)
    parser.add_argument("--batch", type=int, default=DEFAULTS.batch)
    parser.add_argument("--buckets", type=int, choices=(1, 8), default=DEFAULTS.buckets)
    parser.add_argument("--seed", type=int, default=DEFAULTS.seed)
    return parser.parse_args(argv)


def main(argv: Optional[List[str]] = None) -> int:
    args = parse_args(argv)
    if not os.path.exists(args.data):
        started = time.perf_counter()
        records, _ = material_records(args.positions, args.seed)
        write_records(args.data, records)
        print(f"wrote {len(records)} records in {time.perf_counter() - started:.1f} s", flush=True)
    config = TrainConfig(data=[args.data], out="", epochs=1, hidden=args.hidden, batch=args.batch,
                         buckets=args.buckets, seed=args.seed)
    result = run_train(config, progress_stream=sys.stderr, log=sys.stdout)
    stats = result.history[-1]
    print(f"one epoch: {stats.positions} positions in {stats.seconds:.1f} s = "
          f"{stats.positions / stats.seconds:,.0f} positions/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
