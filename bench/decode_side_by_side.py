#!/usr/bin/python3
"""bench/decode_side_by_side.py: token generation in nxrt against ONNX Runtime 1.30, same decoder,
prompt, greedy decoding and threads.

    bench/decode_side_by_side.py --build-dir build/release [--models decoder_tiny,decoder_small]
                                 [--shape NAME=L,H,HEADS,KV,INTER,VOCAB,BLOCK,MAXPOS ...]
                                 [--threads 1,2] [--rounds 3] [--prompt-tokens 32]
                                 [--max-new-tokens 64] [--warmup 1] [--out DIR]

For each model and intra-op thread count it runs `nxrt generate --json` and
`ort_run --generate --json` (tests/ort_oracle/ort_run.cpp) as separate processes, alternating R
rounds (who goes first alternates too). Both run the same decode loop (include/nxrt/generate.h:
the prefill run on the prompt, then one run per token, the KV cache one buffer per layer that
each run reads as past and writes as present in place); only the engine differs: nxrt's Session
with the buffers handed over through RunOptions::output_allocator, or ONNX Runtime (default
optimisation level, as users run it) through OrtApi::Run with pre-allocated outputs, which is how
ONNX Runtime GenAI drives its decoders (past_present_share_buffer). Each process generates
--warmup times untimed, then once timed. The script checks that both sides generated the same
tokens from the same prompt.

Figures per side, the median of its rounds: prefill tokens/s (prompt tokens over the time to
first token), time to first token (ms), decode tokens/s (tokens after the first over their
time). Ratios are nxrt / ORT in throughput (> 1 means nxrt is faster). Writes results.json into
--out. Models: the generated decoders of tests/contrib/make_decoder.py (written at build time
into <build-dir>/tests/contrib/models; written there by this script when missing), or, with
--shape (repeatable), decoders of the given sizes written by make_decoder.py into <out>/models:
L layers, hidden size H, HEADS query and KV key/value heads, MLP size INTER, vocabulary VOCAB,
int4 blocks of BLOCK, rotary caches of MAXPOS positions (>= prompt + new tokens).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from side_by_side import run_json, tool_paths  # noqa: E402  (one runner for both benches)
from bench_args import check_threads_and_rounds  # noqa: E402

MODELS = ["decoder_tiny", "decoder_small"]
FIGURES = ["prefill_tokens_per_second", "time_to_first_token_ms", "decode_tokens_per_second"]


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", default="build/release",
                        help="CMake build folder holding tools/nxrt/nxrt and "
                             "tests/ort_oracle/ort_run (default build/release)")
    parser.add_argument("--models", default=",".join(MODELS),
                        help=f"comma-separated (default {','.join(MODELS)})")
    parser.add_argument("--shape", action="append", default=[],
                        help="NAME=L,H,HEADS,KV,INTER,VOCAB,BLOCK,MAXPOS: a decoder of that size "
                             "instead of --models (repeatable)")
    parser.add_argument("--threads", default="1,2", help="intra-op thread counts (default 1,2)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (default 3)")
    parser.add_argument("--prompt-tokens", type=int, default=32, help="prompt length (default 32)")
    parser.add_argument("--max-new-tokens", type=int, default=64,
                        help="tokens generated (default 64)")
    parser.add_argument("--warmup", type=int, default=1,
                        help="untimed generations per process (default 1)")
    parser.add_argument("--out", default="", help="folder for results.json "
                                                  "(default <build-dir>/bench_decode)")
    parser.add_argument("--timeout", type=float, default=900,
                        help="seconds one process may take (default 900)")
    args = parser.parse_args()
    check_threads_and_rounds(parser, args)
    args.models = [m for m in args.models.split(",") if m]
    unknown = [m for m in args.models if m not in MODELS]
    if unknown:
        parser.error(f"--models: unknown {unknown}; known: {','.join(MODELS)}")
    args.out = args.out or os.path.join(args.build_dir, "bench_decode")
    return args


def write_models(folder, shapes):
    """make_decoder.py into `folder`: the given --shape values, or its two test models."""
    command = ["/usr/bin/python3", os.path.join(HERE, "..", "tests", "contrib", "make_decoder.py"),
               folder]
    for shape in shapes:
        command += ["--shape", shape]
    print(f"writing the generated decoders into {folder}", flush=True)
    if subprocess.run(command).returncode != 0:
        sys.exit("decode_side_by_side.py: make_decoder.py failed (see above)")


def measure(args, nxrt, ort_run, path, threads):
    """R alternating rounds of the two tools; the medians of their figures."""
    common = [path, "--prompt-tokens", str(args.prompt_tokens), "--max-new-tokens",
              str(args.max_new_tokens), "--threads", str(threads), "--warmup", str(args.warmup),
              "--seed", "1", "--json"]
    commands = {"nxrt": [nxrt, "generate"] + common, "ort": [ort_run, "--generate"] + common}
    sides = list(commands)
    reports = {side: [] for side in sides}
    for round_index in range(args.rounds):
        order = sides if round_index % 2 == 0 else sides[::-1]
        for side in order:
            report, error = run_json(commands[side], args.timeout)
            if error:
                sys.exit(f"decode_side_by_side.py: {side} on {path}, {threads} threads: {error}")
            reports[side].append(report)
    first = {side: (reports[side][0]["prompt"], reports[side][0]["tokens"]) for side in sides}
    if first["nxrt"] != first["ort"]:
        sys.exit(f"decode_side_by_side.py: {path}: nxrt and ORT generated different tokens:\n"
                 f"  nxrt {first['nxrt']}\n  ORT  {first['ort']}")
    result = {"model": os.path.basename(path), "threads": threads, "rounds": reports}
    for side in sides:
        result[side] = {key: statistics.median(r[key] for r in reports[side]) for key in FIGURES}
    return result


def main():
    args = parse_args()
    nxrt, ort_run = tool_paths(args.build_dir)
    if args.shape:
        models_dir = os.path.join(args.out, "models")
        write_models(models_dir, args.shape)
        args.models = [shape.partition("=")[0] for shape in args.shape]
    else:
        models_dir = os.path.join(args.build_dir, "tests", "contrib", "models")
        if not all(os.path.exists(os.path.join(models_dir, m + ".onnx")) for m in MODELS):
            write_models(models_dir, [])
    results = []
    width = max(15, max(len(m) for m in args.models) + 1)
    header = (f"{'model':<{width}}{'thr':>4} {'prefill tok/s nxrt':>19}{'ORT':>10}{'ratio':>7} "
              f"{'TTFT ms nxrt':>13}{'ORT':>8} {'decode tok/s nxrt':>18}{'ORT':>10}{'ratio':>7}")
    print(f"prompt {args.prompt_tokens} tokens, {args.max_new_tokens} new (greedy), "
          f"{args.rounds} alternating rounds, medians\n{header}", flush=True)
    for model in args.models:
        for threads in args.thread_counts:
            r = measure(args, nxrt, ort_run, os.path.join(models_dir, model + ".onnx"), threads)
            n, o = r["nxrt"], r["ort"]
            r["prefill_ratio"] = n["prefill_tokens_per_second"] / o["prefill_tokens_per_second"]
            r["decode_ratio"] = n["decode_tokens_per_second"] / o["decode_tokens_per_second"]
            results.append(r)
            print(f"{model:<{width}}{threads:>4} {n['prefill_tokens_per_second']:>19.0f}"
                  f"{o['prefill_tokens_per_second']:>10.0f}{r['prefill_ratio']:>7.2f} "
                  f"{n['time_to_first_token_ms']:>13.2f}{o['time_to_first_token_ms']:>8.2f} "
                  f"{n['decode_tokens_per_second']:>18.0f}{o['decode_tokens_per_second']:>10.0f}"
                  f"{r['decode_ratio']:>7.2f}", flush=True)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump({"prompt_tokens": args.prompt_tokens, "max_new_tokens": args.max_new_tokens,
                   "rounds": args.rounds, "results": results}, f, indent=1)
    print(f"wrote {os.path.join(args.out, 'results.json')}")


if __name__ == "__main__":
    main()
