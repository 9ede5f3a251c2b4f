// --post-js of the -pthread bundle (wick-threads.js) only: once the runtime is up (on
// the page's thread, not in the pool's workers), the CPU kernels get Module.wickThreads
// threads, and in Node the workers stop holding the process open (worker_threads keep
// Node running until they end, and the pool's never end).
Module.wickVariant = 'threads';
if (!ENVIRONMENT_IS_PTHREAD) {
  addOnInit(function() {
    Module._wick_cpu_threads(Math.min(Module.wickThreads, Module.wickPoolSize + 1));
    if (ENVIRONMENT_IS_NODE) {
      PThread.unusedWorkers.concat(PThread.runningWorkers).forEach(function(w) {
        if (w && typeof w.unref === 'function') w.unref();
      });
    }
  });
}
