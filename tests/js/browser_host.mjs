// Headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core) with WebGPU
// on SwiftShader, and a localhost server for the pages: the repository at /, the shared
// fixtures at /fixtures/.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import {after, before} from 'node:test';
import {chromium} from 'playwright-core';
import {fixturesDir, repoRoot} from './node_runtime.mjs';

const TYPES = {'.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript',
               '.wasm': 'application/wasm', '.json': 'application/json', '.png': 'image/png',
               '.css': 'text/css'};

// --disable-dawn-features=...: workgroup memory zeroed by the shader (Tint's loop, as Dawn does
// on D3D12 and Metal) rather than through Vulkan's zero-initialization extension, which
// SwiftShader compiles as one store per element: 2-3 s of JIT for every 8 KiB of workgroup
// memory in every pipeline (bench/results/ci_time.md). The memory is zeroed either way.
export const CHROMIUM_ARGS = [
  '--no-sandbox', '--enable-unsafe-webgpu', '--enable-features=Vulkan', '--use-vulkan=swiftshader',
  '--use-webgpu-adapter=swiftshader', '--disable-dawn-features=use_vulkan_zero_initialize_workgroup_memory_extension',
  '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

function resolve(urlPath) {
  const p = decodeURIComponent(urlPath);
  const [root, rest] = p.startsWith('/fixtures/') ? [fixturesDir, p.slice('/fixtures/'.length)] : [repoRoot, p];
  const file = path.join(root, rest);
  return file.startsWith(root) ? file : null;
}

// Serves on 127.0.0.1 (a secure context: crypto.subtle and the Cache API work). Counts
// requests by path, so a test can tell a cached load from a fetched one. aliases: URL path
// -> file, served in place of what the path names (e.g. Wick's bundle where a page loads
// another library). headers: sent with every file (CROSS_ORIGIN_ISOLATED: Wasm threads).
export async function startServer({aliases = {}, headers = {}} = {}) {
  const hits = new Map();
  const server = http.createServer((req, res) => {
    const urlPath = new URL(req.url, 'http://x').pathname;
    hits.set(urlPath, (hits.get(urlPath) || 0) + 1);
    const file = aliases[urlPath] || resolve(urlPath);
    if (!file || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, {'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream',
                        'Content-Length': fs.statSync(file).size, ...headers});
    fs.createReadStream(file).pipe(res);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {url: `http://127.0.0.1:${server.address().port}`, hits, close: () => server.close()};
}

// The headers that make a page cross-origin isolated (crossOriginIsolated, SharedArrayBuffer).
export const CROSS_ORIGIN_ISOLATED = {'Cross-Origin-Opener-Policy': 'same-origin',
                                      'Cross-Origin-Embedder-Policy': 'require-corp'};

// Chromium as a visitor without WebGPU has it: none of the WebGPU flags, and no GPU
// process (Chromium on Linux offers WebGPU only with --enable-unsafe-webgpu).
export const CHROMIUM_ARGS_NO_WEBGPU = [
  '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync'];

// webgpu: false starts it without WebGPU (CHROMIUM_ARGS_NO_WEBGPU).
export async function launchBrowser({webgpu = true} = {}) {
  if (!fs.existsSync('/usr/bin/chromium')) throw new Error('no /usr/bin/chromium (setup.sh installs Debian chromium)');
  return chromium.launch({executablePath: '/usr/bin/chromium', args: webgpu ? CHROMIUM_ARGS : CHROMIUM_ARGS_NO_WEBGPU});
}

// A page with its console and errors forwarded, for test logs.
export async function openPage(browser, url, log = () => {}) {
  const page = await browser.newPage();
  page.on('console', (m) => log(`[page] ${m.text()}`));
  page.on('pageerror', (e) => log(`[pageerror] ${e.message}`));
  await page.goto(url);
  return page;
}

// For a test file: before its tests, a server, a browser and the test harness page
// (tests/js/browser/harness.html), with Wick started on WebGPU when `started` (the page's
// window.wick ready, or the test fails with why); after them, all closed. Returns an
// object whose page, server and log are filled in by the time tests run; `setup(h)` runs
// last in the same hook.
export function useHarnessPage({started = false, setup = null} = {}) {
  const h = {server: null, browser: null, page: null, log: []};
  before(async () => {
    h.server = await startServer();
    h.browser = await launchBrowser();
    h.page = await openPage(h.browser, `${h.server.url}/tests/js/browser/harness.html`, (l) => h.log.push(l));
    if (setup) await setup(h);
    if (!started) return;
    await h.page.waitForFunction(() => window.wick, null, {timeout: 120000});
    const error = await h.page.evaluate(() => window.wick.startError);
    if (error !== undefined) throw new Error(`the page could not start Wick on WebGPU: ${error}\n${h.log.join('\n')}`);
  });
  after(async () => {
    if (h.browser) await h.browser.close();
    if (h.server) h.server.close();
  });
  return h;
}
