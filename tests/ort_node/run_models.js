// tests/ort_node/run_models.js: the real models through onnxruntime-node's own JS API
// (InferenceSession.create, session.run), for whichever libonnxruntime.so.1 sits in the
// package's bin/napi-v6/linux/x64 folder: ONNX Runtime 1.30's, or nxrt's in a copy of the
// package.
//
//   node run_models.js PACKAGE_DIR INPUTS_DIR --write OUT.json       # record (ORT)
//   node run_models.js PACKAGE_DIR INPUTS_DIR --compare REF.json     # check (nxrt)
//
// PACKAGE_DIR holds node_modules/onnxruntime-node. INPUTS_DIR is real_model_inputs' output:
// models.json and the raw input files. Each model is created from its path and once from its
// bytes, run three times (stateful models feed their state outputs back), and asked to run
// with a wrong input name (which must throw). Outputs are recorded as raw bytes; --compare
// checks names, types, dims and values (floats within the model's rtol/atol, everything else
// exactly) and prints one line per model. It also prints which libonnxruntime.so.1 the process
// loaded, from /proc/self/maps, so a run cannot silently use the wrong library.
'use strict';

const fs = require('fs');
const path = require('path');

const [packageDir, inputsDir, mode, file] = process.argv.slice(2);
if (!packageDir || !inputsDir || (mode !== '--write' && mode !== '--compare') || !file) {
  console.error('usage: node run_models.js PACKAGE_DIR INPUTS_DIR (--write|--compare) FILE');
  process.exit(2);
}
const ort = require(path.join(path.resolve(packageDir), 'node_modules', 'onnxruntime-node'));

const kArrays = {
  float32: Float32Array, float64: Float64Array, int8: Int8Array, uint8: Uint8Array,
  int16: Int16Array, uint16: Uint16Array, int32: Int32Array, uint32: Uint32Array,
  int64: BigInt64Array, uint64: BigUint64Array, bool: Uint8Array, float16: Uint16Array,
};
const kSteps = 3;

function tensorFromFile(input) {
  const bytes = fs.readFileSync(path.join(inputsDir, input.file));
  const Array = kArrays[input.type];
  const data = new Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  return new ort.Tensor(input.type, data, input.dims);
}

function record(tensor) {
  const data = tensor.data;
  return {
    type: tensor.type,
    dims: Array.from(tensor.dims),
    bytes: Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64'),
  };
}

function loadedLibrary() {
  const maps = fs.readFileSync('/proc/self/maps', 'utf8').split('\n');
  const line = maps.find((l) => l.includes('libonnxruntime.so'));
  return line ? line.slice(line.indexOf('/')) : '(none)';
}

async function runModel(model) {
  const options = { intraOpNumThreads: 1, executionMode: 'sequential' };
  const session = await ort.InferenceSession.create(model.path, options);
  const fromBytes = await ort.InferenceSession.create(fs.readFileSync(model.path), options);
  const result = {
    inputNames: session.inputNames,
    outputNames: session.outputNames,
    steps: [],
  };
  let feeds = {};
  for (const input of model.inputs) feeds[input.name] = tensorFromFile(input);
  for (let step = 0; step < kSteps; ++step) {
    const outputs = await (step === 0 ? fromBytes : session).run(feeds);
    const recorded = {};
    for (const name of session.outputNames) recorded[name] = record(outputs[name]);
    result.steps.push(recorded);
    if (model.state_feedback.length === 0) break;
    feeds = { ...feeds };
    for (const [output, input] of model.state_feedback) feeds[input] = outputs[output];
  }
  try {
    await session.run({ no_such_input: feeds[model.inputs[0].name] });
    result.wrongInputThrew = false;
  } catch (e) {
    result.wrongInputThrew = true;
  }
  await session.release();
  await fromBytes.release();
  return result;
}

// Compares one recorded output with the reference; returns a problem or null.
function compareOutput(name, got, want, model) {
  if (got.type !== want.type) return `${name}: type ${got.type}, ONNX Runtime gives ${want.type}`;
  if (JSON.stringify(got.dims) !== JSON.stringify(want.dims)) {
    return `${name}: dims [${got.dims}], ONNX Runtime gives [${want.dims}]`;
  }
  const a = Buffer.from(got.bytes, 'base64');
  const b = Buffer.from(want.bytes, 'base64');
  if (got.type !== 'float32' && got.type !== 'float64') {
    return a.equals(b) ? null : `${name}: ${got.type} values differ from ONNX Runtime's`;
  }
  const Array = kArrays[got.type];
  const x = new Array(a.buffer, a.byteOffset, a.byteLength / Array.BYTES_PER_ELEMENT);
  const y = new Array(b.buffer, b.byteOffset, b.byteLength / Array.BYTES_PER_ELEMENT);
  let worst = 0;
  let worstAt = -1;
  for (let i = 0; i < x.length; ++i) {
    const excess = Math.abs(x[i] - y[i]) - (model.atol + model.rtol * Math.abs(y[i]));
    if (Number.isNaN(x[i]) !== Number.isNaN(y[i]) || excess > worst) {
      worst = Number.isNaN(excess) ? Infinity : excess;
      worstAt = i;
    }
  }
  if (worstAt < 0) return null;
  return `${name}[${worstAt}] = ${x[worstAt]}, ONNX Runtime gives ${y[worstAt]} ` +
         `(rtol ${model.rtol}, atol ${model.atol})`;
}

function compareModel(model, got, want) {
  const problems = [];
  if (JSON.stringify(got.inputNames) !== JSON.stringify(want.inputNames)) {
    problems.push(`inputNames ${got.inputNames}, ONNX Runtime gives ${want.inputNames}`);
  }
  if (JSON.stringify(got.outputNames) !== JSON.stringify(want.outputNames)) {
    problems.push(`outputNames ${got.outputNames}, ONNX Runtime gives ${want.outputNames}`);
  }
  if (got.wrongInputThrew !== want.wrongInputThrew) {
    problems.push(`a wrong input name threw: ${got.wrongInputThrew}, in ONNX Runtime: ` +
                  `${want.wrongInputThrew}`);
  }
  if (got.steps.length !== want.steps.length) problems.push('a different number of runs');
  for (let s = 0; s < Math.min(got.steps.length, want.steps.length); ++s) {
    for (const name of Object.keys(want.steps[s])) {
      const problem = got.steps[s][name] === undefined
        ? `${name} missing`
        : compareOutput(name, got.steps[s][name], want.steps[s][name], model);
      if (problem) problems.push(`run ${s + 1}: ${problem}`);
    }
  }
  return problems;
}

async function main() {
  const models = JSON.parse(fs.readFileSync(path.join(inputsDir, 'models.json'), 'utf8')).models;
  const results = {};
  for (const model of models) results[model.name] = await runModel(model);
  console.log(`libonnxruntime: ${loadedLibrary()}`);
  if (mode === '--write') {
    fs.writeFileSync(file, JSON.stringify(results));
    console.log(`recorded ${models.length} models to ${file}`);
    return 0;
  }
  const reference = JSON.parse(fs.readFileSync(file, 'utf8'));
  let failed = 0;
  for (const model of models) {
    const problems = reference[model.name] === undefined
      ? ['no ONNX Runtime reference']
      : compareModel(model, results[model.name], reference[model.name]);
    const runs = results[model.name].steps.length;
    console.log(`${problems.length ? 'FAIL' : 'PASS'} ${model.name} (${runs} run${runs > 1 ? 's' : ''})`);
    for (const problem of problems) console.log(`  ${problem}`);
    failed += problems.length ? 1 : 0;
  }
  console.log(`${models.length - failed} of ${models.length} models give ONNX Runtime's outputs`);
  return failed === 0 && models.length > 0 ? 0 : 1;
}

main().then((code) => process.exit(code), (e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exit(1);
});
