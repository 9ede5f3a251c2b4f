#!/usr/bin/env node
// Serves the playground (web/playground/) with Node's own http server:
//   node scripts/serve.mjs [--port 8000] [--host 127.0.0.1]   then open /web/playground/
//   node scripts/serve.mjs --write-pin DIR                    writes DIR/runtime.pin.json, exits
// The repository is served at /, ../shared/fixtures (WICK_FIXTURES_DIR) at /fixtures/ and
// the sample photos at /photos/ (web/playground/photos/, from web/playground/photos.sh,
// or an installed python3-skimage). /web/playground/runtime.pin.json is made here: the
// sha256 of package/dist/wick.js and wick.wasm, computed at start and again whenever
// their size or mtime changes; the page runs only the bundle this pins (and the threaded
// bundle, wick-threads.*, when it was built too).
// Every answer carries COOP/COEP (CROSS_ORIGIN_ISOLATED): the page is cross-origin
// isolated, so it has SharedArrayBuffer and, without WebGPU, runs the CPU kernels on Wasm
// threads. Everything it loads is same-origin, so require-corp blocks nothing.
// Loopback is a secure context, so crypto.subtle and the Cache API work in the page.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const fixturesDir = process.env.WICK_FIXTURES_DIR || path.resolve(repoRoot, '../shared/fixtures');
const PHOTO_DIRS = [path.join(repoRoot, 'web/playground/photos'), '/usr/lib/python3/dist-packages/skimage/data'];

const TYPES = {'.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
               '.wasm': 'application/wasm', '.json': 'application/json', '.png': 'image/png',
               '.jpg': 'image/jpeg', '.css': 'text/css', '.md': 'text/plain; charset=utf-8',
               '.wav': 'audio/wav', '.svg': 'image/svg+xml'};

// The headers that make a page cross-origin isolated (crossOriginIsolated: Wasm threads).
export const CROSS_ORIGIN_ISOLATED = {'Cross-Origin-Opener-Policy': 'same-origin',
                                      'Cross-Origin-Embedder-Policy': 'require-corp'};

const BUNDLE = ['wick.js', 'wick.wasm'];
// Pinned when all three are there (scripts/build_wasm.sh builds them by default).
const THREADS_BUNDLE = ['wick-threads.js', 'wick-threads.wasm', 'wick-threads.worker.js'];
let pin = null;  // {key, json}

// The pin of package/dist as it is now (recomputed when a file changed).
export function runtimePin() {
  const dist = (f) => path.join(repoRoot, 'package/dist', f);
  if (BUNDLE.some((f) => !fs.existsSync(dist(f)))) {
    throw new Error('package/dist/wick.js or wick.wasm is missing: build them with scripts/build_wasm.sh');
  }
  const names = THREADS_BUNDLE.every((f) => fs.existsSync(dist(f))) ? [...BUNDLE, ...THREADS_BUNDLE] : BUNDLE;
  const files = names.map(dist);
  const stats = files.map((f) => fs.statSync(f));
  const key = names.map((n, i) => `${n}:${stats[i].size}:${stats[i].mtimeMs}`).join(',');
  if (!pin || pin.key !== key) {
    const entries = files.map((f, i) => ({
      file: names[i], bytes: stats[i].size,
      sha256: crypto.createHash('sha256').update(fs.readFileSync(f)).digest('hex')}));
    pin = {key, json: JSON.stringify({created: new Date().toISOString(), files: entries}, null, 1)};
  }
  return pin.json;
}

function resolve(urlPath) {
  const p = decodeURIComponent(urlPath);
  if (p.startsWith('/photos/')) {
    const name = path.basename(p);
    for (const dir of PHOTO_DIRS) {
      const f = path.join(dir, name);
      if (fs.existsSync(f)) return f;
    }
    return null;
  }
  const [root, rest] = p.startsWith('/fixtures/') ? [fixturesDir, p.slice('/fixtures/'.length)] : [repoRoot, p];
  const file = path.join(root, rest);
  if (file !== root && !file.startsWith(root + path.sep)) return null;  // no way out of the root
  if (fs.existsSync(file) && fs.statSync(file).isDirectory()) {
    const index = path.join(file, 'index.html');
    return fs.existsSync(index) ? index : null;
  }
  return file;
}

// Starts the server; resolves to {url, hits, close}. hits counts requests by path, so a
// test can tell a cached load from a fetched one.
export async function startPlaygroundServer({port = 0, host = '127.0.0.1', log = null} = {}) {
  const hits = new Map();
  const server = http.createServer((req, res) => {
    const urlPath = new URL(req.url, 'http://x').pathname;
    hits.set(urlPath, (hits.get(urlPath) || 0) + 1);
    if (log) log(`${req.method} ${urlPath}`);
    if (urlPath === '/web/playground/runtime.pin.json') {
      try {
        const body = runtimePin();
        res.writeHead(200, {...CROSS_ORIGIN_ISOLATED, 'Content-Type': 'application/json', 'Cache-Control': 'no-store'}).end(body);
      } catch (e) {
        res.writeHead(500, {...CROSS_ORIGIN_ISOLATED, 'Content-Type': 'text/plain'}).end(e.message);
      }
      return;
    }
    if (urlPath === '/') {
      res.writeHead(302, {Location: '/web/playground/'}).end();
      return;
    }
    const file = resolve(urlPath);
    if (!file || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(404, {...CROSS_ORIGIN_ISOLATED, 'Content-Type': 'text/plain'}).end(`not found: ${urlPath}`);
      return;
    }
    res.writeHead(200, {...CROSS_ORIGIN_ISOLATED, 'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream',
                        'Content-Length': fs.statSync(file).size, 'Cache-Control': 'no-cache'});
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    fs.createReadStream(file).pipe(res);
  });
  await new Promise((r, j) => {
    server.once('error', j);
    server.listen(port, host, r);
  });
  return {url: `http://${host}:${server.address().port}`, hits, close: () => server.close()};
}

function argValue(args, name, fallback) {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  if (i + 1 >= args.length) throw new Error(`${name} needs a value`);
  return args[i + 1];
}

async function main(args) {
  if (args.includes('--help') || args.includes('-h')) {
    console.log('usage: node scripts/serve.mjs [--port 8000] [--host 127.0.0.1] | --write-pin DIR');
    return;
  }
  const pinDir = argValue(args, '--write-pin', null);
  if (pinDir) {
    fs.mkdirSync(pinDir, {recursive: true});
    fs.writeFileSync(path.join(pinDir, 'runtime.pin.json'), runtimePin());
    console.log(`wrote ${path.join(pinDir, 'runtime.pin.json')}`);
    return;
  }
  const port = Number(argValue(args, '--port', '8000'));
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port: not a port: ${port}`);
  runtimePin();  // fail now, not on the first page load, when the bundle is missing
  const s = await startPlaygroundServer({port, host: argValue(args, '--host', '127.0.0.1')});
  console.log(`Wick playground: ${s.url}/web/playground/  (Ctrl-C stops)`);
}

if (import.meta.url === pathToFileURL(process.argv[1] || '').href) {
  main(process.argv.slice(2)).catch((e) => {
    console.error(`serve.mjs: ${e.message}`);
    process.exit(1);
  });
}
