// Every fixture through the JavaScript API in Node (dawn.node on SwiftShader): the same
// fixtures and tolerances as the native suite.
import assert from 'node:assert/strict';
import {test} from 'node:test';
import {PIPELINES, listFixtures, runFixture, runPipeline} from './fixture_harness.mjs';
import {fixtureFiles, nodeRuntime} from './node_runtime.mjs';

const fixtures = await listFixtures(fixtureFiles);

test('the fixture index lists every group', () => {
  assert.ok(fixtures.length >= 99, `only ${fixtures.length} fixtures found`);
});

for (const rel of fixtures) {
  test(`fixture ${rel}`, async () => {
    const et = await nodeRuntime();
    const result = await runFixture(et, rel, fixtureFiles);
    assert.deepEqual(result.failures, [], `${rel}:\n  ${result.failures.join('\n  ')}`);
  });
}

for (const base of PIPELINES) {
  test(`pipeline ${base}: encoder -> decoder`, async () => {
    const result = await runPipeline(await nodeRuntime(), base, fixtureFiles);
    assert.deepEqual(result.failures, [], `${base}:\n  ${result.failures.join('\n  ')}`);
  });
}
