// Calls made while others are in flight (issue 13): Module.load, getMethodMeta, forward and
// execute fired from timers while a loadMethod and a forward of a WebGPU program are still
// running. Every call must settle (none may hang), each result must match the PyTorch
// reference, and the runtime must keep working afterwards. Host-neutral, like
// error_cases.mjs: run from Node (node_concurrency.test.mjs) and Chromium
// (browser_concurrency.test.mjs). Resolves to null or a failure message.

const GPU_MLP = 'models/mlp';   // one WebGPU delegate: its calls wait on the GPU
const CPU_MLP = 'cpu/mlp_cpu';  // the same weights and inputs, no delegate
const SETTLE_MS = 60000;        // much longer than the calls take; past it, a call hangs

function close(y, ref) {
  for (let i = 0; i < ref.length; i++) {
    if (!(Math.abs(y.data[i] - ref[i]) <= 1e-3 + 1e-3 * Math.abs(ref[i]))) {
      return `output ${i} is ${y.data[i]}, reference ${ref[i]}`;
    }
  }
  return null;
}

export async function concurrentCalls(et, io) {
  const gpuBytes = await io.bytes(`${GPU_MLP}/model.pte`);
  const cpuBytes = await io.bytes(`${CPU_MLP}/model.pte`);
  const xData = new Float32Array((await io.bytes(`${GPU_MLP}/case0_input0.bin`)).slice().buffer);
  const ref = new Float32Array((await io.bytes(`${GPU_MLP}/case0_output0.bin`)).slice().buffer);
  const x = () => et.Tensor.fromArray([4, 64], xData);

  const calls = [];  // {what, promise, kind: 'outputs' | 'meta' | 'none'}
  let inFlight = true;  // until the first forward settles
  let firedWhileBusy = 0;
  function track(what, kind, fn) {
    if (inFlight) firedWhileBusy++;
    let promise;
    try {
      promise = Promise.resolve(fn());
    } catch (e) {
      promise = Promise.reject(e);
    }
    calls.push({what, kind, promise});
    return promise;
  }

  const a = et.Module.load(gpuBytes, 'mlp-a');
  track('a.loadMethod', 'none', () => a.loadMethod('forward'));
  track('a.forward', 'outputs', () => a.forward([x()])).finally(() => { inFlight = false; });

  // From timers, as a page's event handlers would: a new module, its metadata and runs, a
  // run of the first module, a synchronous-capable CPU program, all while the above run.
  let b = null;
  let c = null;
  await new Promise((resolve) => {
    const steps = [
      [0, 'Module.load(b).getMethods', 'meta', () => { b = et.Module.load(gpuBytes, 'mlp-b'); return b.getMethods(); }],
      [1, 'b.getMethodMeta', 'meta', () => b.getMethodMeta('forward')],
      [2, 'b.forward', 'outputs', () => b.forward([x()])],
      [3, "a.execute('forward')", 'outputs', () => a.execute('forward', [x()])],
      [4, 'a.getMethodMeta', 'meta', () => a.getMethodMeta('forward')],
      [5, 'Module.load(c: CPU).forward', 'outputs', () => { c = et.Module.load(cpuBytes, 'mlp-cpu'); return c.forward([x()]); }],
      [6, 'b.loadMethod', 'none', () => b.loadMethod('forward')],
      [8, 'c.execute', 'outputs', () => c.execute('forward', x())],
      [12, 'b.forward again', 'outputs', () => b.forward(x())],
    ];
    let left = steps.length;
    for (const [ms, what, kind, fn] of steps) {
      setTimeout(() => {
        track(what, kind, fn);
        if (--left === 0) resolve();
      }, ms);
    }
  });

  let timer;
  const timeout = new Promise((resolve) => { timer = setTimeout(() => resolve('timeout'), SETTLE_MS); });
  const settled = calls.map((call) => call.promise.then((value) => ({call, value}), (error) => ({call, error})));
  const outcome = await Promise.race([Promise.all(settled), timeout]);
  clearTimeout(timer);
  if (outcome === 'timeout') {
    const done = new Set();
    for (const s of settled) s.then((r) => done.add(r.call));
    await new Promise((r) => setTimeout(r, 0));
    return `calls still pending after ${SETTLE_MS} ms: ${calls.filter((c2) => !done.has(c2)).map((c2) => c2.what).join(', ')}`;
  }
  if (firedWhileBusy < 4) {
    return `only ${firedWhileBusy} calls were made while the first forward ran: the test did not overlap calls`;
  }
  for (const {call, value, error} of outcome) {
    if (error) return `${call.what} failed: ${error && error.message || error}`;
    if (call.kind === 'outputs') {
      if (!Array.isArray(value) || value.length !== 1) return `${call.what} gave ${String(value)}, not one output`;
      const why = close(value[0], ref);
      if (why) return `${call.what}: ${why}`;
    }
    if (call.kind === 'meta' && !(Array.isArray(value) ? value.includes('forward') : value.name === 'forward')) {
      return `${call.what} gave ${JSON.stringify(value)}`;
    }
  }

  // Still working: the first module, a fresh one, and the CPU program now synchronously.
  for (const [what, run] of [
    ['a.forward afterwards', () => a.forward([x()])],
    ['a fresh module afterwards', () => et.Module.load(gpuBytes, 'mlp-d').forward([x()])],
  ]) {
    const [y] = await run();
    const why = close(y, ref);
    if (why) return `${what}: ${why}`;
  }
  const sync = c.forward([x()]);
  if (!Array.isArray(sync)) return 'the CPU program did not run synchronously once the runtime was idle';
  const why = close(sync[0], ref);
  if (why) return `synchronous CPU forward: ${why}`;
  for (const m of [a, b, c]) m.delete();
  return null;
}
