// ort_outputs.js MANIFEST: runs each case of make_opset_cases.py's manifest
// (JSON: [{model, inputs: [{name, type, dims, file}], outputs: [name]}]) on
// ONNX Runtime's CPU provider and writes each output as OUTFILE.bin (raw,
// little-endian) with OUTFILE.json ({type, dims}) beside the model.
// Needs onnxruntime-node in $ORT_DIR (see ../shared/bench/README.md).
const fs = require('fs');
const path = require('path');
const ort = require(path.join(process.env.ORT_DIR || '/tmp/ort', 'node_modules', 'onnxruntime-node'));

const kArrays = {float32: Float32Array, int64: BigInt64Array, int32: Int32Array, int8: Int8Array, uint8: Uint8Array};

async function main() {
  const cases = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  for (const c of cases) {
    const session = await ort.InferenceSession.create(c.model, {intraOpNumThreads: 1, graphOptimizationLevel: 'disabled'});
    const feeds = {};
    for (const i of c.inputs) {
      const bytes = fs.readFileSync(i.file);
      const Arr = kArrays[i.type];
      const data = new Arr(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
      feeds[i.name] = new ort.Tensor(i.type, data, i.dims);
    }
    const results = await session.run(feeds);
    c.outputs.forEach((name, k) => {
      const t = results[name];
      const base = path.join(path.dirname(c.model), 'output_' + k);
      fs.writeFileSync(base + '.bin', Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength));
      fs.writeFileSync(base + '.json', JSON.stringify({type: t.type, dims: t.dims}));
    });
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
