// Bundle size and load-to-first-result time in headless Chromium (WebGPU on SwiftShader:
// the times measure the runtime's startup path, not a GPU).
//   node bench/web_load.mjs [fixture, default models/mobilenet_v3_small] [runs, default 3]
// Each run is a fresh browser (no HTTP or compiled-wasm cache). Prints a report.
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import zlib from 'node:zlib';
import {launchBrowser, startServer} from '../tests/js/browser_host.mjs';
import {repoRoot} from '../tests/js/node_runtime.mjs';

const model = process.argv[2] || 'models/mobilenet_v3_small';
const runs = Number(process.argv[3] || 3);
const size = (f) => {
  const bytes = fs.readFileSync(`${repoRoot}/package/dist/${f}`);
  return {raw: bytes.length, gzip: zlib.gzipSync(bytes, {level: 9}).length};
};
const js = size('wick.js'), wasm = size('wick.wasm');
const server = await startServer();
const results = [];
for (let i = 0; i < runs; i++) {
  const browser = await launchBrowser();
  const page = await browser.newPage();
  await page.goto(`${server.url}/bench/web/load.html?model=${encodeURIComponent(model)}`);
  const r = await (await page.waitForFunction(() => window.__result, null, {timeout: 600000})).jsonValue();
  await browser.close();
  if (r.error) throw new Error(r.error);
  results.push(r);
}
server.close();
const median = (k) => {
  const v = results.map((r) => r.marks[k]).sort((a, b) => a - b);
  return v[v.length >> 1];
};
const kib = (n) => `${(n / 1024).toFixed(0)} KiB`;
const lines = [
  `Wick web bundle and load-to-first-result, ${new Date().toISOString().slice(0, 10)}`,
  `host: headless ${browserVersion()}, ${results[0].adapter}; ${runs} fresh-browser runs, medians`,
  `bundle: wick.js ${kib(js.raw)} (${kib(js.gzip)} gzip), wick.wasm ${kib(wasm.raw)} (${kib(wasm.gzip)} gzip)`,
  `model: ${model} (${(results[0].bytes / 1048576).toFixed(1)} MiB .pte)`,
  `  runtime ready (wasm fetched + compiled)  ${median('runtime').toFixed(0)} ms after navigation start`,
  `  WebGPU device                            ${median('webgpu').toFixed(0)} ms`,
  `  model fetched                            ${median('fetched').toFixed(0)} ms`,
  `  method loaded (shaders compiled)         ${median('loaded').toFixed(0)} ms`,
  `  first result                             ${median('first_result').toFixed(0)} ms`,
  `  second forward                           ${median('second_forward_ms').toFixed(0)} ms`,
];
console.log(lines.join('\n'));

function browserVersion() {
  try {
    return execFileSync('/usr/bin/chromium', ['--version'], {encoding: 'utf8'}).trim();
  } catch (e) {
    return 'chromium (version unknown)';
  }
}
