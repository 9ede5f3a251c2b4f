// et.LLM in Node on WebGPU (dawn.node on SwiftShader): streamed greedy generation on the
// LLM fixtures gives exactly the tokens and text of the native `wick generate --greedy
// --json`; multi-turn prefills only the new tokens and continues as one long prompt
// would; an AbortSignal, break and cancel() stop cleanly; bad input is a clear Error.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {after, before, test} from 'node:test';
import {runFixture} from './fixture_harness.mjs';
import {LLM_CASES, LLM_FIXTURES, runLlmCases, streamCase} from './llm_cases.mjs';
import {fixturePte, nativeGenerate, tokenizerDir} from './llm_native.mjs';
import {fixtureFiles, fixturesDir, nodeRuntime} from './node_runtime.mjs';

const where = (f) => ({pte: fixturePte(f.rel), tokenizer: path.join(tokenizerDir(f.tokenizer), 'tokenizer.json'),
                       tokenizerConfig: path.join(tokenizerDir(f.tokenizer), 'tokenizer_config.json')});

// The native runs start now, beside the JS ones (a cached run costs nothing).
const natives = Object.fromEntries(LLM_CASES.map((c) => [c.name, nativeGenerate(c)]));
for (const p of Object.values(natives)) p.catch(() => {});

// Loaded in the one hook below: the cases' results, and an LLM on the tiny Qwen3 (dynamic
// prefill, context 64) for the other tests.
let et;
let results;
let llm;
const qwen = LLM_FIXTURES.qwen3;
const penalty = {repetitionPenalty: 5};
before(async () => {
  et = await nodeRuntime();
  const r = await runLlmCases(et, where, undefined, {keep: ['qwen3']});
  results = r.results;
  llm = r.llms.qwen3;
  assert.ok(llm, results[LLM_CASES[0].name].error);
});
after(() => llm && llm.delete());

for (const c of LLM_CASES) {
  test(`streams the native tokens: ${c.name}`, async () => {
    const want = await natives[c.name];
    const got = results[c.name];
    assert.equal(got.error, undefined, got.error);
    assert.deepEqual(got.tokens, want.tokens, `${c.name}: JS ${got.tokens} vs native ${want.tokens}`);
    assert.equal(got.text, want.text);
    assert.deepEqual(got.pieceTokens, got.tokens, 'the pieces carry every generated id, in order');
    assert.equal(got.pieceText, got.text);
    assert.ok(got.pieces >= 1);
    assert.equal(got.stats.stopReason, want.stop_reason);
    assert.equal(got.stats.promptTokens, want.prompt_tokens);
    assert.equal(got.stats.generatedTokens, c.maxNewTokens);
    assert.ok(got.stats.timeToFirstTokenMs > 0 && got.stats.prefillTokensPerS > 0 && got.stats.decodeTokensPerS > 0,
              JSON.stringify(got.stats));
  });
}


test('info says what the runner settled on', () => {
  const i = llm.info;
  assert.equal(i.maxContextLen, 64);
  assert.equal(i.dynamicShape, true);
  assert.equal(i.prefillChunk, 63);
  assert.equal(i.vocabSize, 512);
  assert.ok(i.eosIds.includes(151645), `eos ${i.eosIds}`);  // the tokenizer config's
  assert.equal(llm.tokenizer.hasChatTemplate, true);
});

test('multi-turn: the second turn prefills only its tokens and continues as one prompt would', async () => {
  llm.reset();
  const p1 = [17, 301, 42, 5, 99];
  const p2 = [7, 8, 9];
  const first = await llm.generate(p1, {greedy: true, maxNewTokens: 3, ...penalty}).result();
  const second = await llm.generate(p2, {greedy: true, maxNewTokens: 3, ...penalty}).result();
  // The last token of turn 1 was not in the cache yet: it goes in first.
  assert.equal(second.stats.promptTokens, 1 + p2.length);
  assert.equal(second.stats.position, p1.length + 3 + p2.length + 2);
  const whole = await nativeGenerate({fixture: 'qwen3', prompt: [...p1, ...first.tokens, ...p2], maxNewTokens: 3, ...penalty});
  assert.deepEqual(second.tokens, whole.tokens);
  llm.reset();
  assert.equal(llm.info.position, 0);
});

test('Module calls run between the tokens of a generation, and neither disturbs the other', async () => {
  const c = LLM_CASES[0];
  const [got, cnn] = await Promise.all([streamCase(llm, c), runFixture(et, 'models/cnn', fixtureFiles)]);
  assert.deepEqual(cnn.failures, []);
  assert.deepEqual(got.tokens, (await natives[c.name]).tokens);
});

test('a chat: messages through a chat template, then the whole chat again with a new turn', async () => {
  // A template whose text stays inside the fixture's 512 ids (the real ones' special
  // tokens do not): "Q: ...\nA:".
  const tpl = "{% for m in messages %}{{ 'Q' if m.role == 'user' else 'A' }}:{{ m.content }}\n{% endfor %}" +
              "{% if add_generation_prompt %}A:{% endif %}";
  const chat = await et.LLM.load(fixturePte(qwen.rel), {tokenizer: path.join(tokenizerDir('qwen3'), 'tokenizer.json'),
                                                        tokenizerConfig: {chat_template: tpl}, maxContextLen: qwen.context});
  try {
    const m1 = [{role: 'user', content: ' on the st'}];
    const ids1 = chat.tokenizer.encode(chat.tokenizer.applyChatTemplate(m1), {addSpecialTokens: false});
    assert.deepEqual(ids1, [48, 25, 389, 279, 357, 198, 32, 25]);
    const g1 = await chat.generate(m1, {greedy: true, maxNewTokens: 3, ...penalty}).result();
    assert.deepEqual(g1.tokens, (await nativeGenerate({fixture: 'qwen3', prompt: ids1, maxNewTokens: 3, ...penalty})).tokens);
    // The next turn passes the whole chat: only what follows the tokens the LLM holds is
    // prefilled when the rendering starts with them, else the chat restarts. Either way
    // the tokens are those of the whole rendering as one prompt. (The assistant turn is
    // a fixed text: the tiny model's own would re-encode to ids outside its vocabulary.)
    const m2 = [...m1, {role: 'assistant', content: ' the st'}, {role: 'user', content: ' in the'}];
    const ids2 = chat.tokenizer.encode(chat.tokenizer.applyChatTemplate(m2), {addSpecialTokens: false});
    const held = [...ids1, ...g1.tokens];
    const extends_ = held.every((id, i) => ids2[i] === id);
    const g2 = await chat.generate(m2, {greedy: true, maxNewTokens: 3, ...penalty}).result();
    assert.equal(g2.stats.promptTokens, extends_ ? ids2.length - held.length + 1 : ids2.length);
    assert.equal(g2.stats.position, ids2.length + 2);
    assert.deepEqual(g2.tokens, (await nativeGenerate({fixture: 'qwen3', prompt: ids2, maxNewTokens: 3, ...penalty})).tokens);
    // A chat that does not extend the held tokens restarts from position 0.
    const g3 = await chat.generate([{role: 'user', content: ' the'}], {greedy: true, maxNewTokens: 1}).result();
    assert.equal(g3.stats.position, g3.stats.promptTokens);
  } finally {
    chat.delete();
  }
});

test('a chat (messages) whose ids are outside the tiny vocabulary is a clear error', () => {
  llm.reset();
  // <|im_start|> is 151644; the fixture's vocabulary is 512.
  assert.throws(() => llm.generate([{role: 'user', content: 'hi'}], {greedy: true}),
                /LLM.generate: .*token 151644 is outside the vocabulary \(0..511\)/);
});

test('an AbortSignal stops the generation cleanly, and the chat goes on', async () => {
  llm.reset();
  const ac = new AbortController();
  const gen = llm.generate([17, 301, 42], {greedy: true, maxNewTokens: 20, signal: ac.signal, ...penalty});
  let atAbort = 0;
  for await (const piece of gen) {
    // A piece holds more than one token when a character spans them.
    if (!atAbort && gen.tokens.length >= 2) {
      atAbort = gen.tokens.length;
      ac.abort();
    }
  }
  assert.equal(gen.stats.stopReason, 'cancelled');
  assert.ok(atAbort >= 2 && atAbort < 20);
  assert.equal(gen.tokens.length, atAbort, 'no token after the abort');
  assert.match(gen.stats.stopMessage, new RegExp(`stopped by the caller after ${atAbort} tokens`));
  // Aborted before it starts: no token at all.
  const ac2 = new AbortController();
  ac2.abort();
  const none = await llm.generate([5], {greedy: true, signal: ac2.signal}).result();
  assert.deepEqual(none.tokens, []);
  assert.equal(none.stats.stopReason, 'cancelled');
  // break out of the loop stops it too, and the LLM takes the next turn.
  const gen3 = llm.generate([6], {greedy: true, maxNewTokens: 20});
  let first;
  for await (const piece of gen3) {
    first = piece;
    break;
  }
  assert.equal(gen3.stats.stopReason, 'cancelled');
  assert.deepEqual(gen3.tokens, first.tokens);
  const next = await llm.generate([7], {greedy: true, maxNewTokens: 1}).result();
  assert.equal(next.tokens.length, 1);
  assert.equal(next.stats.stopReason, 'max_new_tokens');
});

test('bad prompts and options are clear errors', async () => {
  llm.reset();
  assert.throws(() => llm.generate(''), /LLM.generate: empty prompt: give some text/);
  assert.throws(() => llm.generate([]), /LLM.generate: empty prompt: give at least one token/);
  const long = Array.from({length: 70}, (_, i) => i);
  assert.throws(() => llm.generate(long, {greedy: true}), /prompt of 70 tokens does not fit in the context: 64 tokens, 0 already used/);
  assert.throws(() => llm.generate([1, 600]), /token 600 is outside the vocabulary \(0..511\)/);
  assert.throws(() => llm.generate([1], {greedy: true, temperature: 0.5}), /greedy cannot be combined/);
  assert.throws(() => llm.generate([1], {temperature: -1}), /temperature must be a finite number >= 0/);
  assert.throws(() => llm.generate([1], {topP: 0}), /top_p/);
  assert.throws(() => llm.generate([1], {maxNewTokens: 0}), /maxNewTokens must be an integer >= 1/);
  assert.throws(() => llm.generate([1], {seed: -3}), /seed must be an integer in \[0, 2\^64\)/);
  assert.throws(() => llm.generate({text: 'x'}), /the prompt must be a string, an array of \{role, content\} messages or token ids/);
  const running = llm.generate([1], {greedy: true, maxNewTokens: 2});
  assert.throws(() => llm.generate([2]), /a generation is running on this LLM/);
  await running.cancel();
  // Seeded sampling is reproducible.
  llm.reset();
  const a = await llm.generate([1, 2, 3], {temperature: 1, topK: 40, seed: 7, maxNewTokens: 3}).result();
  llm.reset();
  const b = await llm.generate([1, 2, 3], {temperature: 1, topK: 40, seed: 7, maxNewTokens: 3}).result();
  assert.deepEqual(a.tokens, b.tokens);
  assert.equal(a.tokens.length, 3);
});

test('LLM.load takes bytes and a tokenizer folder too', async () => {
  const other = await et.LLM.load(fs.readFileSync(fixturePte(qwen.rel)), {tokenizer: tokenizerDir('qwen3'), maxContextLen: 16});
  assert.equal(other.info.maxContextLen, 16);
  assert.match(other.info.name, /^<bytes: \d+ B>$/);
  assert.equal(other.tokenizer.hasChatTemplate, true);  // tokenizer_config.json beside it
  const r = await other.generate('on the st', {greedy: true, maxNewTokens: 1}).result();
  assert.equal(r.tokens.length, 1);
  other.delete();
  assert.throws(() => other.generate([1]), /the LLM was deleted/);
});

test('bad model and tokenizer inputs are clear errors', async () => {
  const pte = fixturePte(qwen.rel);
  await assert.rejects(et.LLM.load(pte, {tokenizer: '{"model": {"type": "BPE", "vocab": 3}}'}), /LLM.load: .*vocab/i);
  await assert.rejects(et.LLM.load(pte, {tokenizer: '{not json'}), /LLM.load: .*JSON/i);
  await assert.rejects(et.LLM.load(path.join(fixturesDir, 'nope/model.pte')), /LLM.load: cannot read the model .*no such file/);
  await assert.rejects(et.LLM.load(new Uint8Array(64)), /LLM.load: /);
  // No context length: the fixture has no get_max_context_len/get_max_seq_len method.
  await assert.rejects(et.LLM.load(pte), /LLM.load: .*max_context_len/);
  await assert.rejects(et.LLM.load(pte, {maxContextLen: 0}), /maxContextLen must be an integer >= 1/);
});
