// Time from navigation to the playground's first interactive page: the shell drawn, the
// runtime (wick.js + wick.wasm) fetched, checked against its pin, compiled, and WebGPU
// opened in the worker; no model. Headless Chromium on SwiftShader, served by
// scripts/serve.mjs.
//   node bench/playground_open.mjs [runs, default 5]
// "cold": a fresh browser each run (empty HTTP and Cache API); "warm": a second page in
// the same browser (the runtime read back from the Cache API).
import {execFileSync} from 'node:child_process';
import {startPlaygroundServer} from '../scripts/serve.mjs';
import {launchBrowser} from '../tests/js/browser_host.mjs';

const runs = Number(process.argv[2] || 5);
const server = await startPlaygroundServer();
const cold = [], warm = [], shell = [];

async function open(context) {
  const page = await context.newPage();
  await page.goto(`${server.url}/web/playground/?demo=depth`);
  await page.waitForFunction(() => window.playground && (window.playground.ready || window.playground.runtimeError), null, {timeout: 60000});
  const r = await page.evaluate(() => ({openMs: window.playground.openMs, error: window.playground.runtimeError,
                                        dcl: performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd}));
  if (r.error) throw new Error(r.error);
  await page.close();
  return r;
}

for (let i = 0; i < runs; i++) {
  const browser = await launchBrowser();
  const context = await browser.newContext();
  const a = await open(context);
  const b = await open(context);
  cold.push(a.openMs);
  shell.push(a.dcl);
  warm.push(b.openMs);
  await browser.close();
}
server.close();

const median = (v) => v.slice().sort((a, b) => a - b)[v.length >> 1];
const fmt = (v) => `median ${median(v).toFixed(0)} ms (min ${Math.min(...v).toFixed(0)}, max ${Math.max(...v).toFixed(0)})`;
let chromium = 'chromium';
try {
  chromium = execFileSync('/usr/bin/chromium', ['--version'], {encoding: 'utf8'}).trim();
} catch (e) { /* keep the name */ }
console.log([
  `Wick playground: navigation to the first interactive page, ${new Date().toISOString().slice(0, 10)}`,
  `command: node bench/playground_open.mjs ${runs}`,
  `host: headless ${chromium}, WebGPU on SwiftShader, ${runs} runs, served from 127.0.0.1`,
  `  shell drawn (DOMContentLoaded)                    ${fmt(shell)}`,
  `  runtime ready, cold (fetched + verified + compiled) ${fmt(cold)}`,
  `  runtime ready, warm (from the Cache API)            ${fmt(warm)}`,
  `target: < 2000 ms (issue 10)`,
].join('\n'));
