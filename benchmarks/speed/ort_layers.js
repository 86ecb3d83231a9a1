#!/usr/bin/env node
// ONNX Runtime's time per node, for layer_profile.py --ort: runs MODEL on one
// intra-op thread with ORT's profiler on and prints, as JSON, each node's op,
// output shape and median kernel time (us) over the runs after the warmup.
//
//   ORT_DIR=/tmp/ort node ort_layers.js MODEL.onnx INPUT.bin '[1,3,224,224]' [RUNS]
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const median = require('./median.js');
const ort = require(path.join(process.env.ORT_DIR || '/tmp/ort', 'node_modules', 'onnxruntime-node'));

const WARMUP = 5;

(async () => {
  const [model, input, shape, runsArg] = process.argv.slice(2);
  const runs = parseInt(runsArg || '30', 10);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ort_layers.'));
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    enableProfiling: true,
    profileFilePrefix: path.join(dir, 'p'),
  });
  const buf = fs.readFileSync(input);
  const data = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
  const feeds = { [session.inputNames[0]]: new ort.Tensor('float32', data, JSON.parse(shape)) };
  for (let i = 0; i < WARMUP + runs; i++)
    await session.run(feeds);
  session.endProfiling();
  const file = fs.readdirSync(dir).find((f) => f.endsWith('.json'));
  const events = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
  fs.rmSync(dir, { recursive: true });
  // Node events are NAME_kernel_time, one per node per run, in run order.
  const nodes = new Map();
  for (const e of events) {
    if (e.cat !== 'Node' || !e.name.endsWith('_kernel_time'))
      continue;
    const name = e.name.slice(0, -'_kernel_time'.length);
    if (!nodes.has(name)) {
      const out = (e.args.output_type_shape || [])[0] || {};
      nodes.set(name, { name, op: e.args.op_name, output: Object.values(out)[0] || [], us: [] });
    }
    nodes.get(name).us.push(e.dur);
  }
  const rows = [...nodes.values()].map((n) => ({
    name: n.name, op: n.op, output: n.output, us: median(n.us.slice(WARMUP)),
  }));
  console.log(JSON.stringify(rows));
})().catch((e) => {
  console.error(e.message);
  process.exit(1);
});
