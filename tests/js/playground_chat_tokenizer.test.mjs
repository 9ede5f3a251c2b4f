// The chat demo's cut tokenizers (web/playground/demos/chat/fit_tokenizer.mjs): the real
// Qwen3 and Llama 3 tokenizer.json files cut to the tiny programs' 512 ids. The cut file is
// checked with Hugging Face `tokenizers` (npm, the Rust core transformers uses) against
// Wick's tokenizer on the shared corpus and on chat-template text: the same ids, all below
// 512, decoding back to the text, and the full tokenizer's ids wherever those were below
// the cut already.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import {createRequire} from 'node:module';
import os from 'node:os';
import path from 'node:path';
import {test} from 'node:test';
import {createExecuTorch} from '../../package/index.mjs';
import {fitTokenizer} from '../../web/playground/demos/chat/fit_tokenizer.mjs';
import {findDemo} from '../../web/playground/registry.mjs';
import {repoRoot} from './node_runtime.mjs';
import {CORPUS} from './tokenizer_corpus.mjs';

const {Tokenizer: HfTokenizer} = createRequire(import.meta.url)('tokenizers');
const et = await createExecuTorch({gpu: null});
const read = (u) => JSON.parse(fs.readFileSync(path.join(repoRoot, u)));

for (const option of findDemo('chat').options) {
  test(`${option.id}: the cut tokenizer agrees with HF tokenizers and stays below ${option.llm.fit.vocabSize}`, async () => {
    const {tokenizer: tj, tokenizerConfig: cj, fit} = option.llm;
    const full = read(tj.url), config = read(cj.url);
    const cut = fitTokenizer(full, config, fit.vocabSize, fit.specials);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wick-cut-')), 'tokenizer.json');
    fs.writeFileSync(file, JSON.stringify(cut.tokenizer));
    const hf = HfTokenizer.fromFile(file);
    const wick = et.Tokenizer.fromJSON(JSON.stringify(cut.tokenizer), JSON.stringify(cut.config));
    const wickFull = et.Tokenizer.fromJSON(JSON.stringify(full), JSON.stringify(config));
    assert.deepEqual(Object.values(cut.ids), fit.specials.map((_, i) => fit.vocabSize - fit.specials.length + i));
    const chat = wick.applyChatTemplate([{role: 'user', content: 'Hi there, ça va? 😀'}, {role: 'assistant', content: 'Fine.'},
                                         {role: 'user', content: 'And you?'}], {addGenerationPrompt: true});
    const texts = [...CORPUS.slice(0, 80), chat];
    let sameAsFull = 0;
    for (const text of texts) {
      const ids = wick.encode(text, {addSpecialTokens: false});
      const want = (await hf.encode(text, null, {addSpecialTokens: false})).getIds();
      assert.deepEqual(ids, want, `text ${JSON.stringify(text)}`);
      assert.ok(ids.every((id) => id >= 0 && id < fit.vocabSize), `ids ${ids}`);
      // Qwen3 normalises to NFC before encoding: the text comes back when it was NFC already.
      if (!full.normalizer || text.normalize('NFC') === text) assert.equal(wick.decode(ids), text);
      const fullIds = wickFull.encode(text, {addSpecialTokens: false});
      if (fullIds.every((id) => id < fit.vocabSize - fit.specials.length)) {
        assert.deepEqual(ids, fullIds, `the full tokenizer's ids for ${JSON.stringify(text)}`);
        sameAsFull++;
      }
    }
    assert.ok(sameAsFull >= 3, `${sameAsFull} texts within the cut`);
    // The template's special tokens are single ids at the top; EOS is among them.
    for (const s of fit.specials) assert.equal(wick.tokenToId(s), cut.ids[s]);
    assert.ok(wick.eosIds.every((id) => id >= fit.vocabSize - fit.specials.length && id < fit.vocabSize), `eos ${wick.eosIds}`);
  });
}
