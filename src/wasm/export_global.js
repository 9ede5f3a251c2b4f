// Linked with --extern-post-js: also publishes the factory as a global, so that an ES
// module (package/index.mjs) can `import()` this classic script and find it. CommonJS
// (Node's require) takes it from module.exports as Emscripten sets it.
if (typeof globalThis !== 'undefined' && typeof createExecuTorch === 'function') {
  globalThis.createExecuTorch = globalThis.createExecuTorch || createExecuTorch;
}
