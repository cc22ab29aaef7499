#!/usr/bin/python3
"""bench/side_by_side.py: nxrt against ONNX Runtime 1.30, same models, inputs and threads.

    bench/side_by_side.py --build-dir build/release [--models a,b] [--threads 1,2] [--rounds 3]
                          [--iterations 50] [--warmup 5] [--out DIR]

For each model and intra-op thread count it runs `nxrt bench --json` and `ort_run --bench --json`
(tests/ort_oracle/ort_run.cpp; ORT at its default optimisation level, as users run it) as separate
processes, alternating R rounds (who goes first alternates too) so that noise on a shared machine
hits both. A third column, "ORT + nxrt plugin", runs ORT with nxrt's CPU EP as its plugin EP
(<build-dir>/src/ort_ep/libnxrt_ort_ep.so, docs/ort_plugin_export.md) and its CPU fallback
disabled, the plugin's fused groups on the same thread count (ep.nxrtexecutionprovider.threads);
it is measured in the same alternating rounds when the library is built. Both tools use the same input flags (nxrt/input_generator.h) and the same timing loop
(nxrt/bench_report.h); the script checks that both report the same inputs digest. Each side's
figure is the median of its round medians. It prints one table (ratio = nxrt / ORT; < 1 means nxrt
is faster), the geometric mean of the ratios per thread count, and large-GEMM efficiency (a
2048^3 float32 MatMul in nxrt, and in ORT for reference, against the machine's FMA peak measured by
bench/fma_peak.cpp). It writes ratios.svg and results.json into --out.

Models: the seven real ones in <NXRT_CACHE>/models (input specs as in tests/real_models.h) and the
generated ones of bench/make_bench_models.py (written into <build-dir>/bench_models when missing;
its QDQ variants are calibrated with <build-dir>'s nxrt),
and the com.microsoft decoders and BERT encoders of tests/contrib (in <build-dir>/tests/contrib/
models, written by the test build).
Runs with any python3 (standard library only); the model generator needs /usr/bin/python3.
"""

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import time

from bench_args import check_threads_and_rounds

HERE = os.path.dirname(os.path.abspath(__file__))

# Generated-model inputs shared by each model's float, float16 and int8 variants.
RESNET_FLAGS = ["--range", "image=-2.1,2.6"]
BERT_FLAGS = ["--dim", "batch=1", "--dim", "sequence=128", "--range", "input_ids=0,30521",
              "--value", "attention_mask=1"]
GPT2_PREFILL_FLAGS = ["--dim", "batch=1", "--dim", "sequence=128", "--range", "input_ids=0,50256"]

# (label, model file stem, "real" or "generated", input flags). Real models' inputs copy
# tests/real_models.h; keep the two in step.
CASES = [
    ("ppocrv4_det", "ppocrv4_det", "real", ["--shape", "x=1,3,480,640", "--range", "x=-2.1,2.6"]),
    ("ppocrv4_rec", "ppocrv4_rec", "real", ["--shape", "x=1,3,48,320", "--range", "x=-1,1"]),
    ("silero_vad_v5", "silero_vad_v5", "real",
     ["--shape", "input=1,512", "--range", "input=-0.5,0.5", "--shape", "state=2,1,128",
      "--value", "state=0", "--shape", "sr=", "--value", "sr=16000"]),
    ("silero_vad_v4_legacy", "silero_vad_v4_legacy", "real",
     ["--shape", "input=1,512", "--range", "input=-0.5,0.5", "--shape", "sr=",
      "--value", "sr=16000", "--shape", "h=2,1,64", "--value", "h=0",
      "--shape", "c=2,1,64", "--value", "c=0"]),
    ("oww_melspectrogram", "oww_melspectrogram", "real",
     ["--shape", "input=1,1760", "--range", "input=-3000,3000"]),
    ("oww_embedding", "oww_embedding", "real",
     ["--shape", "input_1=1,76,32,1", "--range", "input_1=-1,3"]),
    ("oww_hey_jarvis", "oww_hey_jarvis", "real", ["--shape", "x.1=1,16,96", "--range", "x.1=-2,2"]),
    ("mlp_b1", "mlp", "generated", ["--dim", "batch=1"]),
    ("mlp_b64", "mlp", "generated", ["--dim", "batch=64"]),
    ("resnet18", "resnet18", "generated", RESNET_FLAGS),
    ("bert4", "bert4", "generated", BERT_FLAGS),
    ("gpt2_token", "gpt2_4l", "generated",
     ["--dim", "batch=1", "--dim", "sequence=1", "--range", "input_ids=0,50256"]),
    ("gpt2_prefill", "gpt2_4l", "generated", GPT2_PREFILL_FLAGS),
    # The float16 variants (bench/make_bench_models.py): float32 I/O, float16 inside.
    ("resnet18_fp16", "resnet18_fp16", "generated", RESNET_FLAGS),
    ("bert4_fp16", "bert4_fp16", "generated", BERT_FLAGS),
    ("gpt2_prefill_fp16", "gpt2_4l_fp16", "generated", GPT2_PREFILL_FLAGS),
    # The int8 variants (bench/quantize_models.py): dynamically quantized and static QDQ.
    ("resnet18_int8_dyn", "resnet18_int8_dyn", "generated", RESNET_FLAGS),
    ("bert4_int8_dyn", "bert4_int8_dyn", "generated", BERT_FLAGS),
    ("gpt2_prefill_int8_dyn", "gpt2_4l_int8_dyn", "generated", GPT2_PREFILL_FLAGS),
    ("resnet18_qdq", "resnet18_qdq", "generated", RESNET_FLAGS),
    ("bert4_qdq", "bert4_qdq", "generated", BERT_FLAGS),
    ("gpt2_prefill_qdq", "gpt2_4l_qdq", "generated", GPT2_PREFILL_FLAGS),
    ("matmul_nbits_b1", "matmul_nbits_4096", "generated", ["--dim", "batch=1"]),
    # The com.microsoft models of tests/contrib (make_decoder.py, make_bert.py; built with the
    # tests): one pass each, a decoder's prompt (empty past) or one decode step after 127 tokens.
    ("decoder_tiny_prefill", "decoder_tiny", "contrib",
     ["--dim", "batch=1", "--dim", "seq=64", "--dim", "total=64", "--dim", "past=0",
      "--range", "input_ids=0,96", "--value", "attention_mask=1"]),
    ("decoder_small_prefill", "decoder_small", "contrib",
     ["--dim", "batch=1", "--dim", "seq=128", "--dim", "total=128", "--dim", "past=0",
      "--range", "input_ids=0,1000", "--value", "attention_mask=1"]),
    ("decoder_small_step", "decoder_small", "contrib",
     ["--dim", "batch=1", "--dim", "seq=1", "--dim", "total=128", "--dim", "past=127",
      "--range", "input_ids=0,1000", "--value", "attention_mask=1"]),
    ("bert_attention_small", "bert_attention_small", "contrib",
     ["--dim", "batch=1", "--dim", "sequence=128", "--range", "input_ids=0,1008",
      "--range", "token_type_ids=0,1", "--value", "attention_mask=1"]),
    ("bert_mha_small", "bert_mha_small", "contrib",
     ["--dim", "batch=1", "--dim", "sequence=128", "--range", "input_ids=0,1008",
      "--range", "token_type_ids=0,1", "--value", "attention_mask=1"]),
]

GEMM_N = 2048  # the GEMM-efficiency MatMul is GEMM_N^3 (bench/make_bench_models.py matmul_2048)


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", default="build/release",
                        help="CMake build folder holding tools/nxrt/nxrt and "
                             "tests/ort_oracle/ort_run (default build/release)")
    parser.add_argument("--models", default="",
                        help="comma-separated labels (default all): " +
                             ",".join(label for label, _, _, _ in CASES))
    parser.add_argument("--threads", default="1,2", help="intra-op thread counts (default 1,2)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (default 3)")
    parser.add_argument("--iterations", type=int, default=50,
                        help="timed runs per process (default 50)")
    parser.add_argument("--warmup", type=int, default=5, help="untimed runs per process (default 5)")
    parser.add_argument("--cache", default=os.environ.get("NXRT_CACHE") or
                        os.path.expanduser("~/.cache/nxrt"),
                        help="folder scripts/bootstrap.sh filled (default $NXRT_CACHE or "
                             "~/.cache/nxrt)")
    parser.add_argument("--generated-dir", default="",
                        help="generated models (default <build-dir>/bench_models)")
    parser.add_argument("--out", default="", help="folder for ratios.svg and results.json "
                                                  "(default <build-dir>/bench_side_by_side)")
    parser.add_argument("--no-gemm", action="store_true", help="skip the GEMM-efficiency part")
    parser.add_argument("--timeout", type=float, default=900,
                        help="seconds one benchmark process may take (default 900)")
    args = parser.parse_args()
    if args.iterations < 1:
        parser.error(f"--iterations {args.iterations}: give 1 or more timed runs")
    check_threads_and_rounds(parser, args)
    labels = [label for label, _, _, _ in CASES]
    args.labels = [m for m in args.models.split(",") if m] or labels
    unknown = [m for m in args.labels if m not in labels]
    if unknown:
        parser.error(f"--models: unknown {unknown}; known: {','.join(labels)}")
    args.generated_dir = args.generated_dir or os.path.join(args.build_dir, "bench_models")
    args.out = args.out or os.path.join(args.build_dir, "bench_side_by_side")
    return args


def plugin_path(build_dir):
    """libnxrt_ort_ep.so when it is built, else None (the plugin column is left out)."""
    path = os.path.join(build_dir, "src", "ort_ep", "libnxrt_ort_ep.so")
    return os.path.abspath(path) if os.path.exists(path) else None


def tool_paths(build_dir):
    nxrt = os.path.join(build_dir, "tools", "nxrt", "nxrt")
    ort_run = os.path.join(build_dir, "tests", "ort_oracle", "ort_run")
    for path, target in ((nxrt, "nxrt"), (ort_run, "ort_run")):
        if not os.access(path, os.X_OK):
            sys.exit(f"side_by_side.py: {path} not found; build it first "
                     f"(cmake --build {build_dir} --target {target}) or pass --build-dir")
    return nxrt, ort_run


def ensure_generated(args, stems):
    missing = [s for s in sorted(stems) if not os.path.exists(
        os.path.join(args.generated_dir, s + ".onnx"))]
    if missing:
        print(f"writing generated models {missing} into {args.generated_dir}", flush=True)
        nxrt = os.path.join(args.build_dir, "tools", "nxrt", "nxrt")  # calibrates the QDQ ones
        subprocess.run(["/usr/bin/python3", os.path.join(HERE, "make_bench_models.py"),
                        "--nxrt", nxrt, args.generated_dir] + missing, check=True)


def model_path(args, stem, kind):
    folder = {"real": os.path.join(args.cache, "models"), "generated": args.generated_dir,
              "contrib": os.path.join(args.build_dir, "tests", "contrib", "models")}[kind]
    return os.path.join(folder, stem + ".onnx")


def run_json(command, timeout):
    """Runs one benchmark process; returns (report dict, None) or (None, error text)."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout:.0f} s"
    if done.returncode != 0:
        lines = (done.stderr.strip() or done.stdout.strip() or "no output").splitlines()
        return None, f"exit {done.returncode}: {lines[-1][:300]}"
    for line in reversed(done.stdout.strip().splitlines()):
        if line.startswith("{"):
            return json.loads(line), None
    return None, "no JSON line in the output"


def median_of(reports, key):
    return statistics.median(r[key] for r in reports)


def measure(args, nxrt, ort_run, plugin, label, path, flags, threads):
    """R alternating rounds of the tools on one model and thread count."""
    common = [path, "--threads", str(threads), "--warmup", str(args.warmup),
              "--iterations", str(args.iterations), "--json"] + flags
    commands = {"nxrt": [nxrt, "bench"] + common, "ort": [ort_run, "--bench"] + common}
    if plugin:
        commands["plugin"] = [ort_run, "--bench"] + common + [
            "--plugin", plugin, "--config", "session.disable_cpu_ep_fallback=1",
            "--config", f"ep.nxrtexecutionprovider.threads={threads}"]
    sides = list(commands)
    reports = {side: [] for side in sides}
    errors = {}
    for round_index in range(args.rounds):
        shift = round_index % len(sides)  # each side goes first in turn
        order = sides[shift:] + sides[:shift]
        for side in order:
            if side in errors:
                continue
            report, error = run_json(commands[side], args.timeout)
            if error:
                errors[side] = error
                print(f"  {label} threads {threads}: {side} failed: {error}", flush=True)
            else:
                reports[side].append(report)
    result = {"model": label, "path": path, "threads": threads, "flags": flags,
              "rounds": reports, "errors": errors}
    for side in sides:
        if reports[side]:
            result[side] = {
                "median_ms": median_of(reports[side], "median_ms"),
                "min_ms": min(r["min_ms"] for r in reports[side]),
                "p90_ms": median_of(reports[side], "p90_ms"),
                "init_ms": median_of(reports[side], "init_ms"),
                "session_ms": median_of(reports[side], "session_ms"),
                "peak_rss_mib": median_of(reports[side], "peak_rss_mib"),
            }
    if "plugin" in result and "ort" in result:
        result["plugin_ratio"] = result["plugin"]["median_ms"] / result["ort"]["median_ms"]
    if "nxrt" in result and "ort" in result:
        result["ratio"] = result["nxrt"]["median_ms"] / result["ort"]["median_ms"]
        digests = {r["inputs_digest"] for side in sides for r in reports[side]}
        result["same_inputs"] = len(digests) == 1
        if len(digests) != 1:
            print(f"  {label}: the two tools fed different inputs (digests {sorted(digests)})",
                  flush=True)
    return result


def fmt(value, digits=3):
    if value is None:
        return "-"
    if value >= 100:
        return f"{value:.1f}"
    if value >= 10:
        return f"{value:.2f}"
    return f"{value:.{digits}f}"


def print_table(results, thread_counts):
    header = ["model", "thr", "nxrt ms", "ORT ms", "ORT + nxrt plugin ms", "nxrt/ORT",
              "plugin/ORT", "RSS nxrt", "RSS ORT", "create nxrt", "create ORT"]
    rows = []
    for r in results:
        nx, ort, plugin = r.get("nxrt"), r.get("ort"), r.get("plugin")
        ratio, plugin_ratio = r.get("ratio"), r.get("plugin_ratio")
        plugin_ms = fmt(plugin["median_ms"]) if plugin else \
            ("error" if "plugin" in r.get("errors", {}) else "-")
        rows.append([
            r["model"], str(r["threads"]),
            fmt(nx["median_ms"]) if nx else "error", fmt(ort["median_ms"]) if ort else "error",
            plugin_ms, f"{ratio:.2f}" if ratio is not None else "-",
            f"{plugin_ratio:.2f}" if plugin_ratio is not None else "-",
            f"{nx['peak_rss_mib']:.0f}" if nx else "-", f"{ort['peak_rss_mib']:.0f}" if ort else "-",
            fmt(nx["session_ms"], 1) if nx else "-", fmt(ort["session_ms"], 1) if ort else "-",
        ])
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(header)]
    print("latency: median of round medians (ms); RSS: peak MiB; create: session creation ms "
          "(after the process set-up each runtime's API has apart, init_ms in the JSON: "
          "nxrt::WarmUpProcess; ORT's library load and CreateEnv)")
    print("  ".join(h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in
                    enumerate(zip(header, widths))))
    for row in rows:
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in
                        enumerate(zip(row, widths))))
    geomeans = {}
    for threads in thread_counts:
        ratios = [r["ratio"] for r in results if r["threads"] == threads and "ratio" in r]
        if ratios:
            geomeans[threads] = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
            print(f"geometric mean nxrt/ORT at {threads} thread(s): {geomeans[threads]:.2f} "
                  f"over {len(ratios)} model(s)")
        plugin_ratios = [r["plugin_ratio"] for r in results
                         if r["threads"] == threads and "plugin_ratio" in r]
        if plugin_ratios:
            mean = math.exp(sum(math.log(x) for x in plugin_ratios) / len(plugin_ratios))
            print(f"geometric mean (ORT + nxrt plugin)/ORT at {threads} thread(s): {mean:.2f} "
                  f"over {len(plugin_ratios)} model(s)")
    return geomeans


def write_svg(path, results, thread_counts, geomeans):
    """Horizontal bars of nxrt/ORT per model (one bar per thread count), log scale, line at 1."""
    pairs = [r for r in results if "ratio" in r]
    models = list(dict.fromkeys(r["model"] for r in results))
    if not pairs:
        return False
    ratios = [r["ratio"] for r in pairs]
    low = min(0.5, min(ratios) / 1.2)
    high = max(2.0, max(ratios) * 1.2)
    left, right, top, bar, gap = 170, 40, 50, 14, 10
    width = 860
    plot = width - left - right
    group = bar * len(thread_counts) + gap
    height = top + group * len(models) + 70
    colors = ["#4878a8", "#e08a3c", "#6aa84f", "#a64d79"]

    def x_of(ratio):
        return left + plot * (math.log(ratio) - math.log(low)) / (math.log(high) - math.log(low))

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{left}" y="20" font-size="14">nxrt / ONNX Runtime median latency '
           f'(log scale; &lt; 1: nxrt faster)</text>']
    ticks = [m * 10.0 ** e for e in range(-3, 6) for m in (1, 2, 5) if low <= m * 10.0 ** e <= high]
    for t in ticks:
        x = x_of(t)
        out.append(f'<line x1="{x:.1f}" y1="{top - 8}" x2="{x:.1f}" '
                   f'y2="{top + group * len(models)}" stroke="{"#000" if t == 1 else "#ddd"}"/>')
        out.append(f'<text x="{x:.1f}" y="{top + group * len(models) + 16}" '
                   f'text-anchor="middle">{t:g}</text>')
    for m, model in enumerate(models):
        y0 = top + m * group
        out.append(f'<text x="{left - 6}" y="{y0 + bar * len(thread_counts) / 2 + 4:.1f}" '
                   f'text-anchor="end">{model}</text>')
        for t, threads in enumerate(thread_counts):
            match = [r for r in pairs if r["model"] == model and r["threads"] == threads]
            y = y0 + t * bar
            if not match:
                out.append(f'<text x="{left + 4}" y="{y + bar - 3}" fill="#999">'
                           f'{threads} thr: no ratio (a run failed)</text>')
                continue
            ratio = match[0]["ratio"]
            x1, x = x_of(1.0), x_of(ratio)
            out.append(f'<rect x="{min(x, x1):.1f}" y="{y + 1}" width="{abs(x - x1):.1f}" '
                       f'height="{bar - 2}" fill="{colors[t % len(colors)]}"/>')
            anchor_x = max(x, x1) + 4
            out.append(f'<text x="{anchor_x:.1f}" y="{y + bar - 3}" font-size="10">'
                       f'{ratio:.2f}</text>')
    legend_y = top + group * len(models) + 40
    for t, threads in enumerate(thread_counts):
        x = left + t * 220
        mean = geomeans.get(threads)
        text = f"{threads} thread(s)" + (f", geometric mean {mean:.2f}" if mean else "")
        out.append(f'<rect x="{x}" y="{legend_y - 10}" width="12" height="12" '
                   f'fill="{colors[t % len(colors)]}"/>')
        out.append(f'<text x="{x + 16}" y="{legend_y}">{text}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    return True


def fma_peak(args):
    """The machine's FMA peak from bench/fma_peak.cpp (built target, else compiled here)."""
    binary = os.path.join(args.build_dir, "bench", "nxrt_fma_peak")
    if not os.access(binary, os.X_OK):
        binary = os.path.join(args.out, "fma_peak")
        compiler = shutil.which("c++") or shutil.which("g++")
        if compiler is None:
            return None, "no C++ compiler to build bench/fma_peak.cpp"
        subprocess.run([compiler, "-std=c++20", "-O2", "-pthread", "-o", binary,
                        os.path.join(HERE, "fma_peak.cpp")], check=True)
    threads = max(args.thread_counts)
    done = subprocess.run([binary, "--threads", str(threads), "--json"], capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1]), None


def gemm_efficiency(args, nxrt, ort_run):
    ensure_generated(args, {f"matmul_{GEMM_N}"})
    path = os.path.join(args.generated_dir, f"matmul_{GEMM_N}.onnx")
    peak, error = fma_peak(args)
    if error:
        print(f"GEMM efficiency: {error}")
        return None
    flop = 2.0 * GEMM_N ** 3
    print(f"\nlarge GEMM ({GEMM_N}x{GEMM_N} @ {GEMM_N}x{GEMM_N} float32, {flop / 1e9:.1f} GFLOP); "
          f"FMA peak ({peak['isa']}, per CPU time): {peak['gflops_1_thread']:.0f} GFLOP/s on "
          f"1 thread, {peak['gflops_n_threads']:.0f} on {peak['threads']}")
    rows = []
    for threads in args.thread_counts:
        core_peak = peak["gflops_1_thread"] if threads == 1 else \
            peak["gflops_n_threads"] * threads / peak["threads"]
        flags = ["--range", "a=-1,1"]
        common = [path, "--threads", str(threads), "--warmup", "1", "--iterations", "5",
                  "--json"] + flags
        for side, command in (("nxrt", [nxrt, "bench"] + common),
                              ("ort", [ort_run, "--bench"] + common)):
            report, error = run_json(command, args.timeout)
            if error:
                print(f"  {side} threads {threads}: {error}")
                continue
            gflops = flop / (report["median_ms"] / 1000.0) / 1e9
            rows.append({"runtime": side, "threads": threads, "median_ms": report["median_ms"],
                         "gflops": gflops, "peak_gflops": core_peak,
                         "fraction_of_peak": gflops / core_peak})
            print(f"  {side:4} {threads} thread(s): {report['median_ms']:.1f} ms = "
                  f"{gflops:.0f} GFLOP/s = {100 * gflops / core_peak:.0f} % of peak")
    return {"n": GEMM_N, "peak": peak, "runs": rows}


def main():
    args = parse_args()
    nxrt, ort_run = tool_paths(args.build_dir)
    plugin = plugin_path(args.build_dir)
    if plugin is None:
        print("libnxrt_ort_ep.so is not built: no ORT + nxrt plugin column", flush=True)
    os.makedirs(args.out, exist_ok=True)
    cases = [c for c in CASES if c[0] in args.labels]
    ensure_generated(args, {stem for _, stem, kind, _ in cases if kind == "generated"})
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} CPUs; "
          f"{args.rounds} rounds x {args.iterations} iterations (+{args.warmup} warm-up)",
          flush=True)
    started = time.time()
    results = []
    for threads in args.thread_counts:
        for label, stem, kind, flags in cases:
            path = model_path(args, stem, kind)
            if not os.path.exists(path):
                fix = "build the tests" if kind == "contrib" else "run scripts/bootstrap.sh"
                print(f"  {label}: {path} is missing ({fix}); skipped")
                continue
            print(f"measuring {label} at {threads} thread(s)", flush=True)
            results.append(measure(args, nxrt, ort_run, plugin, label, path, flags, threads))
    print()
    geomeans = print_table(results, args.thread_counts)
    gemm = None if args.no_gemm else gemm_efficiency(args, nxrt, ort_run)
    svg = os.path.join(args.out, "ratios.svg")
    if write_svg(svg, results, args.thread_counts, geomeans):
        print(f"\nwrote {svg}")
    summary = {"load_average_at_start": load, "load_average_at_end": os.getloadavg(),
               "seconds": time.time() - started, "rounds": args.rounds,
               "iterations": args.iterations, "warmup": args.warmup, "results": results,
               "geometric_mean_ratio": {str(k): v for k, v in geomeans.items()}, "gemm": gemm}
    json_path = os.path.join(args.out, "results.json")
    with open(json_path, "w") as f:
        json.dump(summary, f, indent=1)
    print(f"wrote {json_path}")


if __name__ == "__main__":
    main()
