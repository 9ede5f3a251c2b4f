// --extern-post-js of the -pthread bundle (wick-threads.js): publishes its factory as
// the global createExecuTorchThreads, so that package/index.mjs can `import()` this
// classic script and find it (CommonJS takes it from module.exports). Unlike wick.js it
// makes no global `Module`: the pool's workers import this file into a scope whose
// `Module` is theirs (Emscripten's worker.js), and a page's classic <script> gets the
// single-threaded wick.js.
if (typeof globalThis !== 'undefined' && typeof createExecuTorchThreads === 'function') {
  globalThis.createExecuTorchThreads = globalThis.createExecuTorchThreads || createExecuTorchThreads;
}
