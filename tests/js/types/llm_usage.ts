// Compiled by tests/js/node_llm_types.test.mjs with `tsc --noEmit --strict`: the LLM calls
// a program makes (docs/web.md, package/README.md), against package/index.d.ts.
import createExecuTorch, {type ChatMessage, type GenerationPiece, type GenerationStats, type LLM} from 'wick-webgpu';

export async function chat(bytes: Uint8Array, tokenizerJson: object): Promise<string> {
  const et = await createExecuTorch();
  const llm: LLM = await et.LLM.load(bytes, {tokenizer: tokenizerJson, tokenizerConfig: 'tokenizer_config.json', maxContextLen: 64});
  const stop = new AbortController();
  const messages: ChatMessage[] = [{role: 'user', content: 'hi'}];
  const gen = llm.generate(messages, {maxNewTokens: 8, temperature: 0.7, topP: 0.9, seed: 1n, signal: stop.signal, system: 'Be brief.'});
  let text = '';
  for await (const piece of gen) {
    const p: GenerationPiece = piece;
    text += p.text + p.tokens.length;
  }
  const stats: GenerationStats | null = gen.stats;
  const ids: number[] = llm.tokenizer ? llm.tokenizer.encode('x', {addSpecialTokens: false}) : [];
  const tok = await et.Tokenizer.load(new Uint8Array(4));
  const stream = tok.streamDecoder();
  text += stream.push(3) + stream.flush() + tok.decode(ids, {skipSpecialTokens: true});
  text += tok.applyChatTemplate(messages, {enableThinking: false, addGenerationPrompt: true});
  const r = await llm.generate(Int32Array.from([1, 2, 3]), {greedy: true, repetitionPenalty: 1.1}).result();
  await llm.generate('more').cancel();
  llm.reset();
  const info = llm.info;
  llm.delete();
  return text + (stats ? stats.decodeTokensPerS : 0) + r.stats.stopReason + info.position + info.maxContextLen + tok.vocabSize;
}
