// A real tokenizer cut to a smaller program vocabulary. The tiny test programs of the chat
// demo take ids 0..511, while Qwen3's and Llama 3's tokenizers have 151k and 128k tokens
// (their chat templates' special tokens are above 128000). Both are byte-level BPEs whose
// first 256 ids are the byte alphabet and whose next ids are their first merges, so the
// same tokenizer restricted to ids < N - k (with only the merges that stay inside) still
// encodes any text, exactly as the full one would have with fewer merges; the k special
// tokens the chat template needs are moved to the top ids N - k .. N - 1. Used by the chat
// demo's worker for a program whose vocabulary is smaller than its tokenizer's.

// tokenizer: parsed tokenizer.json; config: parsed tokenizer_config.json (or null);
// vocabSize: the program's; specials: the added tokens to keep, e.g. ['<|im_start|>', ...].
// Returns {tokenizer, config, ids: {special: newId}}; the inputs are not changed.
export function fitTokenizer(tokenizer, config, vocabSize, specials) {
  const model = tokenizer.model;
  if (!model || model.type !== 'BPE') throw new Error('fitTokenizer: only BPE tokenizers can be cut');
  const limit = vocabSize - specials.length;
  if (limit < 256) throw new Error(`fitTokenizer: a vocabulary of ${vocabSize} leaves no room for the byte alphabet`);
  const added = new Map((tokenizer.added_tokens || []).map((t) => [t.content, t]));
  const remap = new Map(), ids = {};
  specials.forEach((content, i) => {
    const t = added.get(content);
    if (!t) throw new Error(`fitTokenizer: the tokenizer has no added token ${content}`);
    remap.set(t.id, limit + i);
    ids[content] = limit + i;
  });
  const vocab = {};
  for (const [token, id] of Object.entries(model.vocab)) if (id < limit) vocab[token] = id;
  if (Object.keys(vocab).length !== limit) throw new Error(`fitTokenizer: ids 0..${limit - 1} are not all regular tokens`);
  const merges = model.merges.filter((m) => {
    const [a, b] = Array.isArray(m) ? m : m.split(' ');
    return a in vocab && b in vocab && (a + b) in vocab;
  });
  const addedTokens = specials.map((content) => ({...added.get(content), id: ids[content]}));
  // The post-processor (Llama 3's TemplateProcessing adds <|begin_of_text|>) names ids too.
  const postProcessor = tokenizer.post_processor ? remapIds(tokenizer.post_processor, remap, specials) : null;
  const fitted = {...tokenizer, model: {...model, vocab, merges}, added_tokens: addedTokens, post_processor: postProcessor};
  let fittedConfig = null;
  if (config) {
    fittedConfig = {...config};
    // Its ids are the full tokenizer's: keep only the kept specials, at their new ids.
    if (config.added_tokens_decoder) {
      fittedConfig.added_tokens_decoder = {};
      for (const [old, t] of Object.entries(config.added_tokens_decoder)) {
        if (remap.has(Number(old))) fittedConfig.added_tokens_decoder[remap.get(Number(old))] = t;
      }
    }
    if (config.additional_special_tokens) {
      fittedConfig.additional_special_tokens = config.additional_special_tokens.filter((t) => specials.includes(t));
    }
  }
  return {tokenizer: fitted, config: fittedConfig, ids};
}

// A copy of a post-processor with its special tokens' ids moved (TemplateProcessing keeps
// {special_tokens: {name: {id, ids: [...], tokens}}}); specials it names that are not kept
// are dropped from it.
function remapIds(node, remap, specials) {
  if (Array.isArray(node)) return node.map((n) => remapIds(n, remap, specials));
  if (!node || typeof node !== 'object') return node;
  const out = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'ids' && Array.isArray(v)) out[k] = v.map((id) => (remap.has(id) ? remap.get(id) : id));
    else out[k] = remapIds(v, remap, specials);
  }
  return out;
}
