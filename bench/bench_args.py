"""bench/bench_args.py: the command-line checks the side-by-side benchmarks share
(side_by_side.py, op_bench.py, decode_side_by_side.py)."""


def check_threads_and_rounds(parser, args):
    """Sets args.thread_counts from args.threads ("1,2"); parser.error for a bad list or rounds."""
    if args.rounds < 1:
        parser.error(f"--rounds {args.rounds}: give 1 or more rounds")
    try:
        args.thread_counts = [int(t) for t in args.threads.split(",") if t]
    except ValueError:
        parser.error(f"--threads '{args.threads}': expected comma-separated counts, e.g. 1,2")
    if not args.thread_counts or min(args.thread_counts) < 1:
        parser.error(f"--threads '{args.threads}': counts must be >= 1")
