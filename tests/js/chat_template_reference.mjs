// Writes reference renderings of the real chat templates by @huggingface/jinja (the Jinja
// of transformers.js, with transformers' trim_blocks + lstrip_blocks):
//   node tests/js/chat_template_reference.mjs OUT.json
// Output: {"<name>": {"dir", "cases": [{"messages", "add_generation_prompt",
//          "enable_thinking", "text"}]}}.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { Template } from '@huggingface/jinja';
import { TOKENIZERS } from './tokenizer_reference.mjs';

export const CONVERSATIONS = [
  [{ role: 'user', content: 'Hello!' }],
  [
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: 'What is 2+2?' },
    { role: 'assistant', content: '2+2 is 4.' },
    { role: 'user', content: '  And 3+3?  \n' },
  ],
  [
    { role: 'user', content: 'Think first.' },
    { role: 'assistant', content: '<think>\nLet me think.\n</think>\n\nThe answer.' },
    { role: 'user', content: 'Again, in 日本語 please 😀' },
    { role: 'assistant', content: 'はい。' },
  ],
  [
    { role: 'system', content: 'sys' },
    { role: 'user', content: 'u1' },
    { role: 'assistant', content: 'a1' },
    { role: 'system', content: 'second system' },
    { role: 'user', content: '<tool_response>\nresult\n</tool_response>' },
  ],
];

export function reference() {
  const out = {};
  for (const [name, dir] of Object.entries(TOKENIZERS)) {
    const config = JSON.parse(readFileSync(join(dir, 'tokenizer_config.json'), 'utf8'));
    const template = new Template(config.chat_template);
    const name_of = (t) => (typeof t === 'string' ? t : t?.content ?? '');
    const cases = [];
    for (const messages of CONVERSATIONS) {
      for (const add_generation_prompt of [true, false]) {
        for (const enable_thinking of [true, false]) {
          const text = template.render({
            messages, add_generation_prompt, enable_thinking,
            bos_token: name_of(config.bos_token), eos_token: name_of(config.eos_token),
          });
          cases.push({ messages, add_generation_prompt, enable_thinking, text });
        }
      }
    }
    out[name] = { dir, cases };
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.length < 3) {
    console.error('usage: node tests/js/chat_template_reference.mjs OUT.json');
    process.exit(2);
  }
  writeFileSync(process.argv[2], JSON.stringify(reference()));
}
