// Runs each QDQ model of cases.txt (models/MODEL.CALIBRATOR.qdq.onnx) in
// ONNX Runtime, the oracle of ptq_models_test, on every sample of
// calibration/MODEL (the .npy files in name order, batches split into
// samples), and writes the outputs one after the other as raw float32,
// models/MODEL.CALIBRATOR.ort_output.bin.
//
// Graph optimizations are off, so that ONNX Runtime computes each op as ONNX
// defines it. Its optimized int8 path fuses the QDQ groups into x86 kernels
// that multiply uint8 by int8 with 16-bit pair sums (VPMADDUBSW without
// VNNI), which saturate for weights that use the whole int8 range: on this
// machine lenet5 and mlp then differ from ONNX's semantics, and from kiln,
// by up to 12 steps.
//
// usage: ORT_DIR=/tmp/ort node ort_reference.js   (from tests/ptq)
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require(path.join(process.env.ORT_DIR || '/tmp/ort', 'node_modules', 'onnxruntime-node'));

/// A float32 C-order .npy file: {shape, data}.
function readNpy(file) {
  const bytes = fs.readFileSync(file);
  const headerLength = bytes.readUInt16LE(8);
  const header = bytes.toString('latin1', 10, 10 + headerLength);
  if (!header.includes("'descr': '<f4'") || !header.includes("'fortran_order': False"))
    throw new Error(`${file}: not C-order float32`);
  const shape = header.match(/'shape': \(([^)]*)\)/)[1].split(',')
                      .filter((d) => d.trim() !== '').map(Number);
  const start = 10 + headerLength;
  const data = new Float32Array(bytes.buffer.slice(bytes.byteOffset + start,
                                                   bytes.byteOffset + bytes.length));
  return {shape, data};
}

async function main() {
  const cases = fs.readFileSync('cases.txt', 'utf8').trim().split('\n').map((l) => l.split(' '));
  for (const [model, calibrator] of cases) {
    const name = `${model}.${calibrator}`;
    const session = await ort.InferenceSession.create(path.join('models', name + '.qdq.onnx'),
                                                      {intraOpNumThreads: 1, graphOptimizationLevel: 'disabled'});
    const dir = path.join('calibration', model);
    const outputs = [];
    for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.npy')).sort()) {
      const {shape, data} = readNpy(path.join(dir, file));
      const sampleShape = [1, ...shape.slice(1)];
      const size = data.length / shape[0];
      for (let k = 0; k < shape[0]; ++k) {
        const x = new ort.Tensor('float32', data.slice(k * size, (k + 1) * size), sampleShape);
        const out = await session.run({[session.inputNames[0]]: x});
        const y = out[session.outputNames[0]];
        outputs.push(Buffer.from(y.data.buffer, y.data.byteOffset, y.data.byteLength));
      }
    }
    fs.writeFileSync(path.join('models', name + '.ort_output.bin'), Buffer.concat(outputs));
    console.log(`${name}: ${outputs.length} samples`);
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
