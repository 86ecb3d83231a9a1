// Runs each model of manifest.json in ONNX Runtime (the oracle of the QDQ
// end-to-end test) on its input and writes its output as raw bytes,
// NAME.output.bin. ONNX Runtime fuses the QDQ groups into its own integer
// kernels, which requantize in float. A model whose manifest entry says
// "ort_optimizations": false runs without them, each op as ONNX defines it:
// on a CPU without VNNI the fused x86 kernels sum uint8 x int8 pairs in 16
// bits (VPMADDUBSW), which saturates (README, "Quantization").
//
// usage: ORT_DIR=/tmp/ort node ort_reference.js DIR
// (onnxruntime-node installed in $ORT_DIR: see ../shared/bench/README.md)
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require(path.join(process.env.ORT_DIR || '/tmp/ort', 'node_modules', 'onnxruntime-node'));

async function main() {
  const dir = process.argv[2];
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
  for (const [name, m] of Object.entries(manifest)) {
    const options = {intraOpNumThreads: 1};
    if (m.ort_optimizations === false)
      options.graphOptimizationLevel = 'disabled';
    const session = await ort.InferenceSession.create(path.join(dir, name + '.onnx'), options);
    const bytes = fs.readFileSync(path.join(dir, name + '.input.bin'));
    // float32 unless the manifest says uint8 (a model with uint8 input).
    const data = m.dtype === 'uint8'
        ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length)
        : new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
    const out = await session.run({[m.input]: new ort.Tensor(m.dtype || 'float32', data, m.shape)});
    const y = out[session.outputNames[0]];
    const raw = Buffer.from(y.data.buffer, y.data.byteOffset, y.data.byteLength);
    fs.writeFileSync(path.join(dir, name + '.output.bin'), raw);
    console.log(`${name}: ${y.type} [${y.dims}]`);
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
