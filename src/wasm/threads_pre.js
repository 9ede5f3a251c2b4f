// --pre-js of the -pthread bundle (wick-threads.js) only. PTHREAD_POOL_SIZE is
// `Module.wickPoolSize`: the Web Workers (worker_threads in Node) started with the
// runtime, one per CPU thread besides the caller's. Module.wickThreads is set by
// package/index.mjs (createExecuTorch({threads})); a page that loads this file itself
// gets the cores, at most 8. At least one worker: Emscripten 3.1.6 waits for the pool to
// load before it starts the runtime, and with an empty pool that wait never ends.
if (!Module.wickThreads) {
  var wickCores = typeof navigator !== 'undefined' && navigator.hardwareConcurrency;
  if (!wickCores && typeof process === 'object' && typeof require === 'function') {
    try {
      var wickOs = require('os');
      wickCores = wickOs.availableParallelism ? wickOs.availableParallelism() : wickOs.cpus().length;
    } catch (e) {
      wickCores = 1;
    }
  }
  Module.wickThreads = Math.max(1, Math.min(wickCores || 1, 8));
}
Module.wickPoolSize = Math.max(1, Module.wickThreads - 1);

// Built without Asyncify (cmake/wasm.cmake): the delegates run on the CPU only, and
// nothing ever suspends. runtime_calls.js asks Asyncify whether a call is suspended.
Module.wickCpuOnly = true;
var Asyncify = {currData: null};
