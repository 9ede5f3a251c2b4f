// Calls made while others are in flight, in Node on dawn.node: every call settles, the
// answers match the reference, the runtime keeps working (concurrency_cases.mjs).
import assert from 'node:assert/strict';
import {test} from 'node:test';
import {concurrentCalls} from './concurrency_cases.mjs';
import {fixtureFiles, nodeRuntime} from './node_runtime.mjs';

test('load, getMethodMeta, forward and execute from timers during a load and a forward all settle (Node)', async () => {
  assert.equal(await concurrentCalls(await nodeRuntime(), fixtureFiles), null);
});
