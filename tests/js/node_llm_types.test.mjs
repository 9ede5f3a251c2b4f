// The LLM part of package/index.d.ts: tests/js/types/llm_usage.ts type-checks with
// `tsc --noEmit --strict` against the package, imported under its name.
import assert from 'node:assert/strict';
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {test} from 'node:test';
import {repoRoot} from './node_runtime.mjs';

test('the LLM types compile under tsc --strict', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wick-llm-types-'));
  fs.mkdirSync(path.join(dir, 'node_modules'));
  fs.symlinkSync(path.join(repoRoot, 'package'), path.join(dir, 'node_modules/wick-webgpu'));
  fs.copyFileSync(path.join(repoRoot, 'tests/js/types/llm_usage.ts'), path.join(dir, 'llm_usage.ts'));
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {strict: true, noEmit: true, target: 'es2022', module: 'esnext', moduleResolution: 'bundler',
                      lib: ['es2022', 'dom', 'dom.asynciterable'], types: [], skipLibCheck: false},
    files: ['llm_usage.ts'],
  }));
  const tsc = path.join(repoRoot, 'node_modules/typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', dir], {encoding: 'utf8', timeout: 120000});
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  // And a wrong call is refused: the check can fail.
  fs.writeFileSync(path.join(dir, 'llm_usage.ts'), "import c from 'wick-webgpu';\nexport const x = (async () => (await c()).LLM.load(1))();\n");
  const bad = spawnSync(process.execPath, [tsc, '-p', dir], {encoding: 'utf8', timeout: 120000});
  assert.notEqual(bad.status, 0, 'tsc accepted LLM.load(1)');
  assert.match(bad.stdout, /not assignable to parameter of type 'BytesSource'/);
  fs.rmSync(dir, {recursive: true});
});
