// Wick's native CPU path (`wick bench --backend cpu`) against onnxruntime-node's CPU EP
// (ort_node_bench.mjs) on the models of models.mjs, at 1 thread and at every core.
//   node bench/cpu/ort/native_bench.mjs [build/wick] [ONNX_DIR (.bench/onnx)] [--rounds N]
// Each round runs every (model, threads) pair on both engines, one after the other, and
// rounds alternate which goes first, so a machine loaded by others slows both alike. A
// line per pair: the median of the rounds' medians, the min of all runs, and Wick/ORT.
import {execFileSync} from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {MODELS} from './models.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');
const args = process.argv.slice(2);
const pos = args.filter((a, i) => !a.startsWith('--') && !(i > 0 && args[i - 1].startsWith('--')));
const wick = path.resolve(pos[0] || path.join(repo, 'build/wick'));
const onnxDir = path.resolve(pos[1] || path.join(repo, '.bench/onnx'));
const rounds = Number(args.includes('--rounds') ? args[args.indexOf('--rounds') + 1] : 3);
const fixtures = process.env.WICK_FIXTURES_DIR || path.resolve(repo, '../shared/fixtures');
const cores = os.cpus().length;

// "... median X ms, min Y ms ..." from either tool's line.
function parse(line) {
  const m = /median ([\d.]+) ms, min ([\d.]+) ms/.exec(line);
  if (!m) throw new Error(`no timing in: ${line}`);
  return {median: Number(m[1]), min: Number(m[2])};
}
const runWick = (m, threads) => parse(execFileSync(wick, [
  'bench', path.join(fixtures, m.pte, 'model.pte'), '--backend', 'cpu', '--runs', String(m.runs),
  '--warmup', String(m.warmup)], {env: {...process.env, WICK_NUM_THREADS: String(threads)}, encoding: 'utf8'}));
const runOrt = (m, threads) => parse(execFileSync(process.execPath, [
  path.join(here, 'ort_node_bench.mjs'), path.join(onnxDir, m.onnx), '--threads', String(threads),
  '--runs', String(m.runs), '--warmup', String(m.warmup)], {encoding: 'utf8'}));

const results = new Map();
const add = (key, s) => results.set(key, [...(results.get(key) || []), s]);
for (let r = 0; r < rounds; r++) {
  for (const m of MODELS) {
    for (const t of [...new Set([1, cores])]) {
      const order = r % 2 ? [['ort', runOrt], ['wick', runWick]] : [['wick', runWick], ['ort', runOrt]];
      for (const [name, fn] of order) add(`${name} ${t} ${m.name}`, fn(m, t));
    }
  }
}
const summary = (list) => {
  const meds = list.map((s) => s.median).sort((a, b) => a - b);
  return {median: meds[Math.floor(meds.length / 2)], min: Math.min(...list.map((s) => s.min))};
};
const ortVersion = JSON.parse(execFileSync(process.execPath, ['-p',
  "JSON.stringify(require('onnxruntime-node/package.json').version)"], {cwd: repo, encoding: 'utf8'}));
console.log(`# ${new Date().toISOString()} ${cores} cores: ${os.cpus()[0].model}; load average after ` +
            `${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
console.log(`# ${path.relative(repo, wick) || wick} bench --backend cpu (WICK_NUM_THREADS) vs onnxruntime-node ${ortVersion} ` +
            `CPU EP (intraOpNumThreads), zeros at the declared shapes; ${rounds} rounds`);
for (const m of MODELS) {
  for (const t of [...new Set([1, cores])]) {
    const w = summary(results.get(`wick ${t} ${m.name}`)), o = summary(results.get(`ort ${t} ${m.name}`));
    console.log(`${m.name.padEnd(22)} threads=${t}  wick median ${w.median.toFixed(3)} ms (min ${w.min.toFixed(3)})  ` +
                `ort median ${o.median.toFixed(3)} ms (min ${o.min.toFixed(3)})  wick/ort ${(w.median / o.median).toFixed(2)}x ` +
                `median, ${(w.min / o.min).toFixed(2)}x min`);
  }
}
