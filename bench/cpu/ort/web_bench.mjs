// Wick's Wasm CPU path against onnxruntime-web's 'wasm' EP, in headless Chromium started
// without WebGPU, on the same architectures and shapes (bench/cpu/ort/models.mjs).
//   node bench/cpu/ort/web_bench.mjs [ONNX_DIR (.bench/onnx)] [--rounds N] [--only NAME,...] [--engines wick,ort]
//                                    [--wick-dist DIR (package/dist: wick.js, wick.wasm, wick-threads.*)]
// The page is cross-origin isolated (COOP/COEP headers), so both may use Wasm threads:
// each runs at 1 thread (Wick: wick.js, and wick-threads.js held at 1 thread: the same
// code as at N threads) and at every core (Wick: wick-threads.js). Each
// configuration gets a fresh page (onnxruntime-web fixes its thread count at its first
// session), loads every model, runs W warm-ups and R timed calls of zeros at the declared
// shapes (one JS call each, input and output copies included), and reports the median and
// min. Rounds alternate the configurations, so a loaded machine slows all alike.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import {launchBrowser} from '../../../tests/js/browser_host.mjs';
import {fixturesDir, repoRoot} from '../../../tests/js/node_runtime.mjs';
import {MODELS} from './models.mjs';

const args = process.argv.slice(2);
const flag = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const onnxDir = path.resolve(args[0] && !args[0].startsWith('--') ? args[0] : path.join(repoRoot, '.bench/onnx'));
const rounds = Number(flag('--rounds', 2));
const only = flag('--only', null)?.split(',');
const models = MODELS.filter((m) => !only || only.includes(m.name));
// A name models.mjs does not have would silently drop its rows (esrgan_slim_x4 for esrgan_slim_x4_64 did).
const unknown = (only || []).filter((n) => !MODELS.some((m) => m.name === n));
if (unknown.length) throw new Error(`--only: no model ${unknown.join(', ')} (models.mjs has ${MODELS.map((m) => m.name).join(', ')})`);
const ortDist = path.join(repoRoot, 'node_modules/onnxruntime-web/dist');
const ortVersion = JSON.parse(fs.readFileSync(path.join(repoRoot, 'node_modules/onnxruntime-web/package.json'))).version;

const TYPES = {'.mjs': 'text/javascript', '.js': 'text/javascript', '.wasm': 'application/wasm',
               '.json': 'application/json', '.html': 'text/html'};
const wickDist = path.resolve(flag('--wick-dist', path.join(repoRoot, 'package/dist')));
const ROOTS = [['/package/dist/', wickDist], ['/fixtures/', fixturesDir], ['/onnx/', onnxDir], ['/ort/', ortDist], ['/', repoRoot]];
const server = http.createServer((req, res) => {
  const p = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  const headers = {'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp'};
  if (p === '/bench.html') {
    res.writeHead(200, {...headers, 'Content-Type': 'text/html'}).end('<!doctype html><title>bench</title>');
    return;
  }
  const [prefix, root] = ROOTS.find(([pre]) => p.startsWith(pre));
  const file = path.join(root, p.slice(prefix.length));
  if (!file.startsWith(root) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, {...headers, 'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream'});
  fs.createReadStream(file).pipe(res);
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${server.address().port}`;

// In the page: times `models` on one engine; returns {name: {median, min, runs}}.
async function pageBench({engine, threads, pinned, models}) {
  const stats = (t) => {
    t.sort((a, b) => a - b);
    return {median: t[Math.floor(t.length / 2)], min: t[0], runs: t.length};
  };
  const time = async (call, warmup, runs) => {
    for (let i = 0; i < warmup; i++) await call();
    const t = [];
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      await call();
      t.push(performance.now() - t0);
    }
    return stats(t);
  };
  const out = {isolated: crossOriginIsolated, results: {}};
  if (engine === 'ort') {
    const ort = await import('/ort/ort.wasm.min.mjs');
    ort.env.wasm.numThreads = threads;
    ort.env.wasm.wasmPaths = '/ort/';
    for (const m of models) {
      const s = await ort.InferenceSession.create(`/onnx/${m.onnx}`, {executionProviders: ['wasm'],
                                                                      graphOptimizationLevel: 'all'});
      const feeds = {};
      for (const meta of s.inputMetadata) {
        const shape = meta.shape.map((d) => (typeof d === 'number' ? d : 1));
        const n = shape.reduce((a, b) => a * b, 1);
        feeds[meta.name] = new ort.Tensor(meta.type, meta.type === 'int64' ? new BigInt64Array(n) : new Float32Array(n), shape);
      }
      out.results[m.name] = await time(() => s.run(feeds), m.warmup, m.runs);
      await s.release();
    }
  } else {
    const {createExecuTorch} = await import('/package/index.mjs');
    // pinned: the threaded bundle held at 1 thread (the same code as at N, without workers).
    const et = await createExecuTorch({backend: 'cpu', threads: pinned ? 2 : threads});
    if (pinned) et._wick_cpu_threads(1);
    out.threading = et.threading;
    for (const m of models) {
      const manifest = await (await fetch(`/fixtures/${m.pte}/manifest.json`)).json();
      const mod = et.Module.load(new Uint8Array(await (await fetch(`/fixtures/${m.pte}/model.pte`)).arrayBuffer()));
      const dtype = {float32: et.ScalarType.Float, int64: et.ScalarType.Long};
      const inputs = manifest.cases[0].inputs.map((t) => et.Tensor.zeros(t.shape, dtype[t.dtype]));
      out.results[m.name] = await time(() => mod.forward(inputs), m.warmup, m.runs);
      mod.delete();
    }
    out.backend = et.delegateBackend;
  }
  return out;
}

const browser = await launchBrowser({webgpu: false});
const engines = flag('--engines', 'wick,ort').split(',');
const configs = [{engine: 'wick', threads: 1}, {engine: 'ort', threads: 1}];
if (os.cpus().length > 1) {
  configs.push({engine: 'wick', threads: 1, pinned: true},
               {engine: 'wick', threads: os.cpus().length}, {engine: 'ort', threads: os.cpus().length});
}
const chosen = configs.filter((c) => engines.includes(c.engine));
const version = browser.version();
const all = new Map();  // "engine threads model" -> [{median, min}]
for (let r = 0; r < rounds; r++) {
  for (const c of r % 2 ? [...chosen].reverse() : chosen) {
    const page = await browser.newPage();
    page.on('pageerror', (e) => console.error(`[pageerror] ${e.message}`));
    await page.goto(`${url}/bench.html`);
    const res = await page.evaluate(pageBench, {...c, models});
    if (!res.isolated) throw new Error('the page is not cross-origin isolated');
    if (c.engine === 'wick' && res.backend !== 'cpu') throw new Error(`Wick ran on ${res.backend}`);
    // A bundle from before et.threading (--wick-dist) ran one thread.
    if (c.engine === 'wick' && (res.threading ? res.threading.threads : 1) !== c.threads) {
      throw new Error(`Wick ran ${JSON.stringify(res.threading)}, not ${c.threads} threads`);
    }
    for (const [name, s] of Object.entries(res.results)) {
      const key = `${c.engine}${c.pinned ? '-pinned' : ''} ${c.threads} ${name}`;
      all.set(key, [...(all.get(key) || []), s]);
    }
    await page.close();
  }
}
await browser.close();
server.close();

console.log(`# ${new Date().toISOString()} ${os.cpus().length} cores: ${os.cpus()[0].model}; load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
console.log(`# headless Chromium ${version} without WebGPU, cross-origin isolated; Wick ${path.relative(repoRoot, wickDist)} (backend 'cpu'; 1 thread: wick.js, more: wick-threads.js), ` +
            `onnxruntime-web ${ortVersion} 'wasm' EP; ${rounds} rounds, median of each round's median, min of all runs`);
for (const m of models) {
  const row = (engine, threads) => {
    const s = all.get(`${engine} ${threads} ${m.name}`);
    if (!s) return null;
    const meds = s.map((x) => x.median).sort((a, b) => a - b);
    return {median: meds[Math.floor(meds.length / 2)], min: Math.min(...s.map((x) => x.min)), runs: s[0].runs};
  };
  for (const c of chosen) {
    const s = row(`${c.engine}${c.pinned ? '-pinned' : ''}`, c.threads);
    const w = row('wick', c.threads), w1 = row('wick-pinned', 1) || row('wick', 1);
    let ratio = c.engine === 'ort' && w ? `  wick/ort ${(w.median / s.median).toFixed(2)}x median, ${(w.min / s.min).toFixed(2)}x min` : '';
    if (c.engine === 'wick' && c.threads > 1 && w1) ratio = `  speedup over wick-threads.js at 1 thread ${(w1.median / s.median).toFixed(2)}x median, ${(w1.min / s.min).toFixed(2)}x min`;
    const what = c.engine === 'ort' ? 'ort-web wasm' : c.pinned ? 'wick-threads.js pinned' : c.threads > 1 ? 'wick-threads.js' : 'wick.js';
    console.log(`${m.name.padEnd(22)} ${what} threads=${c.threads}: ` +
                `median ${s.median.toFixed(3)} ms, min ${s.min.toFixed(3)} ms (${s.runs} runs x ${rounds})${ratio}`);
  }
}
