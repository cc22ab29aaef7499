#!/usr/bin/python3
"""tests/cli/cli_test.py: the `nxrt` command line as a user meets it, one CTest per case
(tests/cli/CMakeLists.txt runs `cli_test.py CASE ...`).

Every expectation comes from somewhere other than the code under test: the model built here
with python3-onnx (its ops, dtypes and values), NumPy on the same inputs, ONNX Runtime 1.30
(`ort_run`) on the same model, the example plugin's documented op list (plugins/README.md),
Graphviz and headless Chromium for the picture, Python's JSON and XML parsers, libdnnl's and
ONNX Runtime's own version functions through ctypes, and docs/cli.md for the help text.

Cases: test_onnx_plugin, exit_codes, plugin_fallback_notes, ep_option_commas,
claims_svg_chromium, flag_set, progress, profile_breakdown, scriptable_output, output_names,
optimize, compile, docs_match_help, low_bit_types, generate, run_limits, map_outputs.
"""
import argparse
import ctypes
import html
import json
import os
import pty
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ARGS = None
NODE_TESTS = "/usr/share/libonnx-testdata/data/node"
# The ops the example plugin EP claims (plugins/README.md), on float tensors only.
EXAMPLE_EP_OPS = {"Add", "Mul", "Sub", "Div", "Relu", "Sigmoid", "Tanh"}


class Failure(Exception):
    pass


def expect(condition, message):
    if not condition:
        raise Failure(message)


def nxrt(*args, env=None, timeout=600):
    """Runs nxrt with `args`; returns the CompletedProcess (text, stdout and stderr captured)."""
    command = [ARGS.nxrt] + [str(a) for a in args]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=timeout)


def expect_exit(result, code, what):
    expect(result.returncode == code,
           f"{what}: exit {result.returncode}, expected {code}\n"
           f"stdout:\n{result.stdout[-3000:]}\nstderr:\n{result.stderr[-3000:]}")


def save(model, path):
    onnx.checker.check_model(model)
    onnx.save(model, path)
    return path


def float_chain_model(path):
    """x[2,3] -> Add(c1) -> Mul(c2) -> Sub(c3) -> Relu -> y: four ops the example EP knows."""
    c = [numpy_helper.from_array(np.full([3], v, np.float32), f"c{i}")
         for i, v in enumerate([1.0, 2.0, 0.5], start=1)]
    nodes = [helper.make_node("Add", ["x", "c1"], ["a"], name="add"),
             helper.make_node("Mul", ["a", "c2"], ["m"], name="mul"),
             helper.make_node("Sub", ["m", "c3"], ["s"], name="sub"),
             helper.make_node("Relu", ["s"], ["y"], name="relu")]
    graph = helper.make_graph(nodes, "chain",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])], c)
    return save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def link_tests(folder, names):
    os.makedirs(folder, exist_ok=True)
    for name in names:
        os.symlink(os.path.join(NODE_TESTS, name), os.path.join(folder, name))
    return folder


def plugin_runs_whole_test(name):
    """Whether the example EP can take every node of node test `name` (independently of nxrt:
    from the model's ops and its tensors' element types)."""
    model = onnx.load(os.path.join(NODE_TESTS, name, "model.onnx"))
    types = {v.name: v.type.tensor_type.elem_type
             for v in list(model.graph.input) + list(model.graph.output)}
    for node in model.graph.node:
        if node.op_type not in EXAMPLE_EP_OPS:
            return False
        if any(types.get(v, TensorProto.FLOAT) != TensorProto.FLOAT
               for v in list(node.input) + list(node.output)):
            return False
    return True


# ---- test-onnx --ep plugin:... -------------------------------------------------------------------

def case_test_onnx_plugin(tmp):
    names = ["test_add", "test_add_bcast", "test_relu", "test_sigmoid", "test_tanh_example",
             "test_add_uint8", "test_matmul_2d", "test_mul_bcast"]
    suite = link_tests(os.path.join(tmp, "node"), names)
    plugin = f"plugin:{ARGS.example_ep}"
    runs = {name: plugin_runs_whole_test(name) for name in names}
    expect(any(runs.values()) and not all(runs.values()), f"a mixed set of tests: {runs}")

    # Without fallback: a test passes exactly when the plugin can take all its nodes, and then
    # the plugin ran every node.
    strict = nxrt("test-onnx", suite, "--ep", plugin, "--no-fallback", "--json",
                  "--manifest-out", os.path.join(tmp, "plugin.txt"))
    expect_exit(strict, 1, "--no-fallback with tests the plugin cannot run")
    results = {t["name"].split("/")[1]: t for t in json.loads(strict.stdout)["tests"]}
    for name, whole in runs.items():
        t = results[name]
        nodes = len(onnx.load(os.path.join(NODE_TESTS, name, "model.onnx")).graph.node)
        if whole:
            expect(t["outcome"] == "pass", f"{name}: {t}")
            expect(t["nodes_by_ep"] == {"example_ep": nodes}, f"{name}: plugin ran all: {t}")
        else:
            expect(t["outcome"] == "fail", f"{name} cannot run on the plugin alone: {t}")
    manifest = [line for line in open(os.path.join(tmp, "plugin.txt")).read().splitlines()
                if line and not line.startswith("#")]
    expect(sorted(manifest) == sorted(f"node/{n}" for n, w in runs.items() if w),
           f"--manifest-out wrote the passing tests: {manifest}")
    # The plugin's own manifest makes the strict run pass.
    again = nxrt("test-onnx", suite, "--ep", plugin, "--no-fallback", "--manifest",
                 os.path.join(tmp, "plugin.txt"))
    expect_exit(again, 0, "the plugin's own manifest")

    # With fallback every test passes; the text says per test who ran the nodes.
    loose = nxrt("test-onnx", suite, "--ep", plugin)
    expect_exit(loose, 0, "with fallback to the CPU EP")
    for name, whole in runs.items():
        line = next((l for l in loose.stdout.splitlines() if f"node/{name} " in l), "")
        expect(line.startswith("pass "), f"{name} listed as passing: {loose.stdout}")
        expect(("[example_ep " in line) == whole and ("cpu " in line) == (not whole),
               f"{name}: the line says who ran its nodes: {line!r}")
    expect(re.search(r"eps: example_ep ran every node of %d tests, some of 0, none of %d" %
                     (sum(runs.values()), len(runs) - sum(runs.values())), loose.stdout),
           f"the summary counts the tests per EP: {loose.stdout}")


# ---- exit codes ----------------------------------------------------------------------------------

def broken_copy(src, dst):
    """A copy of node test `src` whose expected output is wrong (each value + 1)."""
    shutil.copytree(src, dst)
    path = os.path.join(dst, "test_data_set_0", "output_0.pb")
    tensor = onnx.TensorProto()
    tensor.ParseFromString(open(path, "rb").read())
    wrong = numpy_helper.from_array(numpy_helper.to_array(tensor) + 1, tensor.name)
    open(path, "wb").write(wrong.SerializeToString())


def case_exit_codes(tmp):
    model = float_chain_model(os.path.join(tmp, "chain.onnx"))
    faults = ARGS.plugins_dir
    missing_lib = "plugin:/nonexistent/libnothing.so"
    compile_fails = f"plugin:{faults}/libnxrt_fault_compile_fails.so"
    compute_fails = f"plugin:{faults}/libnxrt_fault_compute_fails.so"
    np.save(os.path.join(tmp, "ints.npy"), np.zeros([2, 3], np.int32))
    cases = [
        # (what, args, exit code)
        ("run ok", ["run", model, "--random"], 0),
        ("missing model", ["run", os.path.join(tmp, "none.onnx"), "--random"], 1),
        ("input of the wrong dtype", ["run", model, "--input", f"x={tmp}/ints.npy"], 2),
        ("unknown input name", ["run", model, "--random", "--value", "nope=1"], 2),
        ("unknown flag", ["run", model, "--frobnicate"], 2),
        ("unknown pass", ["run", model, "--random", "--disable-pass", "nope"], 2),
    ]
    for verb in ["run", "claims", "bench", "test-onnx"]:
        target = os.path.join(NODE_TESTS, "test_add") if verb == "test-onnx" else model
        cases += [
            (f"{verb} bad --opt-level", [verb, target, "--opt-level", "7"], 2),
            (f"{verb} bad --ep", [verb, target, "--ep", "cpu,,cpu"], 2),
            (f"{verb} --ep-option naming no EP", [verb, target, "--ep-option", "5:k=v"], 2),
            (f"{verb} unknown EP type", [verb, target, "--ep", "gpu"], 2),
        ]
        extra = ["--random"] if verb == "run" else ["--iterations", "2"] if verb == "bench" else []
        for what, ep in [("missing plugin", missing_lib), ("plugin failing Compile", compile_fails),
                         ("plugin failing Compute", compute_fails)]:
            if verb == "claims" and ep == compute_fails:
                continue  # claims computes nothing
            if verb == "test-onnx":
                target = os.path.join(NODE_TESTS, "test_add")
            cases += [
                (f"{verb} {what}", [verb, target, "--ep", ep] + extra, 3),
                (f"{verb} {what}, accepted", [verb, target, "--ep", ep,
                                              "--allow-fallback-warnings"] + extra, 0),
                (f"{verb} {what}, no fallback", [verb, target, "--ep", ep, "--no-fallback"] + extra,
                 1),
            ]
    cases.append(("claims with unplaced nodes",
                  ["claims", model, "--ep", f"plugin:{ARGS.example_ep}", "--ep-option",
                   "claim_ops=Add", "--no-fallback"], 1))
    for what, args, code in cases:
        expect_exit(nxrt(*args), code, what)

    # test-onnx: failures, manifests, empty folders and filters.
    suite = os.path.join(tmp, "mysuite")
    link_tests(suite, ["test_add"])
    broken_copy(os.path.join(NODE_TESTS, "test_relu"), os.path.join(suite, "test_broken"))
    empty = os.path.join(tmp, "empty")
    os.makedirs(empty)
    only_add = os.path.join(tmp, "only_add.txt")
    open(only_add, "w").write("mysuite/test_add\n")
    ghost = os.path.join(tmp, "ghost.txt")
    open(ghost, "w").write("mysuite/test_add\nmysuite/test_ghost\nother/test_x\n")
    failing = nxrt("test-onnx", suite)
    expect_exit(failing, 1, "a failing test without a manifest")
    expect("fail mysuite/test_broken" in failing.stdout, failing.stdout)
    expect_exit(nxrt("test-onnx", suite, "--manifest", only_add), 0,
                "a failure the manifest does not list")
    listed_missing = nxrt("test-onnx", suite, "--manifest", ghost)
    expect_exit(listed_missing, 1, "a manifest entry naming a test that is not there")
    expect("MISSING mysuite/test_ghost" in listed_missing.stdout and
           "other/test_x" not in listed_missing.stdout, listed_missing.stdout)
    with_empty = nxrt("test-onnx", empty, suite, "--manifest", only_add)
    expect_exit(with_empty, 1, "an empty folder among the folders")
    expect("suite mysuite: pass 1, fail 1" in with_empty.stdout,
           f"the other folder still ran, with a summary: {with_empty.stdout}")
    expect_exit(nxrt("test-onnx", suite, "--filter", "zzz"), 1, "a filter matching nothing")
    expect_exit(nxrt("test-onnx", suite, "--filter", "test_add"), 0, "a filter matching a pass")


# ---- what the fallback did, said once ------------------------------------------------------------

def case_plugin_fallback_notes(tmp):
    """With the fallback on, `nxrt run` says once per plugin that it left nodes to the CPU EP
    (claimed none, some, or its GetCapability failed); a node no EP runs gets a fix that does not
    suggest the fallback already on."""
    model = float_chain_model(os.path.join(tmp, "chain.onnx"))
    chain_ops = ["Add", "Mul", "Sub", "Relu"]  # float_chain_model's nodes, in order
    lib = ARGS.example_ep
    capability_fails = f"{ARGS.plugins_dir}/libnxrt_fault_capability_fails.so"

    def notes(result):
        return [line for line in result.stderr.splitlines() if ": note: ep '" in line]

    for claim_ops in ["Tanh", "Add", "Add,Sub", "Add,Mul,Sub,Relu"]:
        result = nxrt("run", model, "--random", "--ep", f"plugin:{lib}", "--ep-option",
                      f"claim_ops={claim_ops}")
        expect_exit(result, 0, f"claim_ops={claim_ops}: the fallback runs the rest")
        k = sum(op in claim_ops.split(",") and op in EXAMPLE_EP_OPS for op in chain_ops)
        n = len(chain_ops)
        if k == n:
            expected = []
        elif k == 0:
            expected = [f"nxrt run: note: ep 'example_ep' claimed none of the model's {n} nodes; "
                        f"{n} run on the CPU EP (`nxrt claims` shows each node's reason)"]
        else:
            expected = [f"nxrt run: note: ep 'example_ep' claimed {k} of the model's {n} nodes; "
                        f"{n - k} run on the CPU EP (`nxrt claims` shows each node's reason)"]
        expect(notes(result) == expected,
               f"claim_ops={claim_ops}: notes {notes(result)}, expected {expected}\n"
               f"stderr:\n{result.stderr}")
        strict = nxrt("run", model, "--random", "--ep", f"plugin:{lib}", "--ep-option",
                      f"claim_ops={claim_ops}", "--no-fallback")
        expect(notes(strict) == [], f"no notes without the fallback: {strict.stderr}")

    failing = nxrt("run", model, "--random", "--ep", f"plugin:{capability_fails}")
    said = notes(failing)
    expect(len(said) == 1 and "ep 'fault_capability_fails' claimed 0 of the model's 4 nodes: "
           "its GetCapability failed (" in said[0] and "GetCapability fails on purpose" in said[0]
           and said[0].endswith("; 4 run on the CPU EP"),
           f"a failing GetCapability is said once: {said}\nstderr:\n{failing.stderr}")

    # A node of a domain no EP knows: with the fallback on, the CPU EP was asked too.
    custom = helper.make_graph(
        [helper.make_node("Add", ["x", "x"], ["a"], name="add"),
         helper.make_node("Frobnicate", ["a"], ["y"], name="frob", domain="com.example")],
        "custom", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
    unknown = os.path.join(tmp, "custom.onnx")
    onnx.save(helper.make_model(custom, opset_imports=[helper.make_opsetid("", 17),
                                                       helper.make_opsetid("com.example", 1)]),
              unknown)
    loose = nxrt("run", unknown, "--random", "--ep", f"plugin:{lib}")
    expect(loose.returncode != 0 and "no execution provider runs them" in loose.stderr and
           "Frobnicate" in loose.stderr and "allow the CPU EP fallback" not in loose.stderr and
           "the CPU EP was asked too" in loose.stderr,
           f"with the fallback on the fix does not offer it: {loose.stderr}")
    strict = nxrt("run", unknown, "--random", "--ep", f"plugin:{lib}", "--no-fallback")
    expect(strict.returncode != 0 and "allow the CPU EP fallback" in strict.stderr,
           f"without the fallback the fix offers it: {strict.stderr}")


# ---- option values with commas -------------------------------------------------------------------

def claimed_ops(report):
    return sorted({n["op_type"] for g in report["graphs"] for c in g["claims"]
                   if c["ep"] == "example_ep" for n in c["nodes"]})


def case_ep_option_commas(tmp):
    model = float_chain_model(os.path.join(tmp, "chain.onnx"))
    lib = ARGS.example_ep
    forms = [
        ["--ep", f'plugin:{lib};claim_ops="Add,Mul"'],
        ["--ep", f"plugin:{lib}", "--ep-option", "claim_ops=Add,Mul"],
        ["--ep", f"plugin:{lib},cpu", "--ep-option", f"plugin:{lib}:claim_ops=Add,Mul"],
        ["--ep", f"cpu,plugin:{lib}", "--ep-option", "2:claim_ops=Add,Mul"],
    ]
    for form in forms:
        result = nxrt("claims", model, "--json", *form)
        expect_exit(result, 0, f"claims {form}")
        report = json.loads(result.stdout)
        if form[1].startswith("cpu,"):
            expect(claimed_ops(report) == [], f"the CPU EP first takes everything: {form}")
            continue
        expect(claimed_ops(report) == ["Add", "Mul"], f"{form}: {claimed_ops(report)}")
        declined = {d["node"]["op_type"]: d["reasons"] for g in report["graphs"]
                    for d in g["declined"]}
        expect(set(declined) == {"Sub", "Relu"}, f"{form}: declined {declined}")
    # The value reaches the plugin whole: an op it cannot run is named in its error.
    bad = nxrt("claims", model, "--ep", f"plugin:{lib}", "--ep-option", "claim_ops=Add,Conv")
    expect_exit(bad, 3, "a rejected option drops the plugin")
    expect("'Add,Conv'" in bad.stderr or "Conv" in bad.stderr, bad.stderr)
    unquoted = nxrt("claims", model, "--ep", f"plugin:{lib};claim_ops=Add,Mul")
    expect_exit(unquoted, 2, "without quotes the comma separates EPs")
    unclosed = nxrt("claims", model, "--ep", f'plugin:{lib};claim_ops="Add,Mul')
    expect_exit(unclosed, 2, "an unclosed quote")
    expect("unclosed" in unclosed.stderr, unclosed.stderr)


# ---- claims --format dot|svg, checked in Chromium ------------------------------------------------

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"]

PAGE_SCRIPT = """
const seen = [...document.querySelectorAll('div.picture')].map(div => {
const nodes = [...div.querySelectorAll('svg g.node')].map(g => {
  const fills = [...g.querySelectorAll('path, polygon, ellipse')]
      .map(e => e.getAttribute('fill')).filter(f => f && f !== 'none');
  const a = g.querySelector('a');
  return {id: g.querySelector('title').textContent, fill: fills[0] || null,
          tooltip: a ? (a.getAttribute('xlink:title') || a.getAttribute('title')) : null,
          width: g.getBBox().width};
});
const clusters = [...div.querySelectorAll('svg g.cluster')].map(
    g => g.querySelector('title').textContent);
const label = [...div.querySelectorAll('svg > g > text')].map(t => t.textContent).join(' ');
return {nodes, clusters, label};
});
document.getElementById('out').textContent = JSON.stringify(seen);
"""


def chromium_read_svgs(svgs, tmp):
    """What headless Chromium sees in each SVG of `svgs`, all on one page (one launch)."""
    pictures = "".join("<div class='picture'>%s</div>" %
                       re.sub(r"<\?xml[^>]*\?>|<!DOCTYPE[^>]*>", "", svg) for svg in svgs)
    page = os.path.join(tmp, "page.html")
    with open(page, "w") as f:
        f.write(f"<html><body>{pictures}<pre id='out'></pre><script>{PAGE_SCRIPT}</script>"
                "</body></html>")
    profile = tempfile.mkdtemp(dir=tmp)
    dom = subprocess.run([ARGS.chromium] + CHROMIUM_FLAGS +
                         [f"--user-data-dir={profile}", "--dump-dom", f"file://{page}"],
                         capture_output=True, text=True, timeout=180)
    found = re.search(r"<pre id=\"out\">(.*?)</pre>", dom.stdout, re.S)
    expect(found and found.group(1), f"Chromium ran the page: {dom.stdout[-2000:]}"
                                     f"{dom.stderr[-2000:]}")
    return json.loads(html.unescape(found.group(1)))


def case_claims_svg_chromium(tmp):
    cases = [("oww_hey_jarvis", ["--ep", f"plugin:{ARGS.example_ep}"]),
             ("silero_vad_v5", [])]
    reports, svgs = [], []
    for model_name, flags in cases:
        model = os.path.join(ARGS.models, model_name + ".onnx")
        reports.append(json.loads(nxrt("claims", model, "--json", *flags).stdout))
        dot = nxrt("claims", model, "--format", "dot", *flags)
        expect_exit(dot, 0, "claims --format dot")
        expect(dot.stdout.startswith("digraph placement {"), dot.stdout[:200])
        svg = nxrt("claims", model, "--format", "svg", *flags)
        expect_exit(svg, 0, "claims --format svg")
        svgs.append(svg.stdout)
    pictures = chromium_read_svgs(svgs, tmp)
    expect(len(pictures) == len(cases), f"Chromium saw {len(pictures)} pictures")
    for (model_name, flags), report, seen in zip(cases, reports, pictures):
        nodes = {n["id"]: n for n in seen["nodes"]}
        # Every node of every graph of the report, once.
        want = {}
        for g, graph in enumerate(report["graphs"]):
            for c in graph["claims"]:
                for n in c["nodes"]:
                    want[f"g{g}n{n['id']}"] = c["ep"]
            for r in graph["runtime_nodes"]:
                want[f"g{g}n{r['node']['id']}"] = r["ep"] or "unplaced"
            for n in graph["unplaced"]:
                want.setdefault(f"g{g}n{n['id']}", "unplaced")
            expect(sum(1 for k in want if k.startswith(f"g{g}n")) == graph["node_count"],
                   f"{model_name} graph {g}: the report covers its nodes")
        expect(len(seen["nodes"]) == len(nodes) == len(want) ==
               sum(g["node_count"] for g in report["graphs"]),
               f"{model_name}: {len(seen['nodes'])} nodes drawn, {len(want)} in the JSON")
        expect(set(nodes) == set(want), f"{model_name}: node ids differ")
        expect(all(n["width"] > 0 for n in seen["nodes"]), "every node is rendered")
        # Colours: one per EP, named in the legend; each node filled with its EP's.
        legend = dict(re.findall(r"(\S+) (#[0-9a-f]{6})", seen["label"]))
        for node_id, ep in want.items():
            if ep != "unplaced":
                expect(nodes[node_id]["fill"] == legend[ep],
                       f"{model_name} {node_id} on {ep}: fill {nodes[node_id]['fill']}, "
                       f"legend {legend}")
        # Clusters: one per graph and one per claim.
        claims = sum(len(g["claims"]) for g in report["graphs"])
        expect(len(seen["clusters"]) == len(report["graphs"]) + claims,
               f"{model_name}: {len(seen['clusters'])} clusters for "
               f"{len(report['graphs'])} graphs and {claims} claims")
        # Declined nodes carry every reason as their tooltip.
        declined = 0
        for g, graph in enumerate(report["graphs"]):
            for d in graph["declined"]:
                tooltip = nodes[f"g{g}n{d['node']['id']}"]["tooltip"] or ""
                for why in d["reasons"]:
                    expect(f"{why['ep']}: {why['reason']}" in tooltip,
                           f"{model_name}: tooltip of {d['node']} lacks {why}: {tooltip!r}")
                declined += 1
        if flags:
            expect(declined > 0, f"{model_name} with the plugin has declined nodes")
        else:
            expect(len(report["graphs"]) > 1, "silero v5 has bodies drawn as nested clusters")


# ---- one flag set --------------------------------------------------------------------------------

SHARED = ["--ep", "--ep-option", "--no-fallback", "--allow-fallback-warnings", "--opt-level",
          "--disable-pass", "--threads", "--time-limit-ms", "--loop-trip-limit",
          "--memory-limit-mb", "--seed", "--dim", "--shape", "--range", "--value",
          "--input", "--json", "--stats", "--profile"]


def help_options(verb):
    """{flag: default or None} from `nxrt VERB --help`."""
    text = nxrt(verb, "--help").stdout
    options = {}
    for match in re.finditer(r"^\s+(?:-\w,)?(--[a-z0-9-]+)(?:\s+(\S+))?", text, re.M):
        default = re.search(r"=(\S+)", match.group(2) or "")
        options[match.group(1)] = default.group(1) if default else None
    return options


def case_flag_set(tmp):
    defaults = {}
    for verb in ["run", "bench", "claims", "test-onnx"]:
        options = help_options(verb)
        for flag in SHARED:
            expect(flag in options, f"nxrt {verb} --help lists {flag}")
            defaults.setdefault(flag, {})[verb] = options[flag]
    for flag, by_verb in defaults.items():
        expect(len(set(by_verb.values())) == 1, f"{flag} has one default: {by_verb}")
    # Each verb accepts the whole set in one command line.
    model = float_chain_model(os.path.join(tmp, "chain.onnx"))
    common = ["--ep", f"plugin:{ARGS.example_ep},cpu", "--ep-option", "claim_ops=Add,Mul",
              "--no-fallback", "--opt-level", "1", "--threads", "1",
              "--seed", "3", "--dim", "N=1", "--shape", "x=2,3", "--range", "x=-1,1",
              "--stats", "--json", "--profile", os.path.join(tmp, "trace.json"),
              "--allow-fallback-warnings"]
    for verb, target, extra in [("run", model, ["--random"]),
                                ("bench", model, ["--iterations", "2"]),
                                ("claims", model, []),
                                ("test-onnx", os.path.join(NODE_TESTS, "test_add"), [])]:
        result = nxrt(verb, target, *common, *extra)
        expect_exit(result, 0, f"{verb} with the whole shared flag set")
        json.loads(result.stdout)
    # Silero VAD v5 runs with --random once its unnamed dims get a --shape; without, one error
    # names every input that needs one.
    silero = os.path.join(ARGS.models, "silero_vad_v5.onnx")
    missing = nxrt("run", silero, "--random")
    expect_exit(missing, 2, "silero v5 without shapes")
    expect("'input' (float[?,?]" in missing.stderr and "'state' (float[2,?,128]" in missing.stderr,
           f"both inputs named at once: {missing.stderr}")
    ran = nxrt("run", silero, "--random", "--shape", "input=1,512", "--shape", "state=2,1,128",
               "--value", "sr=16000", "--json")
    expect_exit(ran, 0, "silero v5 with --shape")
    outputs = {o["name"]: o for o in json.loads(ran.stdout)["outputs"]}
    expect(outputs["output"]["shape"] == [1, 1] and outputs["stateN"]["shape"] == [2, 1, 128],
           f"silero outputs: {outputs}")


# ---- progress on a terminal ----------------------------------------------------------------------

def run_with_terminal_stderr(args, timeout=300):
    """Runs nxrt with stderr on a pseudo-terminal; returns (exit code, stdout, stderr text,
    seconds until the first stdout byte, seconds until the end)."""
    master, slave = pty.openpty()
    start = time.monotonic()
    process = subprocess.Popen([ARGS.nxrt] + args, stdout=subprocess.PIPE, stderr=slave,
                               env=dict(os.environ, TERM="xterm"))
    os.close(slave)
    err, out, first_out = b"", b"", None
    streams = [master, process.stdout]
    while streams and time.monotonic() - start < timeout:
        ready, _, _ = select.select(streams, [], [], 1)
        for fd in ready:
            try:
                data = os.read(fd if fd == master else fd.fileno(), 65536)
            except OSError:
                data = b""
            if not data:
                streams.remove(fd)
            elif fd == master:
                err += data
            else:
                out += data
                if first_out is None:
                    first_out = time.monotonic() - start
    process.wait(timeout=60)
    os.close(master)
    return (process.returncode, out.decode(), err.decode(errors="replace"), first_out,
            time.monotonic() - start)


def case_progress(tmp):
    model = float_chain_model(os.path.join(tmp, "chain.onnx"))
    code, out, err, first, total = run_with_terminal_stderr(
        ["bench", model, "--iterations", "200", "--min-seconds", "1"])
    expect(code == 0, f"bench exit {code}: {err}")
    expect(re.search(r"bench \[#*\.*\] \d+/\d+ \d+%", err), f"a progress bar: {err[-500:]!r}")
    expect("ETA" in err or "100%" in err, f"with an ETA: {err[-500:]!r}")
    expect(first is not None and first < total - 0.9,
           f"the header came at once ({first} s of {total} s)")
    expect(err.endswith("\r\x1b[K"), f"the bar is erased at the end: {err[-80:]!r}")

    # The bar redraws at most every 100 ms and shows an ETA only between the first and the last
    # test, so the suite must outlast that interval a few times: 16 reduce tests once took less.
    suite = link_tests(os.path.join(tmp, "suite"), sorted(
        n for n in os.listdir(NODE_TESTS)
        if n.startswith(("test_reduce_", "test_conv", "test_lstm", "test_gru", "test_rnn"))))
    code, out, err, _, _ = run_with_terminal_stderr(["test-onnx", suite, "--threads", "1"])
    expect(re.search(r"test-onnx \[#*\.*\] \d+/\d+ \d+%  ETA", err),
           f"test-onnx shows counts and an ETA: {err[-500:]!r}")
    expect("\r" not in out, "nothing of the bar on stdout")

    # A run longer than two seconds gets a spinner naming the step.
    det = os.path.join(ARGS.models, "ppocrv4_det.onnx")
    code, out, err, _, _ = run_with_terminal_stderr(
        ["run", det, "--random", "--shape", "x=1,3,480,640", "--repeat", "60", "--threads", "1"])
    expect(code == 0, f"run exit {code}: {err[-500:]}")
    expect(re.search(r"[|/\\-] \d+\.\d s  run \d+ of 60: step \d+ of \d+ \S+ '", err),
           f"a spinner with the step: {err[-500:]!r}")
    # Without a terminal, no progress at all.
    plain = nxrt("bench", model, "--iterations", "200", "--min-seconds", "1")
    expect("\r" not in plain.stderr and "ETA" not in plain.stderr, plain.stderr)


# ---- --stats and --profile break control-flow bodies down ----------------------------------------

SILERO_FLAGS = ["--shape", "input=1,512", "--shape", "state=2,1,128", "--value", "sr=16000"]


def case_profile_breakdown(tmp):
    silero = os.path.join(ARGS.models, "silero_vad_v5.onnx")
    trace_path = os.path.join(tmp, "trace.json")
    result = nxrt("run", silero, *SILERO_FLAGS, "--repeat", "2", "--stats", "--json", "--profile",
                  trace_path)
    expect_exit(result, 0, "silero v5 --stats --profile")
    stats = json.loads(result.stdout)["stats"]
    steps = stats["steps"]
    body = [s for s in steps if s["graph"] > 0 and s["calls"] > 0]
    expect(body, "steps of If bodies are rows of their own")
    expect(all(" / node '" in s["where"] for s in body), "and say where they are")
    ops = {o["op_type"]: o for o in stats["by_op_type"]}
    expect(len(ops) > 3, f"more than If: {list(ops)}")
    self_times = [o["self_us"] for o in stats["by_op_type"]]
    expect(self_times == sorted(self_times, reverse=True), "op types sorted, slowest first")
    expect(abs(sum(o["percent"] for o in stats["by_op_type"]) - 100) < 1e-6, "percentages")
    expect(abs(sum(s["self_us"] for s in steps) - stats["total_us"]) < 1e-6 * stats["total_us"],
           "self times add up to the total")
    by_index = {s["index"]: s for s in steps}
    for s in body:
        parent = by_index[s["parent"]]
        expect(parent["op_type"] in ("If", "Loop", "Scan"), f"{s} inside {parent}")
        expect(parent["total_us"] >= s["total_us"], "a parent's time holds its body's")

    text = nxrt("run", silero, *SILERO_FLAGS, "--stats")
    table = text.stdout.split("time by op type")[1].split("steps, slowest first")[0]
    rows = re.findall(r"^  (\S+)\s+(\d+)\s+\S+\s+([\d.]+)\s+([\d.]+)$", table, re.M)
    times = [float(r[2]) for r in rows if r[0] != "total"]
    expect(len(times) > 3 and times == sorted(times, reverse=True), f"text sorted: {table}")
    expect(rows[-1][0] == "total", f"with a total row: {table}")

    events = json.load(open(trace_path))["traceEvents"]
    spans = [e for e in events if e["ph"] == "X"]
    for e in spans:
        expect(isinstance(e["ts"], (int, float)) and e["dur"] >= 0 and "pid" in e and "tid" in e,
               f"a complete event Perfetto reads: {e}")
    runs = [e for e in spans if e["name"] == "run" and e["cat"] == "session"]
    expect(len(runs) == 2, f"one span per run: {len(runs)}")
    steps_traced = [e for e in spans if e is not None and e not in runs]

    def inside(e, outer):
        return any(o["tid"] == e["tid"] and o["ts"] <= e["ts"] + 1e-3 and
                   e["ts"] + e["dur"] <= o["ts"] + o["dur"] + 1e-3 for o in outer)
    expect(all(inside(e, runs) for e in steps_traced), "every step inside a run span")
    ifs = [e for e in steps_traced if e["args"]["op_type"] == "If"]
    in_bodies = [e for e in steps_traced if e["args"]["graph"] != "main graph"]
    expect(in_bodies and all(inside(e, ifs) for e in in_bodies),
           "every body step inside an If span")
    expect(len(in_bodies) == sum(s["calls"] for s in steps if s["graph"] > 0),
           f"one span per body step run: {len(in_bodies)}")
    shaped = [e for e in steps_traced if e["args"]["inputs"]]
    expect(shaped and all(all(re.fullmatch(r"(\w+\[[\d,]*\])?", d)
                              for d in e["args"]["inputs"] + e["args"]["outputs"])
                          for e in shaped), "inputs and outputs as dtype[shape]")


# ---- run --json, test-onnx --junit, bench --json, --version --------------------------------------

def case_scriptable_output(tmp):
    model = float_chain_model(os.path.join(tmp, "chain.onnx"))
    x = np.array([[-3, -1, 0], [0.5, 2, 7]], np.float32)
    np.save(os.path.join(tmp, "x.npy"), x)
    y = np.maximum((x + 1) * 2 - 0.5, 0)
    result = nxrt("run", model, "--input", f"x={tmp}/x.npy", "--json",
                  "--output-dir", os.path.join(tmp, "out"))
    expect_exit(result, 0, "run --json")
    report = json.loads(result.stdout)
    out = report["outputs"][0]
    expect(out["name"] == "y" and out["dtype"] == "float" and out["shape"] == [2, 3], out)
    for key, value in [("min", y.min()), ("max", y.max()), ("mean", y.mean())]:
        expect(abs(out[key] - float(value)) < 1e-5, f"{key}: {out[key]} vs NumPy {value}")
    expect(np.allclose(np.load(out["file"]), y), "the file holds the output")
    expect(os.path.exists(report["manifest"]), report)

    suite = link_tests(os.path.join(tmp, "node"), ["test_add", "test_relu", "test_abs"])
    broken_copy(os.path.join(NODE_TESTS, "test_sigmoid"), os.path.join(suite, "test_broken"))
    junit_path = os.path.join(tmp, "junit.xml")
    results = nxrt("test-onnx", suite, "--json", "--junit", junit_path)
    expect_exit(results, 1, "one test fails")
    totals = json.loads(results.stdout)["totals"]
    root = ET.parse(junit_path).getroot()
    expect(root.tag == "testsuites", root.tag)
    expect(int(root.get("tests")) == sum(totals.values()) and
           int(root.get("failures")) == totals["fail"] and
           int(root.get("errors")) == totals["error"], f"{root.attrib} vs {totals}")
    cases = root.findall("./testsuite/testcase")
    failed = [c.get("name") for c in cases if c.find("failure") is not None]
    expect(failed == ["test_broken"], f"failures: {failed}")
    expect(all(float(c.get("time")) >= 0 for c in cases), "times")

    bench = nxrt("bench", model, "--iterations", "40", "--json")
    expect_exit(bench, 0, "bench --json")
    b = json.loads(bench.stdout)
    expect(b["median_ms"] <= b["p90_ms"] <= b["p95_ms"] <= b["p99_ms"] <= b["max_ms"], b)
    expect(abs(b["runs_per_second"] - 1000 / b["mean_ms"]) < 1e-6 * b["runs_per_second"], b)

    version = nxrt("--version")
    expect_exit(version, 0, "--version")
    expect(b["runtime_version"] and f"nxrt {b['runtime_version']}\n" in version.stdout + "\n",
           f"bench reports the version --version prints: {b['runtime_version']} / {version.stdout}")
    # oneDNN's version from libdnnl itself.
    dnnl = ctypes.CDLL("libdnnl.so.2")

    class DnnlVersion(ctypes.Structure):
        _fields_ = [("major", ctypes.c_int), ("minor", ctypes.c_int), ("patch", ctypes.c_int),
                    ("hash", ctypes.c_char_p), ("cpu_runtime", ctypes.c_uint),
                    ("gpu_runtime", ctypes.c_uint)]
    dnnl.dnnl_version.restype = ctypes.POINTER(DnnlVersion)
    v = dnnl.dnnl_version().contents
    expect(f"oneDNN {v.major}.{v.minor}.{v.patch} (commit {v.hash.decode()})" in version.stdout,
           version.stdout)
    # The ORT version served is ONNX Runtime 1.30's own, and so is its highest API version.
    ort = ctypes.CDLL(ARGS.ort_library)

    class OrtApiBase(ctypes.Structure):
        _fields_ = [("GetApi", ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_uint32)),
                    ("GetVersionString", ctypes.CFUNCTYPE(ctypes.c_char_p))]
    ort.OrtGetApiBase.restype = ctypes.POINTER(OrtApiBase)
    base = ort.OrtGetApiBase().contents
    served = re.search(r"ONNX Runtime C API served: (\S+) \(ORT_API_VERSION 1 to (\d+);",
                       version.stdout)
    expect(served, version.stdout)
    top = int(served.group(2))
    expect(served.group(1) == base.GetVersionString().decode() and base.GetApi(top) and
           not base.GetApi(top + 1), f"{version.stdout}: ONNX Runtime's own library serves "
                                     f"{base.GetVersionString().decode()} up to another version")


# ---- output file names ---------------------------------------------------------------------------

def expected_stem(name):
    """docs/cli.md's mapping, written again here."""
    raw = name.encode()
    stem = "".join(chr(b) if (chr(b).isascii() and (chr(b).isalnum() or chr(b) in "_.-")) and
                   not (i == 0 and chr(b) == ".") else "%%%02X" % b for i, b in enumerate(raw))
    if len(stem) <= 120:
        return stem
    cut = 100
    if stem[cut - 1] == "%":
        cut -= 1
    elif stem[cut - 2] == "%":
        cut -= 2
    h = 0xcbf29ce484222325
    for b in raw:
        h = ((h ^ b) * 0x100000001b3) % (1 << 64)
    return stem[:cut] + "~%016x" % h


def case_output_names(tmp):
    names = ['{"1": "a"}', "a/b", ".hidden", "x y", "ünï", "..", "n" * 300, "a%2Fb", "CON"]
    nodes, outputs, inits = [], [], []
    for k, name in enumerate(names):
        inits.append(numpy_helper.from_array(np.array([k], np.float32), f"k{k}"))
        nodes.append(helper.make_node("Add", ["x", f"k{k}"], [name]))
        outputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, [2]))
    graph = helper.make_graph(nodes, "names",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              outputs, inits)
    model = save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
                 os.path.join(tmp, "names.onnx"))
    x = np.array([1.5, -2], np.float32)
    np.save(os.path.join(tmp, "x.npy"), x)
    out_dir = os.path.join(tmp, "out")
    result = nxrt("run", model, "--input", f"x={tmp}/x.npy", "--output-dir", out_dir)
    expect_exit(result, 0, "run --output-dir")
    files = sorted(os.listdir(out_dir))
    want = sorted([expected_stem(n) + ".npy" for n in names] + ["manifest.json"])
    expect(files == want, f"files {files}, expected {want}")
    manifest = json.load(open(os.path.join(out_dir, "manifest.json")))
    expect([o["name"] for o in manifest["outputs"]] == names, manifest)
    for k, entry in enumerate(manifest["outputs"]):
        expect(entry["file"] == expected_stem(names[k]) + ".npy", entry)
        expect(np.array_equal(np.load(os.path.join(out_dir, entry["file"])), x + k), entry)
        expect(entry["dtype"] == "float" and entry["shape"] == [2], entry)


# ---- nxrt optimize -------------------------------------------------------------------------------

def conv_model(path):
    """x[1,3,8,8] -> Conv -> BatchNormalization -> Relu -> Flatten -> MatMul -> Add -> y: what
    conv_bn_folding, MatMul+Add -> Gemm and (level 2) the fused-activation passes rewrite."""
    rng = np.random.default_rng(7)
    w = rng.standard_normal([4, 3, 3, 3]).astype(np.float32)
    bn = [rng.uniform(0.5, 1.5, [4]).astype(np.float32),
          rng.standard_normal([4]).astype(np.float32),
          rng.standard_normal([4]).astype(np.float32),
          rng.uniform(0.5, 1.5, [4]).astype(np.float32)]
    m = rng.standard_normal([144, 5]).astype(np.float32)
    b = rng.standard_normal([5]).astype(np.float32)
    inits = [numpy_helper.from_array(a, n) for a, n in
             [(w, "w"), (bn[0], "scale"), (bn[1], "bias"), (bn[2], "mean"), (bn[3], "var"),
              (m, "m"), (b, "b")]]
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[0, 0, 0, 0]),
             helper.make_node("BatchNormalization", ["c", "scale", "bias", "mean", "var"], ["n"]),
             helper.make_node("Relu", ["n"], ["r"]),
             helper.make_node("Flatten", ["r"], ["f"]),
             helper.make_node("MatMul", ["f", "m"], ["p"]),
             helper.make_node("Add", ["p", "b"], ["y"])]
    graph = helper.make_graph(nodes, "conv",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5])],
                              inits)
    return save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def ort_outputs(model, folder):
    os.makedirs(folder)
    result = subprocess.run([ARGS.ort_run, model, "--random", "--seed", "5", "--output-dir",
                             folder, "--no-opt"], capture_output=True, text=True, timeout=300)
    expect(result.returncode == 0, f"ort_run {model}: {result.stderr}")
    return {f: np.load(os.path.join(folder, f)) for f in os.listdir(folder) if f.endswith(".npy")}


def ort_greedy(model, prompt, new_tokens, tmp):
    """ONNX Runtime's greedy tokens for `model` (make_decoder.py's form), one `ort_run` process per
    step fed .npy files, each step's present arrays fed back as the next past (ORT's own cache
    handling, not the generator's)."""
    decl = onnx.load(model).graph.input
    pasts = {}
    for v in decl:
        if v.name.startswith("past_key_values."):
            dims = [d.dim_value for d in v.type.tensor_type.shape.dim]
            pasts[v.name] = np.zeros([1, dims[1], 0, dims[3]], np.float32)
    ids, total, tokens = list(prompt), 0, []
    for step in range(new_tokens):
        total += len(ids)
        folder = os.path.join(tmp, f"step{step}")
        os.makedirs(folder)
        feeds = {"input_ids": np.array([ids], np.int64),
                 "attention_mask": np.ones([1, total], np.int64), **pasts}
        args = []
        for name, array in feeds.items():
            path = os.path.join(folder, name + ".in.npy")
            np.save(path, array)
            args += ["--input", f"{name}={path}"]
        out = os.path.join(folder, "out")
        result = subprocess.run([ARGS.ort_run, model, *args, "--output-dir", out],
                                capture_output=True, text=True, timeout=300)
        expect(result.returncode == 0, f"ort_run step {step}: {result.stderr}")
        logits = np.load(os.path.join(out, "logits.npy"))
        tokens.append(int(np.argmax(logits[0, -1])))
        for name in pasts:
            pasts[name] = np.load(os.path.join(out, name.replace("past_key_values", "present")
                                               + ".npy"))
        ids = [tokens[-1]]
    return tokens


def case_generate(tmp):
    subprocess.run(["/usr/bin/python3", os.path.join(os.path.dirname(__file__), "..", "contrib",
                                                     "make_decoder.py"), tmp], check=True)
    model = os.path.join(tmp, "decoder_tiny.onnx")
    prompt = [5, 17, 90, 3, 41]
    want = ort_greedy(model, prompt, 6, tmp)
    prompt_flag = ",".join(map(str, prompt))
    result = nxrt("generate", model, "--prompt", prompt_flag, "--max-new-tokens", 6,
                  "--threads", 1, "--json")
    expect_exit(result, 0, "generate --json")
    report = json.loads(result.stdout)
    expect(report["tokens"] == want, f"nxrt {report['tokens']}, ONNX Runtime {want}")
    expect(report["prompt"] == prompt and report["new_tokens"] == 6, report)
    expect(report["time_to_first_token_ms"] > 0 and report["decode_tokens_per_second"] > 0 and
           abs(report["prefill_tokens_per_second"] * report["time_to_first_token_ms"] -
               1000 * len(prompt)) < 1e-6 * 1000 * len(prompt), report)
    # The same loop over ONNX Runtime (ort_run --generate) on a drawn prompt: same prompt and
    # tokens; the text form prints them too.
    drawn = ["--prompt-tokens", 9, "--max-new-tokens", 12, "--seed", 4, "--threads", 1]
    ours = nxrt("generate", model, *drawn, "--json")
    expect_exit(ours, 0, "generate --prompt-tokens")
    theirs = subprocess.run([ARGS.ort_run, model, "--generate", "--json"] +
                            [str(a) for a in drawn], capture_output=True, text=True, timeout=300)
    expect(theirs.returncode == 0, f"ort_run --generate: {theirs.stderr}")
    a, b = json.loads(ours.stdout), json.loads(theirs.stdout)
    expect(len(a["prompt"]) == 9 and all(0 <= t < 97 for t in a["prompt"]), a)
    expect((a["prompt"], a["tokens"]) == (b["prompt"], b["tokens"]), f"nxrt {a}\nORT {b}")
    text = nxrt("generate", model, *drawn)
    expect_exit(text, 0, "generate (text)")
    expect("tokens: " + " ".join(map(str, a["tokens"])) in text.stdout, text.stdout)
    expect(re.search(r"time to first token [0-9.e+-]+ ms", text.stdout), text.stdout)
    # Sampling: top-k 1 is greedy at any temperature; a seed reproduces its tokens.
    top1 = json.loads(nxrt("generate", model, *drawn, "--temperature", 5, "--top-k", 1,
                           "--json").stdout)
    expect(top1["tokens"] == a["tokens"], f"top-k 1 {top1['tokens']} vs greedy {a['tokens']}")
    hot = [json.loads(nxrt("generate", model, *drawn, "--temperature", 3, "--json").stdout)
           for _ in range(2)]
    expect(hot[0]["tokens"] == hot[1]["tokens"] != a["tokens"], hot)
    # Bad flags and models: exit 2 naming the problem.
    chain = float_chain_model(os.path.join(tmp, "chain.onnx"))
    for args, message in [
            ([chain, "--prompt-tokens", 3], "no input 'input_ids'"),
            ([model, "--prompt-tokens", 3, "--top-p", 1.5], "top_p is 1.5"),
            ([model, "--prompt-tokens", 3, "--temperature", 0], "temperature is 0"),
            ([model, "--prompt", "1,2", "--prompt-tokens", 3], "--prompt gives 2 ids"),
            ([model, "--prompt", "1,97"], "prompt token 1 is 97"),
            ([model, "--prompt-tokens", 8, "--max-length", 8], "the prompt has 8 tokens"),
            ([model, "--prompt-tokens", 0], "--prompt-tokens"),
            ([model], "no prompt")]:
        bad = nxrt("generate", *args)
        expect_exit(bad, 2, f"generate {args}")
        expect(message in bad.stderr, f"generate {args}: {bad.stderr!r} lacks {message!r}")


def case_optimize(tmp):
    model = conv_model(os.path.join(tmp, "conv.onnx"))
    basic = os.path.join(tmp, "basic.onnx")
    result = nxrt("optimize", model, "-o", basic, "--opt-level", "1", "--json")
    expect_exit(result, 0, "optimize --opt-level 1")
    passes = {p["pass"]: p["rewrites"] for p in json.loads(result.stdout)["passes"]}
    expect(passes.get("conv_bn_folding", 0) >= 1, passes)
    saved = onnx.load(basic)
    onnx.checker.check_model(saved)
    ops = [n.op_type for n in saved.graph.node]
    expect("BatchNormalization" not in ops and "Gemm" in ops, f"rewritten: {ops}")
    # ONNX Runtime runs the saved model to the original's outputs.
    want = ort_outputs(model, os.path.join(tmp, "ort_original"))
    got = ort_outputs(basic, os.path.join(tmp, "ort_optimised"))
    expect(want.keys() == got.keys() and want, f"{want.keys()} vs {got.keys()}")
    for k in want:
        expect(np.allclose(want[k], got[k], rtol=1e-4, atol=1e-5), f"{k} differs in ORT")

    extended = os.path.join(tmp, "extended.onnx")
    expect_exit(nxrt("optimize", model, "-o", extended), 0, "optimize at level 2")
    fused = [n.domain + ":" + n.op_type for n in onnx.load(extended).graph.node]
    expect(any(op.startswith("com.nxrt:") for op in fused), f"level 2 fuses: {fused}")
    runs = []
    for path in [model, extended]:
        r = nxrt("run", path, "--random", "--seed", "5", "--opt-level", "0", "--output-dir",
                 os.path.join(tmp, os.path.basename(path) + "_out"))
        expect_exit(r, 0, f"nxrt runs {path}")
        runs.append(np.load(os.path.join(tmp, os.path.basename(path) + "_out", "y.npy")))
    expect(np.allclose(runs[0], runs[1], rtol=1e-4, atol=1e-5), "nxrt runs the fused model alike")
    expect(np.allclose(runs[0], want[next(iter(want))], rtol=1e-4, atol=1e-5),
           "and both match ONNX Runtime")
    expect_exit(nxrt("optimize", model, "-o", os.path.join(tmp, "no", "such", "dir", "m.onnx")),
                1, "an output path that cannot be written")


def case_compile(tmp):
    plugin = os.path.join(ARGS.plugins_dir, "libnxrt_epctx_ep.so")
    model = os.path.join(ARGS.plugins_dir, "example_ep_models", "split.onnx")
    reference = os.path.join(tmp, "reference")
    expect_exit(nxrt("run", model, "--random", "--seed", "5", "--output-dir", reference), 0,
                "the source model on the CPU EP")
    want = np.load(os.path.join(reference, "Y.npy"))
    for embed in (0, 1):
        out = os.path.join(tmp, f"embed{embed}", "split_ctx.onnx")
        os.makedirs(os.path.dirname(out))
        result = nxrt("compile", model, "--ep", f"plugin:{plugin}", "-o", out, "--embed-mode",
                      embed, "--json")
        expect_exit(result, 0, f"compile --embed-mode {embed}")
        report = json.loads(result.stdout)
        expect(report["ep_context_nodes"] == 2 and report["output"] == out, report)
        expect(report["compatibility_info"] == {"nxrt_epctx_ep": "nxrt_epctx_ep;context_format=1"},
               report)
        compiled = onnx.load(out)
        contexts = [n for n in compiled.graph.node if n.op_type == "EPContext"]
        expect(len(contexts) == 2 and all(n.domain == "com.microsoft" for n in contexts),
               [(n.domain, n.op_type) for n in compiled.graph.node])
        expect([n.op_type for n in compiled.graph.node if n.op_type != "EPContext"] == ["MatMul"],
               "the MatMul no plugin took stays")
        for node in contexts:
            attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
            expect(attrs["embed_mode"] == embed and attrs["source"] == b"nxrt_epctx_ep", attrs)
            if embed == 0:
                side = os.path.join(os.path.dirname(out), attrs["ep_cache_context"].decode())
                expect(os.path.isfile(side), f"side file {side}")
            else:
                expect(attrs["ep_cache_context"].startswith(b"nxrt_epctx 1"), attrs)
        metadata = {p.key: p.value for p in compiled.metadata_props}
        expect(metadata.get("ep_compatibility_info.nxrt_epctx_ep") ==
               "nxrt_epctx_ep;context_format=1", metadata)
        ran = os.path.join(tmp, f"ran{embed}")
        expect_exit(nxrt("run", out, "--random", "--seed", "5", "--ep", f"plugin:{plugin},cpu",
                         "--output-dir", ran), 0, f"nxrt runs the embed-mode-{embed} model")
        got = np.load(os.path.join(ran, "Y.npy"))
        expect(np.allclose(got, want, rtol=1e-5, atol=1e-6), "the compiled model's outputs")
    expect_exit(nxrt("compile", model, "--ep", f"plugin:{plugin}", "--embed-mode", "2"), 2,
                "an embed mode other than 0 or 1")
    expect_exit(nxrt("run", os.path.join(tmp, "embed0", "split_ctx.onnx"), "--random"), 1,
                "a compiled model without its plugin")


# ---- int4 and float8 (ONNX 1.14/1.16 types, newer than Debian's python3-onnx) ---------------

INT4, FLOAT8E4M3FN = 22, 17  # TensorProto.DataType numbers of onnx.proto


def packed_int4(values):
    """ONNX's int4 packing: element 2i in the low nibble of byte i."""
    nibbles = [v & 0x0F for v in values] + [0] * (len(values) % 2)
    return bytes(nibbles[i] | (nibbles[i + 1] << 4) for i in range(0, len(nibbles), 2))


def case_low_bit_types(tmp):
    x_values = [-8, -1, 0, 3, 7]
    w_values = [1, -3, 5, 7, -8, 2]
    w = TensorProto(name="w", data_type=INT4, dims=[6], raw_data=packed_int4(w_values))
    zp = TensorProto(name="zp", data_type=INT4, dims=[], raw_data=packed_int4([1]))
    scale = numpy_helper.from_array(np.array(0.5, np.float32), "scale")
    f8 = TensorProto(name="f8", data_type=FLOAT8E4M3FN, dims=[3], raw_data=bytes([0x38, 0xFE, 0x01]))
    nodes = [helper.make_node("Cast", ["x"], ["y"], to=TensorProto.FLOAT),
             helper.make_node("DequantizeLinear", ["w", "scale", "zp"], ["dq"]),
             helper.make_node("Cast", ["f8"], ["f8_float"], to=TensorProto.FLOAT)]
    x_info = helper.make_tensor_value_info("x", TensorProto.FLOAT, [5])
    x_info.type.tensor_type.elem_type = INT4
    graph = helper.make_graph(nodes, "low_bit", [x_info],
                              [helper.make_tensor_value_info(n, TensorProto.FLOAT, None)
                               for n in ["y", "dq", "f8_float"]], [w, zp, scale, f8])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10
    path = os.path.join(tmp, "low_bit.onnx")
    onnx.save(model, path)  # python3-onnx 1.12's checker does not know the types

    result = nxrt("inspect", path, "--json")
    expect_exit(result, 0, "inspect")
    summary = json.loads(result.stdout)
    expect(summary["inputs"][0]["type"].startswith("tensor(int4)"), summary["inputs"])
    # 3 + 1 + 4 + 3 bytes: packed int4 counts half a byte per element.
    expect(summary["initializer_bytes"] == 11, summary["initializer_bytes"])
    text = nxrt("inspect", path)
    expect_exit(text, 0, "inspect (text)")
    expect("tensor(int4)" in text.stdout, text.stdout)

    x_pb = os.path.join(tmp, "x.pb")
    with open(x_pb, "wb") as f:
        f.write(TensorProto(data_type=INT4, dims=[5],
                            raw_data=packed_int4(x_values)).SerializeToString())
    out = os.path.join(tmp, "out")
    result = nxrt("run", path, "--input", f"x={x_pb}", "--output-dir", out)
    expect_exit(result, 0, "run with an int4 input")
    expect(np.array_equal(np.load(os.path.join(out, "y.npy")), np.array(x_values, np.float32)),
           "Cast int4 -> float")
    expect(np.array_equal(np.load(os.path.join(out, "dq.npy")),
                          (np.array(w_values, np.float32) - 1) * 0.5), "DequantizeLinear int4")
    # float8e4m3fn 0x38 = 1, 0xFE = -448, 0x01 = 2^-9 (ONNX's float8 table).
    expect(np.array_equal(np.load(os.path.join(out, "f8_float.npy")),
                          np.array([1, -448, 2.0 ** -9], np.float32)), "Cast float8 -> float")


# ---- docs/cli.md against --help ------------------------------------------------------------------

# ---- run limits ---------------------------------------------------------------------------------

def endless_loop_model(path):
    """A Loop of 2^62 trips whose body adds 1 to a carried float: years of work without a limit."""
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond"], ["cond_out"]),
         helper.make_node("Add", ["s", "one"], ["s_out"])],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
         helper.make_tensor_value_info("s", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("s_out", TensorProto.FLOAT, [1])],
        [numpy_helper.from_array(np.ones([1], np.float32), "one")])
    graph = helper.make_graph(
        [helper.make_node("Loop", ["trips", "", "x"], ["y"], name="loop", body=body)], "endless",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])],
        [numpy_helper.from_array(np.array(2 ** 62, np.int64), "trips")])
    return save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def fill_model(path):
    """shape (int64 [2]) -> ConstantOfShape(1.5) -> y."""
    node = helper.make_node("ConstantOfShape", ["shape"], ["y"], name="fill",
                            value=numpy_helper.from_array(np.array([1.5], np.float32)))
    graph = helper.make_graph(
        [node], "fill", [helper.make_tensor_value_info("shape", TensorProto.INT64, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, None])])
    return save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def case_run_limits(tmp):
    endless = endless_loop_model(os.path.join(tmp, "endless.onnx"))
    start = time.monotonic()
    stopped = nxrt("run", endless, "--random", "--time-limit-ms", "200", timeout=120)
    expect_exit(stopped, 1, "a run past --time-limit-ms")
    expect("the run went past its time limit of 200 ms" in stopped.stderr and
           "node 'loop' (Loop" in stopped.stderr, stopped.stderr)
    expect(time.monotonic() - start < 60, "the limited run stopped within a minute")
    trips = nxrt("run", endless, "--random", "--loop-trip-limit", "1000")
    expect_exit(trips, 1, "a Loop past --loop-trip-limit")
    expect("the Loop ran 1000 iterations, its trip limit" in trips.stderr, trips.stderr)

    # Within the limits the outputs are NumPy's: y = max((x + 1) * 2 - 0.5, 0).
    chain = float_chain_model(os.path.join(tmp, "chain.onnx"))
    x = np.array([[-3, -1, 0], [0.5, 2, 7]], np.float32)
    np.save(os.path.join(tmp, "x.npy"), x)
    within = nxrt("run", chain, "--input", f"x={tmp}/x.npy", "--json", "--output-dir",
                  os.path.join(tmp, "out"), "--time-limit-ms", "60000", "--loop-trip-limit", "5",
                  "--memory-limit-mb", "1")
    expect_exit(within, 0, "a run within every limit")
    out = json.loads(within.stdout)["outputs"][0]
    expect(np.allclose(np.load(out["file"]), np.maximum((x + 1) * 2 - 0.5, 0)), out)

    # ConstantOfShape of [1000, 1000] floats: 4 MB, past a 1 MiB limit, within 8 MiB.
    fill = fill_model(os.path.join(tmp, "fill.onnx"))
    big = nxrt("run", fill, "--value", "shape=1000", "--memory-limit-mb", "1")
    expect_exit(big, 1, "a run past --memory-limit-mb")
    expect("node 'fill' (ConstantOfShape, opset 17): output 0 'y' (float[1000,1000]) needs "
           "4000000 bytes while the run holds 0 bytes of tensors already: more than its memory "
           "limit of 1048576 bytes" in big.stderr, big.stderr)
    fits = nxrt("run", fill, "--value", "shape=1000", "--memory-limit-mb", "8", "--json")
    expect_exit(fits, 0, "the same run within --memory-limit-mb 8")
    y = json.loads(fits.stdout)["outputs"][0]
    expect(y["shape"] == [1000, 1000] and y["min"] == 1.5 and y["max"] == 1.5, y)

    # Bad values name the flag, the value and what is accepted.
    for flag, value, message in [
            ("--time-limit-ms", "-5", "--time-limit-ms: '-5' is negative; use 0 or more"),
            ("--loop-trip-limit", "many", "--loop-trip-limit: 'many' is not a number"),
            ("--memory-limit-mb", "-1", "--memory-limit-mb: '-1' is negative; use 0 or more"),
            ("--memory-limit-mb", "9000000000000000",
             "--memory-limit-mb 9000000000000000 is too large: at most 8796093022207 MiB")]:
        bad = nxrt("run", chain, "--random", flag, value)
        expect_exit(bad, 2, f"{flag} {value}")
        expect(message in bad.stderr, f"{flag} {value}: {bad.stderr}")


def case_docs_match_help(tmp):
    docs = open(ARGS.docs).read()
    main_help = nxrt("--help").stdout
    verbs = re.findall(r"^  ([a-z][a-z-]+)\s{2,}", main_help.split("Subcommands:")[1], re.M)
    expect(verbs, f"verbs in --help: {main_help}")
    documented = re.findall(r"^## `nxrt ([a-z-]+)`", docs, re.M)
    expect(sorted(documented) == sorted(verbs),
           f"docs/cli.md documents verbs {documented}, --help lists {verbs}")
    sections = re.split(r"^## ", docs, flags=re.M)
    for verb in verbs:
        section = next(s for s in sections if s.startswith(f"`nxrt {verb}`"))
        doc_flags = {}
        for row in re.findall(r"^\| `(?:-\w, )?(--[a-z0-9-]+)[^`]*` \|([^|]*)\|", section,
                              re.M):
            doc_flags[row[0]] = row[1].strip()
        shared = re.search(r"shared\s+flags", section) is not None
        help_flags = help_options(verb)
        help_flags.pop("--help", None)
        if shared:
            for flag in SHARED:
                if flag in help_flags and flag not in doc_flags:
                    doc_flags[flag] = shared_default(docs, flag)
        expect(set(doc_flags) == set(help_flags),
               f"nxrt {verb}: documented {sorted(set(doc_flags) - set(help_flags))} not in "
               f"--help; in --help {sorted(set(help_flags) - set(doc_flags))} not documented")
        for flag, default in help_flags.items():
            if default is not None:
                expect(doc_flags[flag] == default,
                       f"nxrt {verb} {flag}: docs say default {doc_flags[flag]!r}, "
                       f"--help {default}")
    # Exit codes: the table in the docs is the footer of --help.
    footer = dict(re.findall(r"^  (\d)  (.*)", main_help, re.M))
    table = dict(re.findall(r"^\| (\d) \| ([^|]*) \|", docs, re.M))
    expect(set(footer) == set(table), f"exit codes {sorted(table)} vs {sorted(footer)}")
    for code, text in footer.items():
        expect(table[code].strip().startswith(text.strip().split(":")[0]),
               f"exit code {code}: docs {table[code]!r}, --help {text!r}")


def shared_default(docs, flag):
    """The default the shared-flags table of docs/cli.md gives `flag`."""
    section = re.split(r"^## ", docs, flags=re.M)
    table = next(s for s in section if s.startswith("Shared flags"))
    row = re.search(r"^\| `%s(?: [^`]*)?` \|([^|]*)\|" % re.escape(flag), table, re.M)
    expect(row, f"the shared-flags table documents {flag}")
    return row.group(1).strip()


def classifier_model(path, labels):
    """A scikit-learn classifier as skl2onnx writes it: label, and output_probability through
    ai.onnx.ml's ZipMap (seq(map(int64, tensor(float))))."""
    rng = np.random.default_rng(11)
    probabilities = onnx.TypeProto()
    probabilities.map_type.key_type = TensorProto.INT64
    probabilities.map_type.value_type.tensor_type.elem_type = TensorProto.FLOAT
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["scores"]),
         helper.make_node("Softmax", ["scores"], ["p"], axis=1),
         helper.make_node("ArgMax", ["p"], ["label"], axis=1, keepdims=0),
         helper.make_node("ZipMap", ["p"], ["output_probability"], domain="ai.onnx.ml",
                          classlabels_int64s=labels)],
        "classifier", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 4])],
        [helper.make_tensor_value_info("label", TensorProto.INT64, ["n"]),
         helper.make_value_info("output_probability",
                                helper.make_sequence_type_proto(probabilities))],
        [numpy_helper.from_array(rng.standard_normal((4, len(labels))).astype(np.float32), "w")])
    return save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                        helper.make_opsetid("ai.onnx.ml", 3)]),
                path)


def case_map_outputs(tmp):
    """`nxrt run` prints a sequence of maps (ZipMap's output) key → value, as text and in --json,
    equal to ONNX Runtime's maps for the same generated input (ort_run's JSON of them)."""
    labels = [7, 3, 11]
    model = classifier_model(os.path.join(tmp, "classifier.onnx"), labels)
    flags = ["--random", "--seed", "5", "--shape", "x=3,4"]
    folder = os.path.join(tmp, "ort")
    result = subprocess.run([ARGS.ort_run, model, *flags, "--output-dir", folder, "--no-opt"],
                            capture_output=True, text=True, timeout=300)
    expect(result.returncode == 0, f"ort_run {model}: {result.stderr}")
    with open(os.path.join(folder, "output_probability.json"), encoding="utf-8") as f:
        want = json.load(f)
    expect(len(want) == 3 and all(m["keys"] == sorted(labels) for m in want), str(want))

    run = nxrt("run", model, *flags, "--json")
    expect_exit(run, 0, "run --json")
    outputs = {o["name"]: o for o in json.loads(run.stdout)["outputs"]}
    got = outputs["output_probability"]
    expect(got["kind"] == "map_sequence" and got["key_type"] == "int64" and
           got["value_type"] == "float" and got["maps"] == 3, str(got))
    expect(got["description"].startswith("seq(map(int64,float))[map(int64,float)[3]"), str(got))
    for g, w in zip(got["first"], want):
        expect(g["keys"] == w["keys"], f"keys {g} vs ORT's {w}")
        expect(all(abs(a - b) <= 1e-5 for a, b in zip(g["values"], w["values"])),
               f"values {g} vs ORT's {w}")
    expect(outputs["label"]["kind"] == "tensor", str(outputs["label"]))

    text = nxrt("run", model, *flags)
    expect_exit(text, 0, "run")
    line = next((l for l in text.stdout.splitlines() if l.strip().startswith("output_probability")),
                "")
    entries = re.findall(r"\{([^}]*)\}", line)
    expect(len(entries) == 3, f"three maps in {line!r}")
    for entry, w in zip(entries, want):
        pairs = [p.split(": ") for p in entry.split(", ")]
        expect([int(k) for k, _ in pairs] == w["keys"], f"{entry!r} vs ORT's {w}")
        expect(all(abs(float(v) - b) <= 1e-5 for (_, v), b in zip(pairs, w["values"])),
               f"{entry!r} vs ORT's {w}")


def main():
    global ARGS
    parser = argparse.ArgumentParser()
    parser.add_argument("case")
    parser.add_argument("--nxrt", required=True)
    parser.add_argument("--example-ep", required=True)
    parser.add_argument("--plugins-dir", required=True)
    parser.add_argument("--models", required=True)
    parser.add_argument("--ort-run", required=True)
    parser.add_argument("--ort-library", required=True)
    parser.add_argument("--docs", required=True)
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    ARGS = parser.parse_args()
    case = globals().get("case_" + ARGS.case)
    if case is None:
        sys.exit(f"unknown case {ARGS.case}")
    tmp = tempfile.mkdtemp(prefix=f"nxrt_cli_{ARGS.case}_")
    try:
        case(tmp)
    except Failure as failure:
        print(f"FAIL {ARGS.case}: {failure}", file=sys.stderr)
        sys.exit(1)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"PASS {ARGS.case}")


if __name__ == "__main__":
    main()
