// package/README.md's example, verbatim: run in Node as a new project would (the package
// under its name in node_modules, model.pte beside the script), and type-checked with
// `tsc --noEmit --strict` against package/index.d.ts, with tests/js/types/api_usage.ts.
import assert from 'node:assert/strict';
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {test} from 'node:test';
import {repoRoot} from './node_runtime.mjs';

function readmeExample() {
  const text = fs.readFileSync(path.join(repoRoot, 'package/README.md'), 'utf8');
  const m = /```js\n([\s\S]*?)```/.exec(text);
  assert.ok(m, 'package/README.md has no ```js block');
  return m[1];
}

// A folder laid out as a user's project: node_modules/wick-webgpu is the package.
function project() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wick-readme-'));
  fs.mkdirSync(path.join(dir, 'node_modules'));
  fs.symlinkSync(path.join(repoRoot, 'package'), path.join(dir, 'node_modules/wick-webgpu'));
  fs.symlinkSync(path.join(repoRoot, 'node_modules/webgpu'), path.join(dir, 'node_modules/webgpu'));
  return dir;
}

test("package/README.md's example runs as written in Node", () => {
  const dir = project();
  fs.copyFileSync(path.join(repoRoot, 'examples/esrgan/model.pte'), path.join(dir, 'model.pte'));
  fs.writeFileSync(path.join(dir, 'example.mjs'), readmeExample());
  const r = spawnSync(process.execPath, ['example.mjs'], {cwd: dir, encoding: 'utf8', timeout: 300000});
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /model\.pte: 947084 of 947084 bytes/);
  assert.match(r.stdout, /\[ 1, 3, 256, 256 \] 196608/);
  fs.rmSync(dir, {recursive: true});
});

test("the README's example and the API usage type-check under tsc --strict", () => {
  const dir = project();
  fs.writeFileSync(path.join(dir, 'example.ts'), `export {};\n${readmeExample()}`);
  fs.copyFileSync(path.join(repoRoot, 'tests/js/types/api_usage.ts'), path.join(dir, 'api_usage.ts'));
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {strict: true, noEmit: true, target: 'es2022', module: 'esnext', moduleResolution: 'bundler',
                      lib: ['es2022', 'dom'], types: [], skipLibCheck: false},
    files: ['example.ts', 'api_usage.ts'],
  }));
  const tsc = path.join(repoRoot, 'node_modules/typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', dir], {encoding: 'utf8', timeout: 120000});
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  fs.rmSync(dir, {recursive: true});
});
