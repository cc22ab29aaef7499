#!/usr/bin/python3
"""Checks `nxrt inspect --json` against the ONNX Python package (libonnx 1.12) on real models.

For each model, python onnx computes independently: opset imports, graph inputs (minus
initializers) and outputs, the op histogram by domain over the main graph and every subgraph, the
initializer count, and the subgraph count. Any difference fails the test.

usage: inspect_matches_onnx_test.py NXRT_BINARY MODEL.onnx...
"""
import collections
import json
import subprocess
import sys

import onnx


def expected(path):
    model = onnx.load(path)
    hist = collections.defaultdict(collections.Counter)
    counts = {"nodes": 0, "initializers": 0, "subgraphs": 0}

    def visit(graph):
        counts["initializers"] += len(graph.initializer) + len(graph.sparse_initializer)
        for node in graph.node:
            counts["nodes"] += 1
            hist[node.domain if node.domain not in ("", "ai.onnx") else "ai.onnx"][node.op_type] += 1
            for attr in node.attribute:
                if attr.type == onnx.AttributeProto.GRAPH:
                    counts["subgraphs"] += 1
                    visit(attr.g)
                elif attr.type == onnx.AttributeProto.GRAPHS:
                    for g in attr.graphs:
                        counts["subgraphs"] += 1
                        visit(g)

    visit(model.graph)
    init_names = {i.name for i in model.graph.initializer}
    return {
        "ir_version": model.ir_version,
        "opsets": {(o.domain if o.domain not in ("", "ai.onnx") else "ai.onnx"): o.version
                   for o in model.opset_import},
        "inputs": [i.name for i in model.graph.input if i.name not in init_names],
        "outputs": [o.name for o in model.graph.output],
        "op_histogram": {d: dict(c) for d, c in hist.items()},
        "node_count": counts["nodes"],
        "initializer_count": counts["initializers"],
        "subgraph_count": counts["subgraphs"],
    }


def actual(nxrt, path):
    out = subprocess.run([nxrt, "inspect", "--json", path], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"nxrt inspect {path} exited {out.returncode}: {out.stderr.strip()}")
    j = json.loads(out.stdout)
    return {
        "ir_version": j["ir_version"],
        "opsets": j["opsets"],
        "inputs": [p["name"] for p in j["inputs"]],
        "outputs": [p["name"] for p in j["outputs"]],
        "op_histogram": j["op_histogram"],
        "node_count": j["node_count"],
        "initializer_count": j["initializer_count"],
        "subgraph_count": j["subgraph_count"],
    }


def main():
    nxrt, models = sys.argv[1], sys.argv[2:]
    if not models:
        print("no models given: run scripts/bootstrap.sh to fetch them")
        return 1
    passed = failed = 0
    for path in models:
        try:
            want, got = expected(path), actual(nxrt, path)
        except Exception as e:  # report and go on with the next model
            print(f"FAIL {path}: {e}")
            failed += 1
            continue
        diffs = [k for k in want if want[k] != got[k]]
        if diffs:
            failed += 1
            for k in diffs:
                print(f"FAIL {path}: {k}: nxrt {got[k]!r} != onnx {want[k]!r}")
        else:
            passed += 1
            print(f"ok   {path}: {want['node_count']} nodes, "
                  f"{sum(len(v) for v in want['op_histogram'].values())} op types")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
