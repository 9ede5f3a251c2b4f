// Greedy decoding for a Whisper text decoder that has no KV cache and a fixed number of
// positions (the fixture's decoder takes decoder_input_ids [1, 8]): it is causal, so the
// tokens so far go first, the rest is padding, and the next token is the argmax of the
// logits at the last real position. Pure: the caller runs the program.

export function argmax(row) {
  let best = 0;
  for (let i = 1; i < row.length; i++) if (row[i] > row[best]) best = i;
  return best;
}

// runDecoder(ids: BigInt64Array [positions]) -> Float32Array logits [positions * vocab].
// prompt: the start tokens (e.g. [decoder_start]). Stops at eos, when the positions are
// full, after maxTokens, or when signal is aborted. onToken(id, step) after each token.
// Returns {tokens (without the prompt), stopped: 'eos' | 'length' | 'max-tokens'}.
export async function greedyDecode({runDecoder, prompt, eos, positions, vocab, pad = 0, maxTokens = Infinity,
                                    signal = null, onToken = () => {}}) {
  if (!prompt.length) throw new Error('greedyDecode: the prompt needs at least the start token');
  if (prompt.length >= positions) throw new Error(`greedyDecode: a prompt of ${prompt.length} fills all ${positions} positions`);
  const ids = prompt.slice(), tokens = [];
  for (;;) {
    if (tokens.length >= maxTokens) return {tokens, stopped: 'max-tokens'};
    if (ids.length >= positions) return {tokens, stopped: 'length'};
    signal?.throwIfAborted();
    const input = new BigInt64Array(positions).fill(BigInt(pad));
    ids.forEach((id, i) => { input[i] = BigInt(id); });
    const logits = await runDecoder(input);
    if (logits.length !== positions * vocab) {
      throw new Error(`decoder: ${logits.length} logits, expected ${positions} positions x ${vocab}`);
    }
    const last = ids.length - 1;
    const next = argmax(logits.subarray(last * vocab, (last + 1) * vocab));
    ids.push(next);
    tokens.push(next);
    onToken(next, tokens.length);
    if (next === eos) return {tokens, stopped: 'eos'};
  }
}
