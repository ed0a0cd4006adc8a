"""Command line: ``fianchetto`` (UCI), ``fianchetto bench [depth]``, ``fianchetto perft``,
``fianchetto doctor``, ``fianchetto --version``,
``fianchetto train`` (numpy, imported only when that subcommand runs),
``fianchetto tune-params`` (the search's tunable constants for SPSA)."""
from __future__ import annotations

import argparse
import os
import shutil
import sys
from typing import List, Optional, Sequence

from fianchetto import __version__
from fianchetto.benchmark import DEFAULT_DEPTH, bench_depth


def engine_command() -> List[str]:
    """How to start the installed engine: the ``fianchetto`` console script, or
    ``python -m fianchetto`` where the script is not on the PATH (for the tests,
    the soak and the benchmark scripts)."""
    exe = shutil.which("fianchetto")
    return [exe] if exe else [sys.executable, "-m", "fianchetto"]


def version_line() -> str:
    """``Fianchetto 0.1.0 (core avx2)``: the version and the core variant that runs."""
    import core_cy.core as core

    return f"Fianchetto {__version__} (core {core.CPU_VARIANT})"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fianchetto", description="Fianchetto UCI chess engine")
    parser.add_argument("--version", action="version", version=version_line())
    commands = parser.add_subparsers(dest="command")
    from fianchetto import perft_tools

    perft_tools.build_parser(commands.add_parser(
        "perft", help="count leaf nodes of the legal move tree; compare with another engine; run a suite",
        description=perft_tools.__doc__.split("\n\n")[0]))
    bench = commands.add_parser(
        "bench", help="search the fixed bench positions; prints the node-count signature and speed"
    )
    bench.add_argument("depth", nargs="?", default=None, help=f"search depth (default: {DEFAULT_DEPTH})")
    commands.add_parser("uci", help="speak UCI on stdin/stdout (the default)")
    doctor = commands.add_parser(
        "doctor", help="print the version, how the core was built, the book and network found (for bug reports)"
    )
    doctor.add_argument("--syzygy", default=None, metavar="PATH",
                        help=f"also check these Syzygy folders ({os.pathsep}-separated)")
    from fianchetto.learn import selfplay

    selfplay.build_parser(commands.add_parser(
        "datagen", help="self-play games in the core, written as training data"))
    # train parses its own options (fianchetto.learn.train.build_parser); listed here for --help.
    commands.add_parser("train", add_help=False, help="train the evaluation network (fianchetto train --help)")
    commands.add_parser("tune", add_help=False,
                        help="Texel-tune the hand-crafted evaluation (fianchetto tune --help)")
    commands.add_parser("wdl-fit", add_help=False,
                        help="fit the win/draw/loss model of the scores on self-play data (numpy)")
    commands.add_parser("tune-params", add_help=False,
                        help="the search's tunable constants for SPSA, OpenBench's format or --json")
    return parser


def run_bench_command(depth_text: Optional[str]) -> int:
    from fianchetto.benchmark import run_bench
    from fianchetto.evaluation import NetworkError, for_tool

    try:
        depth = bench_depth(depth_text)
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    try:
        evaluation = for_tool(None)      # the shipped network, as the engine starts
    except NetworkError as exc:
        print(f"{exc}; using the hand-crafted evaluation", file=sys.stderr)
        evaluation = None
    result = run_bench(depth, progress=lambda line: print(line, file=sys.stderr, flush=True), network=evaluation)
    for line in result.summary_lines():
        print_line(line)
    return 0


def print_line(line: str) -> None:
    print(line, flush=True)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """The ``fianchetto`` command. A reader that goes away early (``fianchetto
    doctor | head -3``) ends the command quietly, as with any Unix tool."""
    try:
        return run_command(sys.argv[1:] if argv is None else list(argv))
    except BrokenPipeError:
        return reader_gone()


def reader_gone() -> int:
    """End a command whose reader went away early: Python would flush stdout again
    at exit and complain, so point it at nothing. Returns the exit status, 1."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 1


def run_command(argv: List[str]) -> int:
    if argv[:1] == ["train"]:
        # numpy's BLAS threads gain nothing on the trainer's small products and spin
        # against its decoding thread (docs/training.md); set before numpy loads.
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        from fianchetto.learn.train import main_train

        return main_train(argv[1:])
    if argv[:1] == ["tune"]:
        from fianchetto.learn.texel import build_parser as tune_parser, main_tune

        return main_tune(tune_parser().parse_args(argv[1:]))
    if argv[:1] == ["wdl-fit"]:
        from fianchetto.learn.wdlfit import main_wdl_fit

        return main_wdl_fit(argv[1:])
    if argv[:1] == ["tune-params"]:
        from fianchetto.tuning import main_tune_params

        return main_tune_params(argv[1:])
    if is_uci_script(argv):
        return run_uci(argv)
    args = build_parser().parse_args(argv)
    if args.command == "perft":
        from fianchetto.perft_tools import main_perft

        return main_perft(args, print_line)
    if args.command == "bench":
        return run_bench_command(args.depth)
    if args.command == "doctor":
        from fianchetto.doctor import run_doctor

        return run_doctor(args.syzygy)
    if args.command == "datagen":
        from fianchetto.learn.selfplay import main_datagen

        return main_datagen(args)
    return run_uci()


#: The first words that name a subcommand (or an option) rather than a UCI line.
SUBCOMMANDS = ("perft", "bench", "uci", "doctor", "datagen", "train", "tune", "wdl-fit", "tune-params")


def is_uci_script(argv: List[str]) -> bool:
    """True when the arguments are UCI lines to run, as OpenBench's client gives
    them (``fianchetto "genfens 10 seed 1 book None" "quit"``), Stockfish-style:
    the first word of the first argument is no subcommand and no option."""
    words = argv[0].split() if argv else []
    return bool(words) and words[0] not in SUBCOMMANDS and not words[0].startswith("-")


def run_uci(lines: Optional[List[str]] = None) -> int:
    """Speak UCI: on stdin, or over `lines` (each one command, then quit)."""
    from fianchetto.uci import UciLoop

    loop = UciLoop()
    code = loop.run(None if lines is None else list(lines) + ["quit"])
    if not loop.clean_exit:
        # quit arrived mid-search and the search did not end in time: leave now rather
        # than let interpreter shutdown free objects a search thread still uses.
        sys.stdout.flush()
        os._exit(code)
    return code
