// A module worker streaming LLM cases (tests/js/llm_cases.mjs) on the worker's own
// WebGPU; posts back {adapter, results} (tests/js/browser_llm.test.mjs).
import {createExecuTorch} from '/package/index.mjs';
import {TOKENIZER_DIRS, runLlmCases} from '/tests/js/llm_cases.mjs';

self.onmessage = async ({data: names}) => {
  try {
    const et = await createExecuTorch();
    const gpu = await et.initWebGPU();
    const where = (f) => ({pte: `/fixtures/${f.rel}/model.pte`, tokenizer: `/${TOKENIZER_DIRS[f.tokenizer]}/tokenizer.json`,
                           tokenizerConfig: `/${TOKENIZER_DIRS[f.tokenizer]}/tokenizer_config.json`});
    self.postMessage({adapter: gpu.adapter.summary, results: (await runLlmCases(et, where, names)).results});
  } catch (e) {
    self.postMessage({error: `worker: ${String(e && e.stack || e)}`});
  }
};
