// et.LLM in headless Chromium (WebGPU on SwiftShader): the same streamed greedy cases as
// tests/js/node_llm.test.mjs, files fetched over HTTP, the tokens and text compared with
// the native `wick generate --greedy --json`; once more in a module worker.
import assert from 'node:assert/strict';
import {test} from 'node:test';
import {useHarnessPage} from './browser_host.mjs';
import {LLM_CASES} from './llm_cases.mjs';
import {nativeGenerate} from './llm_native.mjs';

const natives = Object.fromEntries(LLM_CASES.map((c) => [c.name, nativeGenerate(c)]));
for (const p of Object.values(natives)) p.catch(() => {});

const h = useHarnessPage({started: true});

function check(name, got, want) {
  assert.ok(got, `${name}: no result`);
  assert.equal(got.error, undefined, got.error);
  assert.deepEqual(got.tokens, want.tokens, `${name}: page ${got.tokens} vs native ${want.tokens}`);
  assert.equal(got.text, want.text);
  assert.deepEqual(got.pieceTokens, got.tokens);
  assert.equal(got.stats.stopReason, want.stop_reason);
}

test('the page streams the native tokens on every LLM fixture, and an AbortSignal stops one', async () => {
  const {results} = await h.page.evaluate(async () => {
    const {TOKENIZER_DIRS, abortAfterFirstPiece, runLlmCases} = await import('/tests/js/llm_cases.mjs');
    const where = (f) => ({pte: `/fixtures/${f.rel}/model.pte`, tokenizer: `/${TOKENIZER_DIRS[f.tokenizer]}/tokenizer.json`,
                           tokenizerConfig: `/${TOKENIZER_DIRS[f.tokenizer]}/tokenizer_config.json`});
    return runLlmCases(window.wick.et, where, undefined, {extra: {qwen3: abortAfterFirstPiece}});
  });
  for (const c of LLM_CASES) check(c.name, results[c.name], await natives[c.name]);
  assert.deepEqual(results['extra:qwen3'], {extra: 0, stop: 'cancelled'});
});

test('a module worker streams the native tokens', async () => {
  const name = LLM_CASES[1].name;  // the text prompt
  const r = await h.page.evaluate((names) => new Promise((resolve) => {
    const w = new Worker('/tests/js/browser/llm_worker.mjs', {type: 'module'});
    w.onmessage = (e) => { resolve(e.data); w.terminate(); };
    w.onerror = (e) => resolve({error: `worker error: ${e.message}`});
    w.postMessage(names);
  }), [name]);
  assert.equal(r.error, undefined, r.error);
  assert.match(r.adapter, /swiftshader/i);
  check(name, r.results[name], await natives[name]);
});
