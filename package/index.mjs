// Wick's ES module entry: createExecuTorch() for pages, workers and Node, and
// fetchVerified() for downloading a model (or the .wasm) with progress, a pinned sha256
// and the Cache API.
//
//   import {createExecuTorch} from 'wick-webgpu';
//   const et = await createExecuTorch();
//   const model = et.Module.load(await fetchVerified(url, {sha256}));
//   const [y] = await model.forward([et.Tensor.fromArray([1, 3, 64, 64], pixels)]);
// (WebGPU starts on the first method that needs it; await et.initWebGPU() to start it
// sooner or to pass a GPU object.)

const isNode = typeof process !== 'undefined' && !!(process.versions && process.versions.node) &&
               typeof window === 'undefined' && typeof importScripts === 'undefined';

// Two builds of the runtime: wick.js (one thread, any page) and wick-threads.js (-pthread:
// the CPU kernels split over Web Workers / worker_threads). See chooseBundle().
const BUNDLES = {
  single: {js: 'wick.js', wasm: 'wick.wasm', global: 'createExecuTorch'},
  threads: {js: 'wick-threads.js', wasm: 'wick-threads.wasm', global: 'createExecuTorchThreads'},
};
const distUrl = (file) => new URL(`./dist/${file}`, import.meta.url);

function hex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, '0')).join('');
}

async function sha256Hex(bytes) {
  const subtle = globalThis.crypto && globalThis.crypto.subtle;
  if (!subtle) throw new Error('fetchVerified: no crypto.subtle here (a page must be served over https or localhost)');
  return hex(await subtle.digest('SHA-256', bytes));
}

async function readWithProgress(response, url, onProgress) {
  const total = Number(response.headers.get('content-length')) || 0;
  if (!response.body || !onProgress) {
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (onProgress) onProgress({url, loaded: bytes.length, total: total || bytes.length});
    return bytes;
  }
  const reader = response.body.getReader();
  const chunks = [];
  let loaded = 0;
  onProgress({url, loaded, total});
  for (;;) {
    const {done, value} = await reader.read();
    if (done) break;
    chunks.push(value);
    loaded += value.length;
    onProgress({url, loaded, total});
  }
  const bytes = new Uint8Array(loaded);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  return bytes;
}

// Fetches `url` and returns its bytes once their sha256 equals options.sha256 (hex). A
// mismatch rejects, and nothing is cached. With the Cache API (browsers), a verified
// response is kept in the cache named options.cache ('wick' by default; false: none) and
// later calls read it from there, checked again.
//   options: {sha256, onProgress({url, loaded, total}), cache, fetch}
// In Node, a URL without a scheme or with file: is a local file (relative to the
// working directory), read from disk and verified the same way.
export async function fetchVerified(url, options = {}) {
  const {sha256, onProgress, cache = 'wick'} = options;
  const doFetch = options.fetch || globalThis.fetch;
  const key = String(url);
  if (sha256 !== undefined && !/^[0-9a-f]{64}$/i.test(sha256)) {
    throw new Error(`fetchVerified(${key}): sha256 must be 64 hex digits, got '${sha256}'`);
  }
  if (isNode && !options.fetch && (key.startsWith('file:') || !/^[a-z][a-z0-9+.-]*:/i.test(key))) {
    return readLocalVerified(key, sha256, onProgress);
  }
  const store = cache && globalThis.caches ? await globalThis.caches.open(cache) : null;
  if (store && sha256) {
    const hit = await store.match(key);
    if (hit) {
      const bytes = await readWithProgress(hit, key, onProgress);
      if ((await sha256Hex(bytes)) === sha256.toLowerCase()) return bytes;
      await store.delete(key);  // stale or damaged: fetch it again
    }
  }
  const response = await doFetch(key);
  if (!response.ok) throw new Error(`fetchVerified(${key}): HTTP ${response.status} ${response.statusText}`);
  const bytes = await readWithProgress(response, key, onProgress);
  if (sha256) {
    const got = await sha256Hex(bytes);
    if (got !== sha256.toLowerCase()) {
      throw new Error(`fetchVerified(${key}): sha256 mismatch: expected ${sha256.toLowerCase()}, got ${got}`);
    }
    if (store) await store.put(key, new Response(bytes, {headers: {'content-type': 'application/octet-stream'}}));
  }
  return bytes;
}

async function readLocalVerified(key, sha256, onProgress) {
  const {readFile} = await import('node:fs/promises');
  const {fileURLToPath} = await import('node:url');
  const file = key.startsWith('file:') ? fileURLToPath(key) : key;
  let bytes;
  try {
    bytes = new Uint8Array(await readFile(file));
  } catch (e) {
    throw new Error(`fetchVerified(${key}): cannot read the file: ${e.code === 'ENOENT' ? 'no such file' : e.message}`);
  }
  if (onProgress) onProgress({url: key, loaded: bytes.length, total: bytes.length});
  if (sha256) {
    const got = await sha256Hex(bytes);
    if (got !== sha256.toLowerCase()) {
      throw new Error(`fetchVerified(${key}): sha256 mismatch: expected ${sha256.toLowerCase()}, got ${got}`);
    }
  }
  return bytes;
}

// In Node: Dawn's node binding (npm 'webgpu'), if the application has it, for WebGPU
// when no GPU object is given. Kept for the process's life: dawn.node crashes if its
// GPU object is collected. vulkan_enable_f16_on_nvidia: Dawn's adapter toggle that offers
// shader-f16 on NVIDIA's Vulkan driver (Dawn turns it off there otherwise); harmless
// elsewhere. Where the adapter is a CPU one (SwiftShader, lavapipe), a second GPU object
// also has workgroup memory zeroed by the shader (Tint's loop) rather than through Vulkan's
// zero-initialization extension, which SwiftShader compiles as one store per element:
// seconds of JIT per pipeline (the native runtime does the same: src/gpu/device.cpp).
const NODE_GPU_FLAGS = ['enable-dawn-features=vulkan_enable_f16_on_nvidia'];
const CPU_ADAPTER_FLAGS = ['disable-dawn-features=use_vulkan_zero_initialize_workgroup_memory_extension'];
let nodeGpu = null;
const nodeGpusKept = [];
async function findNodeGpu() {
  if (!nodeGpu) {
    try {
      const {create} = await import('webgpu');
      let gpu = create(NODE_GPU_FLAGS);
      nodeGpusKept.push(gpu);
      const adapter = await gpu.requestAdapter();
      if (adapter?.info?.isFallbackAdapter) {
        gpu = create([...NODE_GPU_FLAGS, ...CPU_ADAPTER_FLAGS]);
        nodeGpusKept.push(gpu);
      }
      nodeGpu = gpu;
    } catch (e) {
      return null;  // initWebGPU then says that there is no WebGPU, and how to get it
    }
  }
  return nodeGpu;
}

// Why no WebGPU adapter opens here, or null when one does: the GPU object given,
// navigator.gpu, or in Node Dawn's binding. (The adapter is dropped: the runtime opens its
// own.)
async function noAdapterReason(options) {
  let gpu = options.gpu;
  if (gpu === null) return 'options.gpu is null';
  if (gpu === undefined) {
    gpu = isNode ? await findNodeGpu() : (globalThis.navigator && navigator.gpu) || null;
    if (!gpu) return isNode ? "npm 'webgpu' (Dawn's node binding) is not installed" : 'navigator.gpu is missing';
  }
  if (typeof gpu.requestAdapter !== 'function') return 'the GPU object has no requestAdapter';
  let adapter = null;
  try {
    adapter = await gpu.requestAdapter();
  } catch (e) {
    return `requestAdapter failed: ${e && e.message || e}`;
  }
  if (adapter) return null;
  return isNode && options.gpu === undefined
    ? "Dawn's node binding (npm 'webgpu') found no WebGPU adapter: it needs a Vulkan driver, e.g. SwiftShader's, named by VK_ICD_FILENAMES"
    : 'requestAdapter() found no adapter';
}

// Which bundle serves this createExecuTorch(): {variant, threads, reason}. The threaded
// one runs the CPU only (no Asyncify, so no WebGPU: cmake/wasm.cmake), so it is taken
// where the delegates run on the CPU: backend 'cpu', or 'auto' where no adapter opens.
// It needs SharedArrayBuffer, which a browser gives only to cross-origin-isolated pages
// (served with `Cross-Origin-Opener-Policy: same-origin` and
// `Cross-Origin-Embedder-Policy: require-corp`); Node always has it. options.threads: 1
// asks for the single-threaded bundle, N > 1 for N threads; by default the cores, at most 8.
async function chooseBundle(options) {
  const single = (reason) => ({variant: 'single', threads: 1, reason});
  const wanted = options.threads;
  if (wanted !== undefined && wanted !== null && !(Number.isInteger(wanted) && wanted >= 1 && wanted <= 256)) {
    throw new TypeError(`createExecuTorch: threads must be an integer from 1 to 256, not ${String(wanted)}`);
  }
  if (wanted === 1) return single('options.threads is 1');
  if (options.wasmSha256 && !wanted) return single('options.wasmSha256 pins wick.wasm (give threads to pin wick-threads.wasm)');
  const backend = options.backend === undefined || options.backend === null ? 'auto' : options.backend;
  if (backend !== 'cpu' && backend !== 'auto') return single(`backend '${backend}': the threaded bundle runs the CPU only`);
  let cores;
  if (isNode) {
    try {
      await import('node:worker_threads');
    } catch (e) {
      return single('this Node has no worker_threads');
    }
    const os = await import('node:os');
    cores = os.availableParallelism ? os.availableParallelism() : os.cpus().length;
    const {access} = await import('node:fs/promises');
    try {
      await access(distUrl(BUNDLES.threads.js));
    } catch (e) {
      return single('the threaded bundle (dist/wick-threads.js) is not in this package');
    }
  } else {
    if (globalThis.crossOriginIsolated !== true || typeof SharedArrayBuffer !== 'function') {
      return single('the page is not cross-origin isolated (COOP/COEP headers), so it has no SharedArrayBuffer for Wasm threads');
    }
    cores = (globalThis.navigator && navigator.hardwareConcurrency) || 1;
  }
  const threads = wanted || Math.min(cores, 8);
  if (threads <= 1) return single('one core');
  let reason = wanted ? 'options.threads' : `${cores} cores`;
  if (backend === 'auto') {
    const why = await noAdapterReason(options);
    if (!why) return single("backend 'auto' found a WebGPU adapter, and the threaded bundle runs the CPU only");
    reason = `backend 'auto' without a WebGPU adapter (${why}), so the CPU, on ${reason}`;
  }
  return {variant: 'threads', threads, reason};
}

// Node, threaded bundle: Emscripten makes the pool's workers with the global Worker, which
// it sets to worker_threads' Worker. A worker inherits the process's execArgv and refuses
// some flags the main script may have been started with (--input-type, with -e), which
// ended the process. Workers made through this class leave those out. An application's
// own later assignment to the global replaces it.
async function installPoolWorker() {
  const {Worker} = await import('node:worker_threads');
  const execArgv = process.execArgv.filter((a) => !/^--input-type(=|$)/.test(a));
  class PoolWorker extends Worker {
    constructor(file, options) {
      super(file, {execArgv, ...options});
    }
  }
  Object.defineProperty(globalThis, 'Worker', {
    configurable: true, enumerable: true,
    get: () => PoolWorker,
    set: (value) => {
      if (value !== Worker) Object.defineProperty(globalThis, 'Worker', {value, writable: true, configurable: true, enumerable: true});
    },
  });
}

async function loadFactory(variant) {
  const bundle = BUNDLES[variant];
  if (isNode) {
    const {createRequire} = await import('node:module');
    return createRequire(import.meta.url)(`./dist/${bundle.js}`);
  }
  if (typeof globalThis[bundle.global] !== 'function') await import(distUrl(bundle.js).href);
  if (typeof globalThis[bundle.global] !== 'function') {
    throw new Error(`createExecuTorch: ${distUrl(bundle.js)} did not load`);
  }
  return globalThis[bundle.global];
}

// Resolves to the runtime (ExecuTorch's `et`): et.Module, et.Tensor, et.ScalarType,
// et.initWebGPU(), et.FS. options: anything Emscripten's Module takes, plus
//   gpu          a GPU object to use instead of navigator.gpu (in Node, by default
//                create(['enable-dawn-features=vulkan_enable_f16_on_nvidia']) of npm
//                'webgpu' when it is installed; null: none)
//   f16Weights   Wick extension (off by default): the WebGPU delegate stores linear
//                weights as f16 (api.js)
//   wasmSha256   verify the .wasm against this hex digest (fetched with fetchVerified)
//   onProgress   progress of the .wasm download ({url, loaded, total})
//   threads      CPU threads: 1 for the single-threaded bundle; by default the cores
//                (at most 8) where Wasm threads exist (a cross-origin-isolated page, Node),
//                else 1. et.threading says what was chosen and why.
// wasmSha256 is the digest of the bundle's .wasm: dist/wick-threads.wasm where threads are
// used (pass threads: 1 to pin dist/wick.wasm).
export async function createExecuTorch(options = {}) {
  const choice = await chooseBundle(options);
  const bundle = BUNDLES[choice.variant];
  const wasmUrl = distUrl(bundle.wasm);
  const factory = await loadFactory(choice.variant);
  const moduleOptions = {...options};
  delete moduleOptions.wasmSha256;
  delete moduleOptions.onProgress;
  delete moduleOptions.threads;
  moduleOptions.wickThreading = choice;
  if (choice.variant === 'threads') {
    moduleOptions.wickThreads = choice.threads;
    if (isNode) await installPoolWorker();
    // The pool's workers import the bundle by this URL (a dynamic import() leaves
    // Emscripten no script URL of its own to give them).
    if (!isNode && !moduleOptions.mainScriptUrlOrBlob) moduleOptions.mainScriptUrlOrBlob = distUrl(bundle.js).href;
  }
  if (!moduleOptions.wasmBinary) {
    if (isNode) {
      const {readFile} = await import('node:fs/promises');
      moduleOptions.wasmBinary = await readFile(wasmUrl);
      if (options.wasmSha256 && (await sha256Hex(moduleOptions.wasmBinary)) !== options.wasmSha256.toLowerCase()) {
        throw new Error(`createExecuTorch: ${wasmUrl} does not match wasmSha256`);
      }
    } else if (options.wasmSha256 || options.onProgress) {
      moduleOptions.wasmBinary = await fetchVerified(wasmUrl, {sha256: options.wasmSha256, onProgress: options.onProgress});
    }
  }
  // gpu: null says: no WebGPU unless initWebGPU({gpu}) gives one.
  if (isNode && !('gpu' in options)) moduleOptions.findGpu = findNodeGpu;
  if (!moduleOptions.locateFile) {
    // Node's Worker (the threaded bundle's pool) takes a path, not a file: URL string.
    const {fileURLToPath} = isNode ? await import('node:url') : {};
    moduleOptions.locateFile = isNode ? (path) => fileURLToPath(distUrl(path)) : (path) => distUrl(path).href;
  }
  return factory(moduleOptions);
}

export default createExecuTorch;
