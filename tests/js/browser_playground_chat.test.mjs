// The chat demo of the playground (web/playground/demos/chat) through its UI in headless
// Chromium on SwiftShader, on et.LLM with the tiny Qwen3 and 4-bit Llama programs
// (../shared/fixtures/demos/{qwen3_tiny_kv,llama_q4gsw_kv}) and the real Qwen3 / Llama 3
// tokenizers cut to their 512 ids: typing a message streams an answer whose prompt is the
// chat template as the tokenizer encodes it (counted here in Node), a second message keeps
// the history, Stop ends an answer early, a seed makes sampling repeat, and greedy after the
// fixture's prefill ids gives the argmax of PyTorch's logits.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {after, before, test} from 'node:test';
import {createExecuTorch} from '../../package/index.mjs';
import {fitTokenizer} from '../../web/playground/demos/chat/fit_tokenizer.mjs';
import {findDemo} from '../../web/playground/registry.mjs';
import {demoState, openPlayground, readReference, repoRoot, screenshot, startPlayground} from './playground_page.mjs';

let pg, page;

before(async () => {
  pg = await startPlayground();
  page = await openPlayground(pg, '?demo=chat');
  await page.waitForFunction(() => window.playground.demos.chat?.ready, null, {timeout: 30000});
});
after(async () => { if (pg) await pg.close(); });

let seen = 0;  // messages before this count were expected (the too-long message)
const noErrors = async () => {
  const errors = await page.evaluate((n) => window.playground.messages.slice(n).filter((m) => m.kind === 'error'), seen);
  assert.deepEqual(errors, [], page.log.join('\n'));
};

// Types a message, sends it with Enter and waits for the answer; returns its turn.
async function say(text) {
  const runs = (await demoState(page, 'chat')).runs || 0;
  await page.fill('#chat-input', text);
  await page.press('#chat-input', 'Enter');
  await page.waitForFunction(([n, k]) => (window.playground.demos.chat.runs || 0) > n ||
                                    window.playground.messages.slice(k).some((m) => m.kind === 'error'), [runs, seen], {timeout: 120000});
  await noErrors();
  return (await demoState(page, 'chat')).turns.at(-1);
}

// The prompt as the demo's tokenizer encodes it, in Node: the same files, cut the same way.
async function promptTokens(optionId, messages) {
  const option = findDemo('chat').options.find((o) => o.id === optionId);
  const file = (u) => JSON.parse(fs.readFileSync(path.join(repoRoot, u)));
  const f = fitTokenizer(file(option.llm.tokenizer.url), file(option.llm.tokenizerConfig.url), option.llm.fit.vocabSize, option.llm.fit.specials);
  const et = await createExecuTorch({gpu: null});
  const tok = et.Tokenizer.fromJSON(JSON.stringify(f.tokenizer), JSON.stringify(f.config));
  return tok.encode(tok.applyChatTemplate(messages, {addGenerationPrompt: true, enableThinking: false}), {addSpecialTokens: false});
}

test('Qwen3: a typed message streams an answer; the prompt is the chat template; a second turn keeps the history', async () => {
  const first = await say('Hi');
  assert.ok(first.pieces >= 1, 'streamed in pieces');
  assert.equal(first.stats.generatedTokens, first.tokens.length);
  assert.ok(first.tokens.length >= 1 && first.tokens.length <= 8, `tokens ${first.tokens}`);
  assert.ok(first.tokens.every((id) => id >= 0 && id < 512));
  const ids = await promptTokens('qwen3-tiny', [{role: 'user', content: 'Hi'}]);
  assert.ok(ids.every((id) => id < 512), 'the cut tokenizer stays inside the program');
  assert.equal(first.stats.promptTokens, ids.length, `prompt ${ids}`);
  const shown = await page.textContent('#chat-log .chat-msg.assistant .chat-text');
  assert.equal(shown, first.text.trim() ? first.text : first.text.replace(/\n/g, '\u21b5').replace(/\t/g, '\u2192').replace(/ /g, '\u00b7'));
  assert.match(await page.textContent('#chat-stats'), /^\d+ token\(s\) · \d+\.\d tokens\/s · first token \d+ ms/);
  const second = await say('Ok');
  const s = await demoState(page, 'chat');
  assert.deepEqual(s.history.map((m) => m.role), ['user', 'assistant', 'user', 'assistant']);
  assert.equal(s.history[2].content, 'Ok');
  assert.equal(second.dropped, 0, 'both turns fit the 64-token context');
  assert.equal(s.position, second.stats.position);
  assert.ok(s.position > first.stats.position, `the conversation grew: ${first.stats.position} -> ${s.position}`);
  assert.equal(await page.locator('#chat-log .chat-msg').count(), 4);
  await screenshot(page, 'chat');
});

test('Stop ends an answer before its token limit; the page goes on', async () => {
  await page.click('#chat-new');
  await page.fill('#chat-max', '40');
  const runs = (await demoState(page, 'chat')).runs;
  await page.fill('#chat-input', 'Hi');
  await page.press('#chat-input', 'Enter');
  await page.waitForFunction(() => /Generating: \d+ token/.test(document.getElementById('status-text').textContent), null, {timeout: 120000});
  await page.click('#chat-stop');
  await page.waitForFunction((n) => window.playground.demos.chat.runs > n, runs, {timeout: 60000});
  await noErrors();
  const turn = (await demoState(page, 'chat')).turns.at(-1);
  assert.equal(turn.stopped, true);
  assert.ok(turn.text.length > 0 || turn.pieces > 0);
  assert.equal(await page.isHidden('#chat-stop'), true);
  assert.equal(await page.isVisible('#chat-send'), true);
});

test('a message too long for the context is a clear message; the text stays in the box', async () => {
  await page.click('#chat-new');
  const errors = await page.evaluate(() => window.playground.messages.length);
  const long = 'This message is far longer than the tiny model can hold in its context. '.repeat(2);
  await page.fill('#chat-input', long);
  await page.press('#chat-input', 'Enter');
  await page.waitForFunction((n) => window.playground.messages.length > n, errors, {timeout: 60000});
  const m = (await page.evaluate(() => window.playground.messages)).at(-1);
  assert.equal(m.kind, 'error');
  assert.match(m.text, /the message takes \d+ tokens with the chat template, and this model's context holds 64/);
  assert.equal(await page.inputValue('#chat-input'), long.trim());
  seen = await page.evaluate(() => window.playground.messages.length);
  await page.fill('#chat-input', '');
});

test('greedy after the fixture prefill gives the argmax of the PyTorch logits', async () => {
  await page.click('#chat-check');
  await page.waitForFunction((k) => window.playground.demos.chat.check || window.playground.messages.slice(k).some((m) => m.kind === 'error'),
                             seen, {timeout: 120000});
  await noErrors();
  const c = (await demoState(page, 'chat')).check;
  const logits = readReference('demos/qwen3_tiny_kv/case0_output0.bin');
  const argmax = logits.indexOf(Math.max(...logits));
  assert.deepEqual(c.prompt, [17, 301, 42, 5, 99]);
  assert.equal(c.token, argmax);
});

test('Llama 4-bit: the same seed and settings give the same sampled answer', async () => {
  await page.selectOption('#demo-chat .model-select', 'llama-q4-tiny');
  await page.fill('#chat-temperature', '1');
  await page.fill('#chat-seed', '7');
  const a = await say('Hi');
  await page.click('#chat-new');
  const b = await say('Hi');
  assert.deepEqual(b.options, a.options);
  assert.equal(a.options.seed, 7);
  assert.deepEqual(b.tokens, a.tokens, 'seeded sampling repeats');
  assert.ok(a.tokens.every((id) => id < 512));
  assert.equal(a.stats.promptTokens, (await promptTokens('llama-q4-tiny', [{role: 'user', content: 'Hi'}])).length);
  await screenshot(page, 'chat_llama');
});
