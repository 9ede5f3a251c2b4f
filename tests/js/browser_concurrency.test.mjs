// Calls made while others are in flight, in headless Chromium on WebGPU (SwiftShader):
// every call settles, the answers match the reference, the page keeps working
// (concurrency_cases.mjs).
import assert from 'node:assert/strict';
import {test} from 'node:test';
import {useHarnessPage} from './browser_host.mjs';

const h = useHarnessPage({started: true});

test('load, getMethodMeta, forward and execute from timers during a load and a forward all settle (Chromium)', async () => {
  const why = await h.page.evaluate(async () => {
    const {concurrentCalls} = await import('/tests/js/concurrency_cases.mjs');
    return concurrentCalls(window.wick.et, window.wick.io);
  });
  assert.equal(why, null, h.log.slice(-5).join('\n'));
});
