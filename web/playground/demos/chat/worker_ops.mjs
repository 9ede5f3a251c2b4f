// The chat demo's requests inside the playground worker (worker.mjs runs 'chat/<name>'
// as ops[name](args, progress, signal, env), env = {et, checkLimits, PlaygroundError}):
// an et.LLM per program, kept until the runtime restarts, and generation streamed to the
// page as progress messages, one per piece of text.
import {fetchVerifiedCached, formatBytes} from '../../lib/cache.mjs';
import {fitTokenizer} from './fit_tokenizer.mjs';

const llms = new Map();  // key -> et.LLM
const decoder = new TextDecoder();

async function fetchJson(spec, what, progress, signal) {
  const got = await fetchVerifiedCached(spec.url, {
    sha256: spec.sha256, signal, expectedSize: spec.size,
    onProgress: ({loaded, total, cached}) => progress(
        `${cached ? 'Reading' : 'Downloading'} ${what}: ${formatBytes(loaded)}${total ? ` of ${formatBytes(total)}` : ''}`,
        total ? loaded / total : undefined)});
  return JSON.parse(decoder.decode(got.bytes));
}

// The conversation with its oldest turns left out until it fits the context with room
// for the answer (a chat of a 64-token model holds a turn or two). {messages, dropped}.
function fitContext(llm, messages, options, env) {
  const tok = llm.tokenizer;
  if (!tok || !Array.isArray(messages) || typeof messages[0] !== 'object') return {messages, dropped: 0};
  const max = llm.info.maxContextLen, room = Math.max(1, options.maxNewTokens || 1);
  const count = (m) => tok.encode(tok.applyChatTemplate(m, {addGenerationPrompt: true, enableThinking: options.enableThinking}),
                                  {addSpecialTokens: false}).length + 1;  // + 1: a BOS the post-processor may add
  let kept = messages, dropped = 0, n;
  while ((n = count(kept)) + room > max) {
    const first = kept.findIndex((m) => m.role === 'user');
    const last = kept.map((m) => m.role).lastIndexOf('user');
    if (first === last) {
      throw new env.PlaygroundError('run', `the message takes ${n} tokens with the chat template, and this model's context ` +
                                    `holds ${max}, ${room} of them kept for the answer: shorten it or lower "Max new tokens"`);
    }
    let end = first + 1;
    while (end < kept.length && kept[end].role !== 'user') end++;
    kept = [...kept.slice(0, first), ...kept.slice(end)];
    dropped++;
  }
  return {messages: kept, dropped};
}

export const ops = {
  // {key, label, program: {url, sha256, size, requires}, tokenizer: {url, sha256, size},
  //  tokenizerConfig: {...}, fit: {vocabSize, specials} | null, maxContextLen} -> llm.info
  async load(args, progress, signal, env) {
    if (llms.has(args.key)) return {info: llms.get(args.key).info, cached: true};
    env.checkLimits(args.program);
    const what = args.label;
    const pte = await fetchVerifiedCached(args.program.url, {
      sha256: args.program.sha256, signal, expectedSize: args.program.size,
      onProgress: ({loaded, total, cached}) => progress(
          `${cached ? 'Reading' : 'Downloading'} ${what}: ${formatBytes(loaded)}${total ? ` of ${formatBytes(total)}` : ''}`,
          total ? loaded / total : undefined)});
    let tokenizer = await fetchJson(args.tokenizer, 'the tokenizer', progress, signal);
    let config = args.tokenizerConfig ? await fetchJson(args.tokenizerConfig, 'the tokenizer config', progress, signal) : null;
    let fitted = null;
    if (args.fit) {
      progress(`Cutting the tokenizer to the program's ${args.fit.vocabSize} ids`, undefined);
      const f = fitTokenizer(tokenizer, config, args.fit.vocabSize, args.fit.specials);
      tokenizer = f.tokenizer;
      config = f.config;
      fitted = f.ids;
    }
    if (signal.aborted) throw signal.reason;
    progress(`Uploading the weights of ${what} and compiling its shaders`, undefined);
    let llm;
    try {
      llm = await env.et.LLM.load(pte.bytes, {tokenizer, tokenizerConfig: config || undefined,
                                              maxContextLen: args.maxContextLen, name: what});
    } catch (e) {
      throw new env.PlaygroundError('program', `${what} did not load as a chat model: ${e.message}`);
    }
    llms.set(args.key, llm);
    return {info: llm.info, fitted, tokenizerVocab: llm.tokenizer ? llm.tokenizer.vocabSize : null};
  },

  // {key, messages, options} -> {text, tokens, stats, info}; each piece goes out as
  // progress({text, tokens, n, ms}). A cancel (the request's signal) stops before the
  // next token and ends normally, stats.stopReason 'cancelled'.
  async generate({key, messages, options}, progress, signal, env) {
    const llm = llms.get(key);
    if (!llm) throw new env.PlaygroundError('program', 'the chat model is not loaded (the runtime restarted): send again');
    const {messages: fitted, dropped} = fitContext(llm, messages, options, env);
    const t0 = performance.now();
    const gen = llm.generate(fitted, {...options, signal});
    let n = 0;
    try {
      for await (const piece of gen) {
        n += piece.tokens.length;
        progress({text: piece.text, tokens: piece.tokens, n, ms: performance.now() - t0});
      }
    } catch (e) {
      throw new env.PlaygroundError('run', `${llm.info.name}: ${e.message}`);
    }
    return {text: gen.text, tokens: gen.tokens, stats: gen.stats, info: llm.info, dropped};
  },

  async reset({key}) {
    const llm = llms.get(key);
    if (llm) llm.reset();
    return llm ? llm.info : null;
  },
};
