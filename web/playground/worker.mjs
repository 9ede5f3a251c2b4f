// The playground's worker: the one Wasm runtime (verified against the pin the server
// made), WebGPU, and every download, load and run, so that the page never waits on them.
// Requests: {id, op, args}; answers: {id, type: 'progress' | 'result' | 'error'} and,
// unasked, {type: 'event', event: 'device-lost', message}. One request runs at a time
// (the runtime runs one call at a time anyway); 'cancel' is answered at once.
import {createExecuTorch} from '../../package/index.mjs';
import {fetchVerifiedCached, formatBytes, sha256Hex, storageEstimate} from './lib/cache.mjs';

const DTYPES = {float32: Float32Array, float64: Float64Array, int32: Int32Array, int64: BigInt64Array,
                int16: Int16Array, int8: Int8Array, uint8: Uint8Array, bool: Uint8Array, float16: Uint16Array};

let et = null;
let gpuInfo = null;       // null: the programs run on the CPU (no WebGPU here)
let noGpuWhy = null;
let device = null;        // the GPUDevice Wick opened (tests destroy it to lose the device)
let deviceLost = null;    // the loss message, once lost
const programs = new Map();  // handle -> {module, method, meta, name}
let nextHandle = 1;
const controllers = new Map();  // request id -> AbortController

function post(msg, transfer = []) { self.postMessage(msg, transfer); }

class PlaygroundError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

// navigator.gpu with requestDevice watched: the page hears of a lost device at once.
function watchedGpu() {
  const gpu = navigator.gpu;
  return {
    wgslLanguageFeatures: gpu.wgslLanguageFeatures,
    getPreferredCanvasFormat: () => gpu.getPreferredCanvasFormat(),
    requestAdapter: async (options) => {
      const adapter = await gpu.requestAdapter(options);
      if (!adapter) return adapter;
      const requestDevice = adapter.requestDevice.bind(adapter);
      adapter.requestDevice = async (descriptor) => {
        const d = await requestDevice(descriptor);
        device = d;
        self.__playgroundDevice = d;
        d.lost.then((info) => {
          const why = (info.message || '').replace(/\.+$/, '');
          deviceLost = `the GPU device was lost (${info.reason || 'unknown'}${why ? `: ${why}` : ''})`;
          post({type: 'event', event: 'device-lost', message: deviceLost});
        });
        return d;
      };
      return adapter;
    },
  };
}

// The runtime, from the bundle the server pinned (runtime.pin.json): every file fetched,
// checked against its sha256 and run from those bytes. Where this browser has a WebGPU
// adapter: wick.js (imported from a blob URL; wick.wasm checked by createExecuTorch's
// wasmSha256) and WebGPU. Without one the runtime's default backend ('auto') runs the
// programs' VulkanBackend parts on the CPU instead; there, on a cross-origin-isolated page
// (scripts/serve.mjs sends COOP/COEP) with more than one core, the threaded bundle
// (wick-threads.js, its .wasm, and the pool workers' wick-threads.worker.js, which runs
// from a blob URL of its checked bytes) splits the CPU kernels over Web Workers.
// Answers {gpu, backend: 'webgpu' | 'cpu', why, threads}.
async function start({pinUrl, bundleUrl, wasmUrl}, progress, signal) {
  if (et) return {gpu: gpuInfo, backend: gpuInfo ? 'webgpu' : 'cpu', why: noGpuWhy, threads: et.threading.threads};
  progress('Checking the runtime pin', undefined);
  const pinResponse = await fetch(pinUrl, {cache: 'no-store', signal});
  if (!pinResponse.ok) throw new PlaygroundError('pin', `the runtime pin ${pinUrl} is missing (HTTP ${pinResponse.status}); serve the page with node scripts/serve.mjs`);
  const pin = await pinResponse.json();
  const want = Object.fromEntries(pin.files.map((f) => [f.file, f]));
  // WebGPU first: the threaded bundle runs the CPU only (no Asyncify), so it is taken only
  // where no adapter opens.
  let adapter = null;
  if (!navigator.gpu) noGpuWhy = 'navigator.gpu is missing';
  else {
    try {
      adapter = await navigator.gpu.requestAdapter();
      if (!adapter) noGpuWhy = 'no WebGPU adapter found';
    } catch (e) {
      noGpuWhy = `requestAdapter failed: ${e.message}`;
    }
  }
  const cores = navigator.hardwareConcurrency || 1;
  const threaded = !adapter && self.crossOriginIsolated === true && cores > 1 &&
                   ['wick-threads.js', 'wick-threads.wasm', 'wick-threads.worker.js'].every((f) => want[f]);
  const names = threaded ? {js: 'wick-threads.js', wasm: 'wick-threads.wasm'} : {js: 'wick.js', wasm: 'wick.wasm'};
  const fetchPinned = (file, what) => fetchVerifiedCached(new URL(file, bundleUrl).href, {
    sha256: want[file].sha256, store: 'wick', signal, expectedSize: want[file].bytes, pinnedBy: 'runtime.pin.json',
    onProgress: ({loaded, total}) => progress(`Loading the runtime (${what}): ${formatBytes(loaded)}`, total ? loaded / total : undefined),
  }).catch((e) => {
    throw e.code === 'sha256' ? new PlaygroundError('runtime-pin', `${e.message}; the runtime was not started`) : e;
  });
  const js = await fetchPinned(names.js, names.js);
  const options = {};
  if (threaded) {
    const poolWorker = await fetchPinned('wick-threads.worker.js', 'its thread pool');
    const poolWorkerUrl = URL.createObjectURL(new Blob([poolWorker.bytes], {type: 'text/javascript'}));
    // The pool's workers load the checked bytes of both scripts, not the URLs again.
    options.mainScriptUrlOrBlob = new Blob([js.bytes], {type: 'text/javascript'});
    options.threads = Math.min(cores, 8);
    options.backend = 'cpu';
    options.locateFile = (p) => (p === 'wick-threads.worker.js' ? poolWorkerUrl : new URL(p, bundleUrl).href);
  } else {
    options.locateFile = (p) => new URL(p, wasmUrl).href;
    options.gpu = navigator.gpu ? watchedGpu() : undefined;
  }
  const blobUrl = URL.createObjectURL(new Blob([js.bytes], {type: 'text/javascript'}));
  try {
    await import(blobUrl);
  } finally {
    URL.revokeObjectURL(blobUrl);
  }
  const wasmTotal = want[names.wasm].bytes;
  et = await createExecuTorch({
    ...options,
    wasmSha256: want[names.wasm].sha256,
    onProgress: ({loaded}) => progress(`Loading the runtime (${names.wasm}): ${formatBytes(loaded)}`, loaded / wasmTotal),
  }).catch((e) => {
    const m = /sha256 mismatch: expected ([0-9a-f]+), got ([0-9a-f]+)/.exec(e.message);
    if (m) {
      throw new PlaygroundError('runtime-pin', `${names.wasm} has sha256 ${m[2]}, and runtime.pin.json pins ${m[1]}: ` +
                                'the runtime was not started. Reload the page (the server pins the bundle it serves).');
    }
    throw new PlaygroundError('runtime', `the runtime did not start: ${e.message}`);
  });
  const threads = et.threading.threads;
  if (!adapter) return {gpu: null, backend: 'cpu', why: noGpuWhy, threads};
  progress('Opening WebGPU', undefined);
  try {
    gpuInfo = await et.initWebGPU();
  } catch (e) {
    noGpuWhy = e.message.replace(/^initWebGPU: /, '').replace(/^NotFound: /, '');
    return {gpu: null, backend: 'cpu', why: noGpuWhy, threads};
  }
  return {gpu: gpuInfo, backend: 'webgpu', why: null, threads};
}

// Refuses before the download when the program needs more than this GPU allows. On the
// CPU there are no such limits to check: a program too big for the Wasm memory fails
// at its load, which says so.
function checkLimits(spec) {
  if (!gpuInfo) return;
  const need = spec.requires || {};
  for (const [name, value] of Object.entries(need)) {
    const have = gpuInfo.limits[name];
    if (typeof have === 'number' && have >= 0 && value > have) {
      throw new PlaygroundError('limits', `${spec.label || spec.url} needs a GPU ${name} of ${formatBytes(value)}, ` +
                                `and this GPU (${gpuInfo.adapter.summary.trim()}) allows ${formatBytes(have)}: ` +
                                'it cannot run here. Nothing was downloaded.');
    }
  }
}

function tensorMeta(t) { return {dtype: t.dtype || t.scalarType, shape: t.sizes || t.shape}; }

async function load(spec, progress, signal) {
  if (deviceLost) throw new PlaygroundError('device-lost', `${deviceLost}; the runtime restarts`);
  checkLimits(spec);
  let keep = true;
  if (!spec.size) {
    // ?model= programs: the size from the server, for the quota check
    try {
      const head = await fetch(spec.url, {method: 'HEAD', signal});
      spec = {...spec, size: Number(head.headers.get('content-length')) || 0};
    } catch (e) { /* checked after the download instead */ }
  }
  const estimate = await storageEstimate();
  let note = null;
  if (estimate && estimate.quota && spec.size && estimate.quota - estimate.usage < spec.size) {
    keep = false;
    note = `Not enough storage to keep ${spec.label || spec.url} (${formatBytes(spec.size)}; ` +
           `${formatBytes(Math.max(0, estimate.quota - estimate.usage))} free of ${formatBytes(estimate.quota)}): ` +
           'it is downloaded for this session only. Free space in the cache panel.';
    post({type: 'event', event: 'warn', message: note});
  }
  const what = spec.label || spec.url.split('/').slice(-2).join('/');
  const got = await fetchVerifiedCached(spec.url, {
    sha256: spec.sha256, keep, signal, expectedSize: spec.size,
    onProgress: ({loaded, total, cached}) => progress(
        `${cached ? 'Reading' : 'Downloading'} ${what}: ${formatBytes(loaded)}${total ? ` of ${formatBytes(total)}` : ''}`,
        total ? loaded / total : undefined)});
  if (signal.aborted) throw signal.reason;
  progress(`Parsing ${what}`, undefined);
  let module;
  try {
    module = et.Module.load(got.bytes, {name: what});
    // Module.load is lazy, as ExecuTorch's is: reading the methods parses the file now,
    // so a file that is not a program gets this message, not a GPU one.
    module.getMethods();
  } catch (e) {
    throw new PlaygroundError('program', `${what} is not a program Wick can run: ${e.message}`);
  }
  const method = spec.method || 'forward';
  progress(gpuInfo ? `Uploading the weights of ${what} and compiling its shaders` : `Preparing ${what} for the CPU`, undefined);
  try {
    await module.loadMethod(method);
  } catch (e) {
    module.delete();
    if (deviceLost) throw new PlaygroundError('device-lost', `${deviceLost}; the runtime restarts`);
    const tooBig = /limit|exceeds|too large|maxBuffer|maxStorage/i.test(e.message);
    throw new PlaygroundError(tooBig ? 'limits' : 'program', `${what} did not load ${gpuInfo ? 'on this GPU' : 'on the CPU'}: ${e.message}`);
  }
  const m = module.getMethodMeta(method);
  const meta = {methods: module.getMethods ? module.getMethods() : [method],
                inputs: (m.inputTensorMeta || []).map((t) => (t ? tensorMeta(t) : null)),
                outputs: (m.outputTensorMeta || []).map((t) => (t ? tensorMeta(t) : null))};
  const handle = nextHandle++;
  programs.set(handle, {module, method, meta, name: what});
  return {handle, meta, cached: got.cached, stored: got.stored, unverified: !spec.sha256, note,
          backend: et.delegateBackend || 'cpu'};  // null: no delegates, all on the CPU kernels
}

function toInput(v, i) {
  if (v === null || typeof v !== 'object') return v;
  const Array_ = DTYPES[v.dtype];
  if (!Array_) throw new PlaygroundError('input', `input ${i}: unknown dtype ${v.dtype}`);
  return et.Tensor.fromArray(v.shape, v.data, v.dtype);
}

const DTYPE_NAMES = {Float: 'float32', Double: 'float64', Int: 'int32', Long: 'int64', Short: 'int16',
                     Char: 'int8', Byte: 'uint8', Bool: 'bool', Half: 'float16'};

async function run({handle, method, inputs}, progress, signal) {
  if (deviceLost) throw new PlaygroundError('device-lost', `${deviceLost}; the runtime restarts`);
  const p = programs.get(handle);
  if (!p) throw new PlaygroundError('program', 'the model is no longer loaded (the runtime restarted); run again');
  const tensors = inputs.map(toInput);
  let outputs;
  try {
    outputs = await p.module.execute(method || p.method, tensors);
  } catch (e) {
    if (deviceLost) throw new PlaygroundError('device-lost', `${deviceLost}; the runtime restarts`);
    throw new PlaygroundError('run', `${p.name}: ${e.message}`);
  }
  if (signal.aborted) throw signal.reason;
  const transfer = [];
  const out = outputs.map((o) => {
    if (!o || typeof o !== 'object' || !o.shape) return o;
    const dtype = o.dtype.name === 'Half' ? 'float32' : DTYPE_NAMES[o.dtype.name];
    const data = o.data;
    transfer.push(data.buffer);
    return {dtype, shape: o.shape, data};
  });
  return {value: out, transfer};
}

const OPS = {
  start,
  load,
  run,
  unload: async ({handle}) => {
    const p = programs.get(handle);
    if (p) p.module.delete();
    programs.delete(handle);
    return true;
  },
  sha256: async ({bytes}) => sha256Hex(bytes),
  // How the CPU kernels run ({variant, threads, reason, workerChunks}: package/index.d.ts).
  threading: async () => (et ? et.threading : null),
};

// Requests a demo brings ('chat/generate'): ops[name] of demos/<demo>/worker_ops.mjs,
// called with (args, progress, signal, env), env being what such ops need of this worker.
const demoOps = new Map();
async function demoOp(op) {
  const m = /^([a-z0-9_-]+)\/(\w+)$/.exec(op);
  if (!m) return null;
  if (!demoOps.has(m[1])) demoOps.set(m[1], import(`./demos/${m[1]}/worker_ops.mjs`).then((mod) => mod.ops));
  const fn = (await demoOps.get(m[1]))[m[2]];
  return fn ? (args, progress, signal) => fn(args, progress, signal, {et, checkLimits, PlaygroundError}) : null;
}

let queue = Promise.resolve();

self.onmessage = (e) => {
  const {id, op, args} = e.data;
  if (op === 'cancel') {
    const c = controllers.get(args.id);
    if (c) c.abort(new DOMException('cancelled', 'AbortError'));
    return;
  }
  const controller = new AbortController();
  controllers.set(id, controller);
  const progress = (text, fraction) => post({id, type: 'progress', text, fraction});
  queue = queue.then(async () => {
    try {
      if (controller.signal.aborted) throw controller.signal.reason;
      const fn = OPS[op] || await demoOp(op);
      if (!fn) throw new PlaygroundError('op', `unknown request ${op}`);
      const r = await fn(args || {}, progress, controller.signal);
      if (r && r.transfer) post({id, type: 'result', value: r.value}, r.transfer);
      else post({id, type: 'result', value: r});
    } catch (err) {
      const aborted = controller.signal.aborted || (err && err.name === 'AbortError');
      post({id, type: 'error', code: aborted ? 'aborted' : err.code || 'other',
            message: aborted ? 'cancelled' : String(err && err.message || err)});
    } finally {
      controllers.delete(id);
    }
  });
};

post({type: 'event', event: 'alive'});
