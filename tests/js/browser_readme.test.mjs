// package/README.md's example in headless Chromium, as its page section says: the page is
// the README's import map plus the example as a module script, served with model.pte and
// node_modules/wick-webgpu beside it (routed to examples/esrgan/model.pte and package/).
// No initWebGPU({gpu}) is needed: navigator.gpu is used, opened on first use.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {test} from 'node:test';
import {launchBrowser, startServer} from './browser_host.mjs';
import {repoRoot} from './node_runtime.mjs';

function readmeBlocks() {
  const text = fs.readFileSync(path.join(repoRoot, 'package/README.md'), 'utf8');
  const js = /```js\n([\s\S]*?)```/.exec(text);
  const html = /( *)```html\n([\s\S]*?)\n *```/.exec(text);
  assert.ok(js && html, 'package/README.md needs a ```js and an ```html block');
  const indent = html[1].length;
  return {js: js[1], html: html[2].split('\n').map((l) => l.slice(indent)).join('\n')};
}

test("package/README.md's example runs in a page with the README's import map", async () => {
  const {js, html} = readmeBlocks();
  const server = await startServer();
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    const log = [];
    page.on('console', (m) => log.push(m.text()));
    page.on('pageerror', (e) => log.push(`[pageerror] ${e.message}`));
    const base = `${server.url}/readme/`;
    const files = {'example.mjs': [js, 'text/javascript'],
                   'index.html': [`<!doctype html><title>readme</title>\n${html}\n`, 'text/html'],
                   'model.pte': [fs.readFileSync(path.join(repoRoot, 'examples/esrgan/model.pte')), 'application/octet-stream']};
    await page.route(`${base}**`, (route) => {
      const rel = new URL(route.request().url()).pathname.slice('/readme/'.length);
      if (files[rel]) return route.fulfill({body: files[rel][0], contentType: files[rel][1]});
      const pkg = rel.replace(/^node_modules\/wick-webgpu\//, '/package/');
      return route.continue({url: `${server.url}${pkg.startsWith('/') ? pkg : '/' + pkg}`});
    });
    await page.goto(`${base}index.html`);
    const done = () => log.some((l) => /\[pageerror\]|256, 256|196608/.test(l));
    for (let i = 0; i < 600 && !done(); i++) await new Promise((r) => setTimeout(r, 200));
    const text = log.join('\n');
    assert.doesNotMatch(text, /\[pageerror\]/);
    assert.match(text, /model\.pte: 947084 of 947084 bytes/);
    assert.match(text, /1,3,256,256 196608|\[1, 3, 256, 256\] 196608/);
  } finally {
    await browser.close();
    server.close();
  }
});
