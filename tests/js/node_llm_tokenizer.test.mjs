// et.Tokenizer (the C++ tokenizer of src/llm compiled to Wasm) against the maintained
// reference, Hugging Face `tokenizers` 0.23.2, on the whole corpus of
// tokenizer_corpus.mjs, and against the native build's `wick tokenize` on the same
// corpus; chat templates against @huggingface/jinja; streaming decode; bad files.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {createRequire} from 'node:module';
import {test} from 'node:test';
import {CONVERSATIONS, reference as templateReference} from './chat_template_reference.mjs';
import {TOKENIZER_DIRS} from './llm_cases.mjs';
import {nativeTokenize, tokenizerDir} from './llm_native.mjs';
import {CORPUS} from './tokenizer_corpus.mjs';
import {createExecuTorch} from '../../package/index.mjs';

const require = createRequire(import.meta.url);
const {Tokenizer: HfTokenizer} = require('tokenizers');

// No GPU needed: tokenizers are plain Wasm.
const et = await createExecuTorch({gpu: null});
const tokenizers = {};
for (const name of Object.keys(TOKENIZER_DIRS)) {
  // A folder path in Node: its tokenizer.json and tokenizer_config.json.
  tokenizers[name] = await et.Tokenizer.load(tokenizerDir(name));
}
// The native run covers the whole corpus in one process per tokenizer and mode: the
// texts joined (a different input from any one line, tokenized the same way by both).
const JOINED = CORPUS.join('\n\u2028|');

for (const name of Object.keys(TOKENIZER_DIRS)) {
  test(`${name}: encode equals tokenizers@0.23.2 on every corpus line, with and without special tokens`, async () => {
    const ref = HfTokenizer.fromFile(path.join(tokenizerDir(name), 'tokenizer.json'));
    const tok = tokenizers[name];
    let checked = 0;
    for (const text of CORPUS) {
      for (const addSpecialTokens of [true, false]) {
        const want = (await ref.encode(text, null, {addSpecialTokens})).getIds();
        assert.deepEqual(tok.encode(text, {addSpecialTokens}), want, `${name} ${JSON.stringify(text)} special=${addSpecialTokens}`);
        checked++;
      }
    }
    assert.equal(checked, CORPUS.length * 2);
  });

  test(`${name}: encode equals the native wick tokenize on the corpus`, async () => {
    const tok = tokenizers[name];
    const [withSpecial, without] = await Promise.all([nativeTokenize(name, JOINED, true), nativeTokenize(name, JOINED, false)]);
    assert.ok(without.length > 2000, `only ${without.length} ids`);
    assert.deepEqual(tok.encode(JOINED), withSpecial);
    assert.deepEqual(tok.encode(JOINED, {addSpecialTokens: false}), without);
  });

  test(`${name}: decode and the stream decoder give back the text`, async () => {
    const ref = HfTokenizer.fromFile(path.join(tokenizerDir(name), 'tokenizer.json'));
    const tok = tokenizers[name];
    for (const text of CORPUS.slice(0, 40)) {
      const ids = tok.encode(text, {addSpecialTokens: false});
      assert.equal(tok.decode(ids), await ref.decode(ids, false), JSON.stringify(text));
      // One id at a time: never half a character, and the same text in the end.
      const stream = tok.streamDecoder();
      let out = '';
      for (const id of ids) {
        const piece = stream.push(id);
        assert.ok(!/\uFFFD/.test(piece) || /\uFFFD/.test(text), `${JSON.stringify(text)}: a broken character streamed`);
        out += piece;
      }
      out += stream.flush();
      stream.delete();
      assert.equal(out, tok.decode(ids), JSON.stringify(text));
    }
  });
}

test('special tokens: tokenToId, eosIds, bosId, skipSpecialTokens', () => {
  const q = tokenizers.qwen3;
  const l = tokenizers.llama3;
  assert.equal(q.tokenToId('<|im_end|>'), 151645);
  assert.equal(q.tokenToId('no such token here'), undefined);
  assert.ok(q.eosIds.includes(151645), `qwen3 eos ${q.eosIds}`);
  assert.equal(l.bosId, 128000);
  const ids = l.encode('hi');
  assert.equal(ids[0], 128000);
  assert.equal(l.decode(ids), '<|begin_of_text|>hi');
  assert.equal(l.decode(ids, {skipSpecialTokens: true}), 'hi');
  assert.throws(() => l.decode([1 << 30]), /Tokenizer.decode: .*1073741824/);
  assert.throws(() => l.decode(['a']), /Tokenizer.decode: ids\[0\] = "a" is not a token id/);
  assert.throws(() => l.encode(42), /Tokenizer.encode: text must be a string/);
});

test('chat templates render as @huggingface/jinja renders them', () => {
  const ref = templateReference();
  let n = 0;
  for (const name of Object.keys(TOKENIZER_DIRS)) {
    for (const c of ref[name].cases) {
      const got = tokenizers[name].applyChatTemplate(c.messages, {addGenerationPrompt: c.add_generation_prompt,
                                                                  enableThinking: c.enable_thinking});
      assert.equal(got, c.text, `${name} ${JSON.stringify(c.messages).slice(0, 60)} gen=${c.add_generation_prompt} think=${c.enable_thinking}`);
      n++;
    }
  }
  assert.equal(n, CONVERSATIONS.length * 4 * 2);
  assert.throws(() => tokenizers.qwen3.applyChatTemplate([{role: 'user'}]), /messages\[0\] must be \{role: string, content: string\}/);
});

test('a bad tokenizer file is a clear error', async () => {
  await assert.rejects(et.Tokenizer.load('{"model": '), /Tokenizer.load: .*(JSON|json)/);
  await assert.rejects(et.Tokenizer.load({model: {type: 'Unigram', vocab: []}}), /Tokenizer.load: .*/);
  await assert.rejects(et.Tokenizer.load('/nonexistent/tokenizer.json'), /cannot read the tokenizer '\/nonexistent\/tokenizer.json': no such file/);
  await assert.rejects(et.Tokenizer.load(42), /Tokenizer.load: the tokenizer must be a URL, a path, bytes or a Blob/);
  // The same file as bytes, a string and an object gives the same tokenizer.
  const text = fs.readFileSync(path.join(tokenizerDir('qwen3'), 'tokenizer.json'), 'utf8');
  const fromBytes = await et.Tokenizer.load(new TextEncoder().encode(text));
  assert.deepEqual(fromBytes.encode('Hello world'), [9707, 1879]);
  assert.equal(fromBytes.hasChatTemplate, false);  // no tokenizer_config given
  fromBytes.delete();
  assert.throws(() => fromBytes.encode('x'), /the tokenizer was deleted/);
});
