// The fixtures through the JavaScript API in headless Chromium (WebGPU on SwiftShader),
// with the harness and tolerances of the Node run: every operator fixture and the small
// models. The model programs below run here only with WICK_BROWSER_FIXTURES=all
// (bench/browser_all_fixtures.sh), to keep the suite's time (bench/results/ci_time.md):
// each is checked against its PyTorch reference natively (ctest) and by this same Wasm
// bundle in Node (node_fixtures.test.mjs), and the ones a playground page runs are checked
// against the same reference in Chromium by that page's test. SwiftShader compiles each
// model's pipelines anew in every browser, which made this file ~340 s of the node stage.
import assert from 'node:assert/strict';
import {test} from 'node:test';
import {useHarnessPage} from './browser_host.mjs';
import {PIPELINES, listFixtures} from './fixture_harness.mjs';
import {fixtureFiles} from './node_runtime.mjs';

// Model fixtures left to the runs named above, with where Chromium checks them against
// their reference (or: 'node' where only Node and the native run do).
const CHECKED_ELSEWHERE = {
  'demos/depth_anything_v2_tiny': 'browser_playground_vision: depth',
  'demos/modnet_tiny': 'browser_playground_vision: matting',
  'demos/realesrgan_tiny': 'browser_playground_vision: super-resolution',
  'demos/detr_tiny': 'browser_playground_vision: detection',
  'demos/sam2_tiny_encoder': 'browser_playground_sam: test input',
  'demos/sam2_tiny_decoder': 'browser_playground_sam: test input (on the encoder\'s outputs)',
  'demos/whisper_tiny_encoder': 'browser_playground_whisper: check against the reference',
  'demos/whisper_tiny_decoder': 'browser_playground_whisper: check against the reference',
  'pretrained/esrgan_slim_x4': 'browser_esrgan_page and browser_playground_vision (reference_output.png)',
  'models/mobilenet_v3_small': 'node',
  'models/cnn': 'browser_worker: a module worker (WebGPU in the worker)',
  'models/llama_et_kv': 'node',
  'demos/dfine_tiny': 'node',
  'pretrained/esrgan_slim_x4_dynamic': 'node',
  'pretrained/esrgan_slim_x2': 'node',
};
const ALL = process.env.WICK_BROWSER_FIXTURES === 'all';
const fixtures = (await listFixtures(fixtureFiles)).filter((rel) => ALL || !(rel in CHECKED_ELSEWHERE));
const h = useHarnessPage({started: true});

test('the page found a WebGPU adapter', async () => {
  const summary = await h.page.evaluate(() => window.wick.gpu.adapter.summary);
  assert.match(summary, /swiftshader/i);
});

for (const rel of fixtures) {
  test(`fixture ${rel} (Chromium)`, async () => {
    const result = await h.page.evaluate((r) => window.wick.run(r), rel);
    assert.deepEqual(result.failures, [], `${rel}:\n  ${result.failures.join('\n  ')}\n${h.log.slice(-5).join('\n')}`);
  });
}

// The encoder -> decoder pipelines (each reuses its encoder fixture's outputs): in Chromium
// the SAM page checks its decoder on Wick's embeddings against the reference, the Whisper
// page runs its pipeline (Transcribe) and checks each program on the fixture's inputs;
// node_fixtures checks both pipelines against the references.
for (const base of ALL ? PIPELINES : []) {
  test(`pipeline ${base}: encoder -> decoder (Chromium)`, async () => {
    const result = await h.page.evaluate((b) => window.wick.pipeline(b), base);
    assert.deepEqual(result.failures, [], `${base}:\n  ${result.failures.join('\n  ')}`);
  });
}
