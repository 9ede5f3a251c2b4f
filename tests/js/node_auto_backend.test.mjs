// The default backend in Node without Dawn's binding: createExecuTorch() with no options
// in a Node process where npm 'webgpu' cannot be imported (a resolve hook hides it, as if
// the application had not installed it) runs a Vulkan-delegated fixture on the CPU
// executor, says so (et.delegateBackend), and matches its PyTorch reference with the
// manifest's tolerance. A child process, since this process has the binding loaded.
import assert from 'node:assert/strict';
import {execFile} from 'node:child_process';
import path from 'node:path';
import {test} from 'node:test';
import {promisify} from 'node:util';
import {fixturesDir, repoRoot} from './node_runtime.mjs';

const run = promisify(execFile);

// Every specifier 'webgpu' (or under it) fails to resolve, with Node's own error code.
const HOOKS = `export async function resolve(specifier, context, next) {
  if (specifier === 'webgpu' || specifier.startsWith('webgpu/')) {
    throw Object.assign(new Error("Cannot find package 'webgpu' (hidden by the test)"), {code: 'ERR_MODULE_NOT_FOUND'});
  }
  return next(specifier, context);
}`;
const REGISTER = `import {register} from 'node:module';
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)});`;

const CHILD = `
import fs from 'node:fs';
import path from 'node:path';
const root = ${JSON.stringify(repoRoot)}, fixtures = ${JSON.stringify(fixturesDir)};
let hidden = false;
try { await import('webgpu'); } catch (e) { hidden = e.code === 'ERR_MODULE_NOT_FOUND'; }
const {createExecuTorch} = await import(path.join(root, 'package/index.mjs'));
const {runFixture} = await import(path.join(root, 'tests/js/fixture_harness.mjs'));
const io = {text: async (rel) => fs.readFileSync(path.join(fixtures, rel), 'utf8'),
            bytes: async (rel) => new Uint8Array(fs.readFileSync(path.join(fixtures, rel)))};
const et = await createExecuTorch();
const before = et.delegateBackend;
const results = [];
for (const rel of ['models/cnn', 'demos/realesrgan_tiny']) results.push(await runFixture(et, rel, io));
console.log(JSON.stringify({hidden, before, backend: et.delegateBackend, webgpu: et.webgpu, results}));
`;

test("default backend 'auto' in Node without npm 'webgpu': delegated fixtures run on the CPU and match PyTorch", async () => {
  const {stdout} = await run(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(REGISTER)}`,
                                                '--input-type=module', '-e', CHILD],
                             {cwd: path.join(repoRoot, 'tests/js'), timeout: 60000, maxBuffer: 1 << 20});
  const r = JSON.parse(stdout.trim().split('\n').pop());
  assert.equal(r.hidden, true, 'the binding was not hidden');
  assert.equal(r.before, null);
  assert.equal(r.backend, 'cpu');
  assert.equal(r.webgpu, null);
  for (const f of r.results) {
    assert.ok(f.cases >= 1, f.rel);
    assert.deepEqual(f.failures, [], f.rel);
  }
});
