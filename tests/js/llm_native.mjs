// The native side of the JS LLM tests: `wick generate --greedy --json` and `wick
// tokenize` of the native build (build/wick, or $WICK_CLI), on the same files as the JS.
//
// A native generate on SwiftShader takes seconds, and both the Node and the browser test
// need the same runs: results are kept in the system's temp folder under a key made of
// the arguments and the size and time of the binary, the model and the tokenizer, so a
// rebuilt binary or a changed fixture runs again.
import {execFile} from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {promisify} from 'node:util';
import {LLM_FIXTURES, TOKENIZER_DIRS} from './llm_cases.mjs';
import {fixturesDir, repoRoot} from './node_runtime.mjs';

const execFileP = promisify(execFile);
// One native process at a time: several at once on a 2-core box only make each slower.
let line = Promise.resolve();
function run(...args) {
  const p = line.then(() => execFileP(...args)).catch((e) => {
    throw new Error(`${args[0]} ${args[1].join(' ')}: ${e.killed ? `killed (${e.signal}) after the timeout` : `exit ${e.code}`}\n${e.stderr || ''}`);
  });
  line = p.catch(() => {});
  return p;
}
export const wickCli = process.env.WICK_CLI || path.join(repoRoot, 'build/wick');

function requireCli() {
  if (!fs.existsSync(wickCli)) throw new Error(`no native CLI at ${wickCli} (build the 'wick' target, or set WICK_CLI)`);
}

export function tokenizerDir(name) { return path.join(repoRoot, TOKENIZER_DIRS[name]); }
export function fixturePte(rel) { return path.join(fixturesDir, rel, 'model.pte'); }

function stamp(file) {
  const s = fs.statSync(file);
  return `${file}:${s.size}:${s.mtimeMs}`;
}

async function cached(args, files, produce) {
  const key = crypto.createHash('sha256').update(JSON.stringify([args, files.map(stamp)])).digest('hex').slice(0, 24);
  const file = path.join(os.tmpdir(), `wick-llm-native-${key}.json`);
  if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8'));
  const value = await produce();
  // Written aside, then renamed: test files run side by side (node --test concurrency), and
  // one must never read another's half-written answer.
  const part = `${file}.${process.pid}.part`;
  fs.writeFileSync(part, JSON.stringify(value));
  fs.renameSync(part, file);
  return value;
}

// `wick generate` for a case of llm_cases.mjs (or one built the same way): its JSON.
export async function nativeGenerate(c) {
  requireCli();
  const f = LLM_FIXTURES[c.fixture];
  const tok = path.join(tokenizerDir(f.tokenizer), 'tokenizer.json');
  const args = ['generate', fixturePte(f.rel), '--tokenizer', tok, '--greedy', '--json',
                '--max-new-tokens', String(c.maxNewTokens), '--max-context-len', String(f.context)];
  if (typeof c.prompt === 'string') args.push('--prompt', c.prompt);
  else args.push('--prompt-tokens', c.prompt.join(','));
  if (c.repetitionPenalty) args.push('--repetition-penalty', String(c.repetitionPenalty));
  return cached(args, [wickCli, fixturePte(f.rel), tok], async () => {
    const {stdout} = await run(wickCli, args, {maxBuffer: 1 << 24, timeout: 300000});
    return JSON.parse(stdout);
  });
}

// `wick tokenize` of one text (from a file: any bytes), with or without special tokens.
export async function nativeTokenize(tokenizer, text, special = true) {
  requireCli();
  const tok = path.join(tokenizerDir(tokenizer), 'tokenizer.json');
  const args = ['tokenize', '--tokenizer', tok];
  if (!special) args.push('--no-special');
  const key = [...args, crypto.createHash('sha256').update(text).digest('hex')];
  return cached(key, [wickCli, tok], async () => {
    // A name of its own per call: two calls in the same millisecond (Promise.all of the
    // with- and without-special runs) once shared one, and the first deleted the second's.
    const file = path.join(os.tmpdir(), `wick-llm-text-${process.pid}-${crypto.randomUUID()}.txt`);
    fs.writeFileSync(file, text);
    try {
      const {stdout} = await run(wickCli, [...args, '--text-file', file], {maxBuffer: 1 << 24, timeout: 300000});
      return JSON.parse(stdout);
    } finally {
      fs.rmSync(file, {force: true});
    }
  });
}
