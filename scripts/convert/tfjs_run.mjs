// Runs a TF.js graph model on its own runtime (TensorFlow.js, pure-JavaScript CPU backend)
// for the reference that tfjs_torch.py's module is checked against.
//
//   node scripts/convert/tfjs_run.mjs MODEL.json INPUT.bin N,C,H,W OUTPUT.bin [TFJS_DIR]
//
// INPUT.bin: raw little-endian float32 in NCHW (what the .pte takes); it is transposed to
// NHWC for the model, and the model's 4-D output back to NCHW into OUTPUT.bin. TFJS_DIR is
// a folder whose node_modules holds @tensorflow/tfjs-core, -converter and -backend-cpu
// 4.22.0 (default out/tfjs; README.md in this folder says how to install them).
import fs from 'node:fs';
import path from 'node:path';
import {createRequire} from 'node:module';

const [modelJson, inputBin, shapeArg, outputBin, tfjsDir = 'out/tfjs'] = process.argv.slice(2);
if (!outputBin) {
  console.error('usage: tfjs_run.mjs MODEL.json INPUT.bin N,C,H,W OUTPUT.bin [TFJS_DIR]');
  process.exit(2);
}
const require = createRequire(path.resolve(tfjsDir, 'package.json'));
const tf = require('@tensorflow/tfjs-core');
require('@tensorflow/tfjs-backend-cpu');
const tfconv = require('@tensorflow/tfjs-converter');

const doc = JSON.parse(fs.readFileSync(modelJson, 'utf8'));
const specs = [];
const shards = [];
for (const group of doc.weightsManifest) {
  specs.push(...group.weights);
  for (const p of group.paths) shards.push(fs.readFileSync(path.join(path.dirname(modelJson), p)));
}
const joined = Buffer.concat(shards);
const weightData = joined.buffer.slice(joined.byteOffset, joined.byteOffset + joined.byteLength);

await tf.setBackend('cpu');
const model = await tfconv.loadGraphModel(tf.io.fromMemory({
  modelTopology: doc.modelTopology, weightSpecs: specs, weightData, format: doc.format,
  generatedBy: doc.generatedBy, convertedBy: doc.convertedBy, signature: doc.signature,
}));

const shape = shapeArg.split(',').map(Number);
const raw = fs.readFileSync(inputBin);
if (raw.length !== 4 * shape.reduce((a, b) => a * b, 1)) {
  console.error(`${inputBin}: ${raw.length} bytes, [${shape}] float32 needs ${4 * shape.reduce((a, b) => a * b, 1)}`);
  process.exit(1);
}
const x = tf.tensor(new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.length)), shape, 'float32');
const t0 = performance.now();
const y = model.execute(tf.transpose(x, [0, 2, 3, 1]));
const out = y.rank === 4 ? tf.transpose(y, [0, 3, 1, 2]) : y;
const data = out.dataSync();
fs.writeFileSync(outputBin, Buffer.from(data.buffer, data.byteOffset, data.byteLength));
let lo = Infinity, hi = -Infinity, sum = 0;
for (const v of data) { lo = Math.min(lo, v); hi = Math.max(hi, v); sum += v; }
console.log(`tfjs ${tf.version_core} (${tf.getBackend()}): ${path.basename(modelJson)} [${shape}] -> [${out.shape}] ` +
            `in ${(performance.now() - t0).toFixed(0)} ms; min ${lo.toFixed(6)} max ${hi.toFixed(6)} mean ${(sum / data.length).toFixed(6)}`);
