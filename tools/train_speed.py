"""Measure training speed: one epoch over synthetic material-labelled positions.

    python tools/train_speed.py --positions 1000000 --data /tmp/synthetic-1m.dat

Writes the data file first when it does not exist (random legal play, labels
from material; see fianchetto.learn.synthetic), then trains one epoch with the
default options and prints positions per second.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

from fianchetto.learn.data import write_records
from fianchetto.learn.synthetic import material_records
from fianchetto.learn.train import TrainConfig, run_train


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=1_000_000)
    parser.add_argument("--data", required=True, help="data file (written when missing)")
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--batch", type=int, default=16384)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not os.path.exists(args.data):
        started = time.perf_counter()
        records, _ = material_records(args.positions, args.seed)
        write_records(args.data, records)
        print(f"wrote {len(records)} records in {time.perf_counter() - started:.1f} s", flush=True)
    config = TrainConfig(data=[args.data], out="", epochs=1, hidden=args.hidden, batch=args.batch, seed=args.seed)
    result = run_train(config, progress_stream=sys.stderr, log=sys.stdout)
    stats = result.history[-1]
    print(f"one epoch: {stats.positions} positions in {stats.seconds:.1f} s = {stats.positions / stats.seconds:,.0f} positions/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
