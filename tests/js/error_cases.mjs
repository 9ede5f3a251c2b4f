// Bad input through the JavaScript API: each case must throw or reject with a message
// that says what went wrong, and the same module (or a fresh one) must work afterwards.
// Host-neutral, like fixture_harness.mjs: run from Node (node_errors.test.mjs) and in
// Chromium (browser_errors.test.mjs). Each case resolves to null or a failure message.

const MLP = 'models/mlp';

async function expectFailure(what, fn, pattern) {
  try {
    await fn();
  } catch (e) {
    const message = String((e && e.message) || e);
    if (!(e instanceof Error)) return `${what}: threw a ${typeof e}, not an Error: ${message}`;
    if (!pattern.test(message)) return `${what}: message ${JSON.stringify(message)} does not match ${pattern}`;
    return null;
  }
  return `${what}: did not fail`;
}

async function mlpInput(et, io) {
  const bytes = await io.bytes(`${MLP}/case0_input0.bin`);
  return et.Tensor.fromArray([4, 64], new Float32Array(bytes.slice().buffer));
}

// The module still answers correctly: the reference output of the MLP's case 0.
async function stillWorks(et, io, module, what) {
  const [y] = await module.forward([await mlpInput(et, io)]);
  const ref = new Float32Array((await io.bytes(`${MLP}/case0_output0.bin`)).slice().buffer);
  for (let i = 0; i < ref.length; i++) {
    if (!(Math.abs(y.data[i] - ref[i]) <= 1e-3 + 1e-3 * Math.abs(ref[i]))) {
      return `${what}: afterwards, output ${i} is ${y.data[i]}, reference ${ref[i]}`;
    }
  }
  return null;
}

export const ERROR_CASES = {
  // The flatbuffer verifier does not check strings for UTF-8, so a method name may hold
  // any byte; getMethods() once threw a bare Number here (nlohmann's type_error.316 through
  // the C API). The runtime's JSON escapes the byte as the text \xFF, that spelling
  // selects the method, and the name the program no longer has is a clear error.
  'a method name that is not UTF-8': async (et, io) => {
    const good = await io.bytes(`${MLP}/model.pte`);
    // The flatbuffer string "forward": its u32 length 7, the bytes, a NUL.
    const needle = [7, 0, 0, 0, ...new TextEncoder().encode('forward'), 0];
    const hits = [];
    for (let i = 0; i + needle.length <= good.length; i++) {
      if (needle.every((b, k) => good[i + k] === b)) hits.push(i);
    }
    if (hits.length !== 1) return `expected one "forward" string in the program, found ${hits.length}`;
    const bytes = good.slice();
    bytes[hits[0] + 4 + 3] = 0xff;  // "for\xFFard"
    const m = et.Module.load(bytes);
    let names;
    try {
      names = m.getMethods();
    } catch (e) {
      return `getMethods threw ${e instanceof Error ? 'an Error' : 'a ' + typeof e}: ${String((e && e.message) || e)}`;
    }
    if (JSON.stringify(names) !== JSON.stringify(['for\\xFFard'])) return `getMethods gave ${JSON.stringify(names)}`;
    const why = await expectFailure('forward() on a program whose method is not "forward"',
                                    () => m.forward([et.Tensor.zeros([4, 64])]), /forward/);
    if (why) return why;
    const [y] = await m.execute(names[0], [await mlpInput(et, io)]);
    const ref = new Float32Array((await io.bytes(`${MLP}/case0_output0.bin`)).slice().buffer);
    for (let i = 0; i < ref.length; i++) {
      if (!(Math.abs(y.data[i] - ref[i]) <= 1e-3 + 1e-3 * Math.abs(ref[i]))) {
        return `execute('${names[0]}'): output ${i} is ${y.data[i]}, reference ${ref[i]}`;
      }
    }
    return null;
  },
  'corrupt file: truncated, flipped, not a .pte': async (et, io) => {
    const good = await io.bytes(`${MLP}/model.pte`);
    const flipped = good.slice();
    for (let i = 8; i < 200; i += 7) flipped[i] ^= 0xff;
    for (const [name, bytes, pattern] of [
      ['truncated to 100 bytes', good.slice(0, 100), /InvalidProgram/],
      ['truncated to half', good.slice(0, good.length >> 1), /InvalidProgram/],
      ['bytes flipped in the header', flipped, /InvalidProgram/],
      ['not a .pte at all', new TextEncoder().encode('hello, this is not a program'), /InvalidProgram/],
      ['empty', new Uint8Array(0), /InvalidProgram/],
    ]) {
      // Loading is lazy, as in ExecuTorch: loadMethod is where a bad file fails, at once
      // (a page's try/catch around it sees it), with ExecuTorch's error code.
      let module = null;
      const why = await expectFailure(`loadMethod after Module.load(${name})`, () => {
        module = et.Module.load(bytes);
        try {
          module.loadMethod('forward');
        } catch (e) {
          if (e.code !== 'InvalidProgram' || e.errorCode !== 0x23) throw new Error(`code ${e.code}/${e.errorCode}: ${e.message}`);
          throw e;
        }
      }, pattern);
      if (why) return why;
      if (!module) return `Module.load(${name}) threw: ExecuTorch's load is lazy`;
    }
    const why = await expectFailure('Module.load(null)', () => et.Module.load(null), /null or undefined/);
    if (why) return why;
    return stillWorks(et, io, et.Module.load(good), 'after corrupt files');
  },

  'wrong input count': async (et, io) => {
    const m = et.Module.load(await io.bytes(`${MLP}/model.pte`));
    const x = await mlpInput(et, io);
    return (await expectFailure('forward([])', () => m.forward([]), /expected 1 input, got 0/)) ||
           (await expectFailure('forward([x, x])', () => m.forward([x, x]), /expected 1 input, got 2/)) ||
           stillWorks(et, io, m, 'after a wrong input count');
  },

  'wrong input shape': async (et, io) => {
    const m = et.Module.load(await io.bytes(`${MLP}/model.pte`));
    return (await expectFailure('forward([3x64])', () => m.forward([et.Tensor.zeros([3, 64])]),
                                /input 0.*shape \[4, 64\].*\[3, 64\]/)) ||
           (await expectFailure('forward([4x64x1])', () => m.forward([et.Tensor.zeros([4, 64, 1])]),
                                /input 0/)) ||
           stillWorks(et, io, m, 'after a wrong shape');
  },

  'wrong input dtype': async (et, io) => {
    const m = et.Module.load(await io.bytes(`${MLP}/model.pte`));
    return (await expectFailure('forward([int64])', () => m.forward([et.Tensor.zeros([4, 64], et.ScalarType.Long)]),
                                /input 0.*(int64|float32|dtype)/)) ||
           (await expectFailure('forward([a number])', () => m.forward([1.5]), /input 0/)) ||
           (await expectFailure('forward([a string])', () => m.forward(['x']), /input 0: unsupported JavaScript type string/)) ||
           stillWorks(et, io, m, 'after a wrong dtype');
  },

  'unknown method': async (et, io) => {
    const m = et.Module.load(await io.bytes(`${MLP}/model.pte`));
    return (await expectFailure("loadMethod('nope')", () => m.loadMethod('nope'), /nope/)) ||
           (await expectFailure("execute('nope')", () => m.execute('nope', [et.Tensor.zeros([4, 64])]), /nope/)) ||
           (await expectFailure("getMethodMeta('nope')", () => m.getMethodMeta('nope'), /nope/)) ||
           stillWorks(et, io, m, 'after an unknown method');
  },

  'missing backend': async (et, io) => {
    // A Qualcomm program: its delegates are QnnBackend's, which Wick does not have.
    const m = et.Module.load(await io.bytes('samples/stories260k_qnn.pte'));
    if (!m.getMethods().includes('kv_forward')) return 'stories260k_qnn.pte has no kv_forward method';
    const why = await expectFailure("loadMethod('kv_forward')", () => m.loadMethod('kv_forward'), /QnnBackend/);
    if (why) return why;
    const [maxSeqLen] = await m.execute('get_max_seq_len', []);
    if (maxSeqLen !== BigInt(128)) return `get_max_seq_len gave ${maxSeqLen}, expected 128`;
    return stillWorks(et, io, et.Module.load(await io.bytes(`${MLP}/model.pte`)), 'after a missing backend');
  },

  'deleted module and tensor': async (et, io) => {
    const m = et.Module.load(await io.bytes(`${MLP}/model.pte`));
    const x = await mlpInput(et, io);
    m.delete();
    const why = (await expectFailure('forward on a deleted module', () => m.forward([x]), /deleted/));
    if (why) return why;
    const m2 = et.Module.load(await io.bytes(`${MLP}/model.pte`));
    const x2 = await mlpInput(et, io);
    x2.delete();
    return (await expectFailure('forward with a deleted tensor', () => m2.forward([x2]), /deleted/)) ||
           stillWorks(et, io, m2, 'after deleted objects');
  },

  'outputs stay valid after the next call': async (et, io) => {
    const m = et.Module.load(await io.bytes(`${MLP}/model.pte`));
    const [first] = await m.forward([await mlpInput(et, io)]);
    const kept = Array.from(first.data);
    await m.forward([et.Tensor.zeros([4, 64])]);
    for (let i = 0; i < kept.length; i++) {
      if (first.data[i] !== kept[i]) return `output element ${i} changed after the next call`;
    }
    return null;
  },
};
