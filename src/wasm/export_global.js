// Linked with --extern-post-js: also publishes the factory as a global, so that an ES
// module (package/index.mjs) can `import()` this classic script and find it. CommonJS
// (Node's require) takes it from module.exports as Emscripten sets it.
if (typeof globalThis !== 'undefined' && typeof createExecuTorch === 'function') {
  globalThis.createExecuTorch = globalThis.createExecuTorch || createExecuTorch;
}

// Loaded by a classic <script> (or importScripts), as ExecuTorch's executorch_wasm_lib.js
// is, the bundle also gives the global `Module` those pages use:
//   <script>var Module = {onRuntimeInitialized() { ... }};</script>   (optional)
//   <script src="wick.js"></script>
//   const et = Module; et.onRuntimeInitialized = () => { et.Module.load(...) ... };
// A `Module` object defined before the script is started at once; otherwise `Module` is
// made, and the runtime started, when a page first reads it, so a page that uses
// createExecuTorch() instead pays nothing. Either way the runtime calls
// Module.onRuntimeInitialized when it is ready, and et.Module, et.Tensor, ... are on it.
// An ES module import (top-level `this` undefined) and Node's require (`this` is
// module.exports) leave the global alone.
(function(scope) {
  if (typeof globalThis === 'undefined' || scope !== globalThis || typeof createExecuTorch !== 'function') return;
  var factory = createExecuTorch;
  var started = null;
  function start(object) {
    if (!started) {
      started = object;
      factory(object).catch(function(e) {
        if (typeof console !== 'undefined') console.error('Wick: the runtime did not start: ' + (e && e.message || e));
      });
    }
    return started;
  }
  var existing = Object.getOwnPropertyDescriptor(globalThis, 'Module');
  if (existing) {
    if (existing.value && typeof existing.value === 'object') start(existing.value);
    return;
  }
  Object.defineProperty(globalThis, 'Module', {
    configurable: true,
    enumerable: true,
    get: function() { return start({}); },
    // A `Module = {...}` after the script, before any read: that object is the runtime.
    set: function(value) {
      Object.defineProperty(globalThis, 'Module', {value: value, writable: true, configurable: true, enumerable: true});
      if (value && typeof value === 'object') start(value);
    },
  });
})(this);
