// Every delegated fixture (groups ops, models, demos, pretrained, and the repository's op
// fixtures in tests/fixtures/ops, up to the tiny 8da4w Llama) through the JavaScript API in Node on the CPU executor of VK00 graphs (createExecuTorch({backend: 'cpu'}): the
// Wasm bundle's src/vkcpu, no WebGPU anywhere), with the harness and tolerances of the
// WebGPU runs (node_fixtures.test.mjs), stateful fixtures' cases in order on one method,
// and both two-program pipelines. browser_cpu_fixtures.test.mjs runs them in Chromium.
import assert from 'node:assert/strict';
import {test} from 'node:test';
import {createExecuTorch} from '../../package/index.mjs';
import {DELEGATED_GROUPS, PIPELINES, listFixtures, runFixture, runPipeline} from './fixture_harness.mjs';
import {fixtureFiles, listRepoOpFixtures, repoFixtureFiles} from './node_runtime.mjs';

const fixtures = await listFixtures(fixtureFiles, DELEGATED_GROUPS);
const index = JSON.parse(await fixtureFiles.text('index.json'));
const delegated = new Set(index.fixtures.filter((f) => f.delegated).map((f) => f.path));

// One runtime for the file, on the CPU from the start: no GPU object is ever offered.
let runtime = null;
const cpuRuntime = () => (runtime ??= createExecuTorch({backend: 'cpu'}));

test('every delegated fixture of the index is here', () => {
  assert.ok(fixtures.length >= 92, `only ${fixtures.length} fixtures found`);
  assert.deepEqual(fixtures.filter((f) => !delegated.has(f)), []);
});

for (const rel of fixtures) {
  test(`fixture ${rel} (cpu backend)`, async () => {
    const et = await cpuRuntime();
    const result = await runFixture(et, rel, fixtureFiles);
    assert.equal(et.delegateBackend, 'cpu');
    assert.equal(et.webgpu, null);
    assert.ok(result.cases >= 1, rel);
    assert.deepEqual(result.failures, [], `${rel}:\n  ${result.failures.join('\n  ')}`);
  });
}

// The repository's op fixtures (tests/fixtures/ops/<name>, outside the shared index).
const repoOps = listRepoOpFixtures();

test('the repository op fixtures are here', () => {
  assert.ok(repoOps.length >= 32, `only ${repoOps.length} op fixtures in tests/fixtures/ops`);
  assert.ok(repoOps.includes('llama_8da4w_q4emb'));
});

for (const name of repoOps) {
  test(`op fixture ${name} (cpu backend)`, async () => {
    const et = await cpuRuntime();
    const result = await runFixture(et, `ops/${name}`, repoFixtureFiles);
    assert.equal(et.delegateBackend, 'cpu');
    assert.ok(result.cases >= 1, name);
    assert.deepEqual(result.failures, [], `${name}:\n  ${result.failures.join('\n  ')}`);
  });
}

for (const base of PIPELINES) {
  test(`pipeline ${base}: encoder -> decoder (cpu backend)`, async () => {
    const result = await runPipeline(await cpuRuntime(), base, fixtureFiles);
    assert.deepEqual(result.failures, [], `${base}:\n  ${result.failures.join('\n  ')}`);
  });
}
