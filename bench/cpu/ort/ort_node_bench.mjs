// onnxruntime-node's CPU execution provider on one ONNX file, timed as `wick bench` times
// Wick: inputs of zeros at the declared shapes, W warm-up runs, then the median (and min)
// of R runs of session.run, each one call from JS with its input and output copies.
//   node bench/cpu/ort/ort_node_bench.mjs MODEL.onnx [--threads N] [--runs R] [--warmup W]
// Prints one line: "<file> (onnxruntime-node <version> cpu, threads N): median X ms, min Y ms
// over R runs (W warm-up)".
import fs from 'node:fs';
import path from 'node:path';
import {createRequire} from 'node:module';
import {fileURLToPath} from 'node:url';

const require = createRequire(path.join(path.dirname(fileURLToPath(import.meta.url)), '../../../package.json'));
const ort = require('onnxruntime-node');
const version = require('onnxruntime-node/package.json').version;

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i < 0 ? dflt : Number(args[i + 1]);
};
const file = args[0];
if (!file || !fs.existsSync(file)) {
  console.error('usage: ort_node_bench.mjs MODEL.onnx [--threads N] [--runs R] [--warmup W]');
  process.exit(2);
}
const threads = opt('--threads', 1), runs = opt('--runs', 20), warmup = opt('--warmup', 2);

const session = await ort.InferenceSession.create(file, {
  executionProviders: ['cpu'], intraOpNumThreads: threads, interOpNumThreads: 1,
  executionMode: 'sequential', graphOptimizationLevel: 'all'});

export function zeroFeeds(session, Tensor) {
  const feeds = {};
  for (const meta of session.inputMetadata) {
    const shape = meta.shape.map((d) => (typeof d === 'number' ? d : 1));
    const n = shape.reduce((a, b) => a * b, 1);
    const data = meta.type === 'int64' ? new BigInt64Array(n) : meta.type === 'int32' ? new Int32Array(n)
                                                                                      : new Float32Array(n);
    feeds[meta.name] = new Tensor(meta.type, data, shape);
  }
  return feeds;
}

const feeds = zeroFeeds(session, ort.Tensor);
for (let i = 0; i < warmup; i++) await session.run(feeds);
const times = [];
for (let i = 0; i < runs; i++) {
  const t0 = performance.now();
  await session.run(feeds);
  times.push(performance.now() - t0);
}
times.sort((a, b) => a - b);
const med = times[Math.floor(times.length / 2)];
console.log(`${path.basename(file)} (onnxruntime-node ${version} cpu, threads ${threads}): median ${med.toFixed(3)} ms, ` +
            `min ${times[0].toFixed(3)} ms over ${runs} runs (${warmup} warm-up)`);
