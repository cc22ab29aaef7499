#!/usr/bin/python3
"""The float16 and int8 variants of the generated benchmark models: nxrt's outputs against ONNX
Runtime 1.30.

bench/make_bench_models.py writes ResNet-18 and BERT-4 in float16 as fp16 exporters emit them
(float32 inputs and outputs, everything else float16); nxrt runs their float16 nodes in float32
islands (optimizer pass insert_cast), as ORT's CPU EP does. It also writes them dynamically
quantized (DynamicQuantizeLinear, ConvInteger/MatMulInteger) and statically quantized in QDQ form
(bench/quantize_models.py). Both tools run each model on the same fixed-seed inputs
(`nxrt run --random` and `ort_run --random` share the input generator) at 1 and 2 threads; every
output must agree within the variant's rounding:
  float16: |nxrt - ORT| <= 5e-3 max|ORT| + 2e-2 |ORT| (ORT keeps some work in float16, e.g. it
           folds BatchNormalization into the float16 Conv weights, so both sides differ by float16
           roundings at the scale of the output: ResNet-18's logits reach about 190 here);
  int8:    |nxrt - ORT| <= 1e-2 max|ORT|, a little more than one uint8 step of the output's
           range: a value near a rounding boundary of a QuantizeLinear may round to the
           neighbouring step when the two sides compute it differently (ORT runs ResNet-18 QDQ's
           final Gemm as its integer QGemm, nxrt as a float Gemm before the QuantizeLinear; their
           logits differ by one step of it, 1.56 of about 195).
Then the float16 BERT with insert_cast switched off (nxrt's half-precision reference loops), once,
on the smaller input.

usage: fp16_int8_models_match_ort_test.py NXRT ORT_RUN WORK_DIR
"""
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
GENERATOR = os.path.join(HERE, "..", "bench", "make_bench_models.py")

RESNET = ["--range", "image=-2.1,2.6"]
BERT = ["--dim", "batch=1", "--dim", "sequence=16", "--range", "input_ids=0,30521",
        "--value", "attention_mask=1"]
# (model stem, input flags, (relative to max|ORT|, relative to |ORT|) tolerance): small shapes,
# so that each run takes well under a second.
FP16 = (5e-3, 2e-2)
INT8 = (1e-2, 0.0)
CASES = [
    ("resnet18_fp16", RESNET, FP16),
    ("bert4_fp16", BERT, FP16),
    ("resnet18_int8_dyn", RESNET, INT8),
    ("bert4_int8_dyn", BERT, INT8),
    ("resnet18_qdq", RESNET, INT8),
    ("bert4_qdq", BERT, INT8),
]


def run(command):
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"FAILED: {' '.join(command)}\n{done.stdout}\n{done.stderr}")


def outputs(folder):
    return {name[:-4]: np.load(os.path.join(folder, name))
            for name in sorted(os.listdir(folder)) if name.endswith(".npy")}


def compare(label, got, expected, tolerance):
    if got.keys() != expected.keys():
        sys.exit(f"FAILED {label}: outputs {sorted(got)} vs ORT's {sorted(expected)}")
    for name, want in expected.items():
        have = got[name]
        if have.dtype != want.dtype or have.shape != want.shape:
            sys.exit(f"FAILED {label}: {name} is {have.dtype}{have.shape}, ORT's "
                     f"{want.dtype}{want.shape}")
        diff = np.abs(have.astype(np.float64) - want.astype(np.float64))
        scale = float(np.max(np.abs(want.astype(np.float64))))
        limit = tolerance[0] * scale + tolerance[1] * np.abs(want.astype(np.float64))
        if not np.all(np.isfinite(have)) or np.any(diff > limit):
            worst = int(np.argmax(diff - limit))
            sys.exit(f"FAILED {label}: {name} element {worst}: nxrt {have.flat[worst]}, ORT "
                     f"{want.flat[worst]} (max |diff| {diff.max():.3g})")
        print(f"ok {label}: {name} {have.shape} max |nxrt - ORT| {diff.max():.3g}")


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    nxrt, ort_run, work = sys.argv[1:]
    os.makedirs(work, exist_ok=True)
    missing = [stem for stem, _, _ in CASES
               if not os.path.exists(os.path.join(work, stem + ".onnx"))]
    if missing:
        run(["/usr/bin/python3", GENERATOR, "--nxrt", nxrt, work] + missing)
    for stem, flags, tolerance in CASES:
        model = os.path.join(work, stem + ".onnx")
        ort_dir = os.path.join(work, stem + "_ort")
        run([ort_run, model, "--random", "--seed", "3", "--output-dir", ort_dir] + flags)
        expected = outputs(ort_dir)
        for threads in (1, 2):
            nxrt_dir = os.path.join(work, f"{stem}_nxrt_{threads}")
            run([nxrt, "run", model, "--random", "--seed", "3", "--threads", str(threads),
                 "--output-dir", nxrt_dir] + flags)
            compare(f"{stem} threads {threads}", outputs(nxrt_dir), expected, tolerance)
    stem, flags, tolerance = CASES[1]
    loops_dir = os.path.join(work, f"{stem}_nxrt_loops")
    run([nxrt, "run", os.path.join(work, stem + ".onnx"), "--random", "--seed", "3",
         "--disable-pass", "insert_cast", "--output-dir", loops_dir] + flags)
    compare(f"{stem} without insert_cast", outputs(loops_dir),
            outputs(os.path.join(work, stem + "_ort")), tolerance)


if __name__ == "__main__":
    main()
