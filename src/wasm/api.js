// Wick's JavaScript API, in the names of ExecuTorch's web bindings (see
// shared/spec/wasm_api.md): et.Module, et.Tensor, et.ScalarType, et.Tag, plus
// et.initWebGPU() (optional: a method with WebGPU delegates opens the device on first
// use). Linked with --post-js after tensor_data.js and runtime_calls.js, so it runs in the Emscripten
// factory and `Module` here is the object createExecuTorch() resolves to.
//
// What differs from ExecuTorch, and why (docs/web.md has the table):
//  - A method with WebGPU delegates runs asynchronously: loadMethod, forward and execute
//    return Promises (the browser lets one wait on the GPU only asynchronously). A method
//    without them runs synchronously when the runtime is idle, as in ExecuTorch's CPU
//    build: forward gives the outputs (an Array that is also a thenable, so await works).
//  - Every call that may wait on the GPU goes through one queue (runtime_calls.js), so
//    callers need not await each call before the next, and none hangs.
//  - Tensors hold their data in JavaScript memory: outputs stay valid after the next
//    call and after the heap grows. delete() drops the data and is optional.
//  - Errors are Error objects whose message says what failed and where, e.g.
//    "Module.execute('forward'): InvalidArgument: input 0: expected float32, got int64",
//    with code (ExecuTorch's Error name) and errorCode (its number) to branch on.

var WickApi = (function() {
  'use strict';

  // ScalarType values are ExecuTorch's (c10) numbers.
  var DTYPES = [
    {name: 'Byte', value: 0, wick: 'uint8', bytes: 1, array: Uint8Array},
    {name: 'Char', value: 1, wick: 'int8', bytes: 1, array: Int8Array},
    {name: 'Short', value: 2, wick: 'int16', bytes: 2, array: Int16Array},
    {name: 'Int', value: 3, wick: 'int32', bytes: 4, array: Int32Array},
    {name: 'Long', value: 4, wick: 'int64', bytes: 8, array: BigInt64Array},
    {name: 'Half', value: 5, wick: 'float16', bytes: 2, array: Uint16Array},  // stored as bits
    {name: 'Float', value: 6, wick: 'float32', bytes: 4, array: Float32Array},
    {name: 'Double', value: 7, wick: 'float64', bytes: 8, array: Float64Array},
    {name: 'Bool', value: 11, wick: 'bool', bytes: 1, array: Uint8Array},
  ];
  var ScalarType = {};
  var byValue = {};
  var byWickName = {};
  DTYPES.forEach(function(d) {
    var member = Object.freeze({name: d.name, value: d.value});
    ScalarType[d.name] = member;
    d.member = member;
    byValue[d.value] = d;
    byWickName[d.wick] = d;
  });
  // As embind's enums have: members by number (not enumerable, so that iterating
  // ScalarType gives the members only).
  function addValues(e, list) {
    var values = {};
    list.forEach(function(m) { values[m.value] = m; });
    Object.defineProperty(e, 'values', {value: Object.freeze(values), enumerable: false});
    return Object.freeze(e);
  }
  addValues(ScalarType, DTYPES.map(function(d) { return d.member; }));

  var TAG_NAMES = ['None', 'Tensor', 'String', 'Double', 'Int', 'Bool', 'ListBool',
                   'ListDouble', 'ListInt', 'ListTensor', 'ListScalar', 'ListOptionalTensor'];
  var Tag = {};
  TAG_NAMES.forEach(function(name, value) { Tag[name] = Object.freeze({name: name, value: value}); });
  addValues(Tag, TAG_NAMES.map(function(name) { return Tag[name]; }));
  // Wick's tag names (runtime/value.cpp) -> ExecuTorch's.
  var TAG_OF = {None: 'None', Tensor: 'Tensor', String: 'String', Double: 'Double', Int: 'Int',
                Bool: 'Bool', BoolList: 'ListBool', DoubleList: 'ListDouble', IntList: 'ListInt',
                TensorList: 'ListTensor', OptionalTensorList: 'ListOptionalTensor'};

  function dtypeInfo(dtype, where) {
    if (dtype === undefined || dtype === null) return byValue[6];
    var value = typeof dtype === 'object' ? dtype.value : dtype;
    var d = typeof value === 'string' ? byWickName[value] || ScalarType[value] && byValue[ScalarType[value].value]
                                      : byValue[value];
    if (!d) throw new TypeError(where + ': unsupported dtype ' + describe(dtype));
    return d;
  }

  function checkSizes(sizes, where) {
    if (!Array.isArray(sizes)) throw new TypeError(where + ': sizes must be an array of numbers');
    sizes.forEach(function(s, i) {
      if (typeof s !== 'number' || !Number.isInteger(s) || s < 0) {
        throw new TypeError(where + ': sizes[' + i + '] = ' + String(s) + ' is not a size');
      }
    });
    return sizes.reduce(function(a, b) { return a * b; }, 1);
  }

  var Half = WickTensorData;

  // A value, short enough for an error message (a typed array of a million elements
  // must not become a million numbers).
  function describe(value) {
    if (ArrayBuffer.isView(value)) {
      var head = Array.prototype.slice.call(value, 0, 4).map(String).join(', ');
      return value.constructor.name + '(' + value.length + ') [' + head + (value.length > 4 ? ', ...' : '') + ']';
    }
    var text;
    try {
      text = typeof value === 'string' ? JSON.stringify(value) : Array.isArray(value) ? '[' + value.slice(0, 4).map(String).join(', ') + (value.length > 4 ? ', ...' : '') + ']'
           : typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
    } catch (e) {
      text = Object.prototype.toString.call(value);
    }
    if (text === undefined) text = String(value);
    return text.length > 80 ? text.slice(0, 77) + '...' : text;
  }

  // Elements in the layout of `d` (Half: bits) from numbers, BigInts or booleans.
  function fill(d, n, value) {
    var data = new d.array(n);
    if (d.array === BigInt64Array) {
      data.fill(typeof value === 'bigint' ? value : BigInt(value));
    } else if (d.name === 'Half') {
      data.fill(Half.toHalfBits(Number(value)));
    } else {
      data.fill(Number(value));
    }
    return data;
  }

  // ----- Tensor -----

  // dtype: a DTYPES entry; data: n elements of d.array (Half: IEEE bits), laid out in
  // dimOrder (outermost first).
  function Tensor(dtype, sizes, data, dimOrder) {
    this._dtype = dtype;
    this._sizes = sizes.slice();
    this._data = data;
    this._dimOrder = dimOrder ? dimOrder.slice() : Half.identity(sizes.length);
  }
  Object.defineProperties(Tensor.prototype, {
    // Half tensors give their values as a Float32Array (a copy: every half is exact in
    // float32); rawData has the stored bits.
    data: {get: function() {
      var raw = this._live('data')._data;
      if (this._dtype.name !== 'Half') return raw;
      var values = new Float32Array(raw.length);
      for (var i = 0; i < raw.length; i++) values[i] = Half.fromHalfBits(raw[i]);
      return values;
    }},
    rawData: {get: function() { return this._live('rawData')._data; }},
    sizes: {get: function() { return this._live('sizes')._sizes.slice(); }},
    shape: {get: function() { return this._live('shape')._sizes.slice(); }},
    dimOrder: {get: function() { return this._dimOrder.slice(); }},
    strides: {get: function() { return Half.stridesOf(this._sizes, this._dimOrder); }},
    scalarType: {get: function() { return this._dtype.member; }},
    dtype: {get: function() { return this._dtype.member; }},
    numel: {get: function() { return this._sizes.reduce(function(a, b) { return a * b; }, 1); }},
    nbytes: {get: function() { return this.numel * this._dtype.bytes; }},
  });
  Tensor.prototype._live = function(what) {
    if (!this._data) throw new Error('Tensor.' + what + ': the tensor was deleted');
    return this;
  };
  Tensor.prototype.delete = function() { this._data = null; };
  Tensor.prototype.isDeleted = function() { return !this._data; };
  Tensor.prototype.toString = function() {
    return 'Tensor(' + this._dtype.name + ', [' + this._sizes.join(', ') + '])';
  };

  // The dtype a typed array holds, or a TypeError for those that match none (a
  // Uint16Array could be raw half bits or integers: say which with a dtype).
  function dtypeOfArray(data, where) {
    if (data instanceof BigInt64Array) return 4;
    if (data instanceof Float32Array) return 6;
    if (data instanceof Float64Array) return 7;
    if (data instanceof Int32Array) return 3;
    if (data instanceof Int16Array) return 2;
    if (data instanceof Int8Array) return 1;
    if (data instanceof Uint8Array && !(data instanceof Uint8ClampedArray)) return 0;
    if (typeof Float16Array === 'function' && data instanceof Float16Array) return 5;
    if (data instanceof Uint16Array) {
      throw new TypeError(where + ': a Uint16Array has no dtype of its own: pass dtype ' +
                          "'float16' (ScalarType.Half) if it holds half-precision bits");
    }
    throw new TypeError(where + ': a ' + data.constructor.name + ' has no matching dtype; pass a dtype ' +
                        '(ScalarType.Byte, Char, Short, Int, Long, Half, Float, Double or Bool)');
  }

  // data: an array (numbers, BigInts or booleans) or a typed array, at least numel long,
  // in the memory order that dimOrder (or strides) give; contiguous when both are
  // omitted. For Half, numbers are rounded to the nearest half; a Uint16Array is taken
  // as the half bits themselves.
  Tensor.fromArray = function(sizes, data, dtype, dimOrder, strides) {
    var where = 'Tensor.fromArray';
    var n = checkSizes(sizes, where);
    if (data === null || data === undefined || typeof data.length !== 'number' || typeof data === 'string') {
      throw new TypeError(where + ': data must be an array or a typed array, not ' + describe(data));
    }
    if (dtype === undefined || dtype === null) {
      if (ArrayBuffer.isView(data)) {
        dtype = dtypeOfArray(data, where);
      } else {
        dtype = data.length > 0 && typeof data[0] === 'bigint' ? 4
              : data.length > 0 && typeof data[0] === 'boolean' ? 11 : 6;
      }
    }
    var d = dtypeInfo(dtype, where);
    var order = Half.dimOrderOf(sizes, dimOrder, strides, where);
    if (data.length < n) {
      throw new Error(where + ': required ' + n + ' elements, given ' + data.length);
    }
    var out = new d.array(n);
    var i;
    if (d.array === BigInt64Array) {
      for (i = 0; i < n; i++) out[i] = typeof data[i] === 'bigint' ? data[i] : BigInt(data[i]);
    } else if (d.name === 'Half' && !(data instanceof Uint16Array)) {
      for (i = 0; i < n; i++) out[i] = Half.toHalfBits(Number(data[i]));
    } else if (data instanceof BigInt64Array || (n > 0 && typeof data[0] === 'bigint')) {
      for (i = 0; i < n; i++) out[i] = Number(data[i]);
    } else if (ArrayBuffer.isView(data)) {
      out.set(data.subarray(0, n));
    } else {
      for (i = 0; i < n; i++) out[i] = Number(data[i]);
    }
    return new Tensor(d, sizes, out, order);
  };
  Tensor.fromIter = function(sizes, iterable, dtype, dimOrder, strides) {
    return Tensor.fromArray(sizes, Array.from(iterable), dtype === undefined ? 6 : dtype, dimOrder, strides);
  };
  Tensor.zeros = function(sizes, dtype) {
    var d = dtypeInfo(dtype, 'Tensor.zeros');
    return new Tensor(d, sizes, new d.array(checkSizes(sizes, 'Tensor.zeros')));
  };
  Tensor.ones = function(sizes, dtype) {
    var d = dtypeInfo(dtype, 'Tensor.ones');
    return new Tensor(d, sizes, fill(d, checkSizes(sizes, 'Tensor.ones'), 1));
  };
  Tensor.full = function(sizes, value, dtype) {
    if (dtype === undefined) dtype = typeof value === 'bigint' ? 4 : typeof value === 'boolean' ? 11 : 6;
    var d = dtypeInfo(dtype, 'Tensor.full');
    return new Tensor(d, sizes, fill(d, checkSizes(sizes, 'Tensor.full'), value));
  };

  // ----- calls into C++ (runtime_calls.js: the queue, direct calls, coded errors) -----

  var Calls = WickCalls;
  var error = Calls.error;

  function json(ptr, where) {
    if (!ptr) throw Calls.runtimeError(where);
    return JSON.parse(UTF8ToString(ptr));
  }

  // fn(value), or when value is a Promise, a Promise of it: a job's steps run at once when
  // nothing suspended, so that a synchronous call stays synchronous.
  function andThen(value, fn) {
    return value && typeof value.then === 'function' ? value.then(fn) : fn(value);
  }

  // Errors that JavaScript code throws (TypeErrors for bad arguments) get a code too.
  function coded(e, fallback) {
    return Calls.withCode(e, e instanceof TypeError || e instanceof RangeError ? 'InvalidArgument' : fallback || 'Internal');
  }

  // ----- WebGPU -----

  var gpuState = null;  // {adapter, features, limits} once initialised

  // Opens the device; inside a job. In Node, without a GPU object given, the package
  // entry's findGpu hook (package/index.mjs) offers Dawn's binding, npm 'webgpu'.
  function findGpu() {
    var noNavigatorGpu = typeof navigator === 'undefined' || !navigator.gpu;
    var found = !Module.gpu && noNavigatorGpu && typeof Module.findGpu === 'function'
              ? Promise.resolve(Module.findGpu()) : Promise.resolve(null);
    return found.then(function(gpu) { if (gpu) Module.gpu = gpu; });
  }
  function openGpu(where) {
    // The threaded bundle (wick-threads.js) is built without Asyncify, which WebGPU's
    // waits need (cmake/wasm.cmake): it runs the delegates on the CPU only.
    if (Module.wickCpuOnly) {
      var why = Module.wickThreading && Module.wickThreading.reason;
      return Promise.reject(error(where, 'WebGPU is not in the threaded bundle (wick-threads.js), which runs on the ' +
                                  'CPU only' + (why ? ', chosen for ' + why : '') +
                                  '; createExecuTorch({threads: 1}) loads wick.js, which has it', 'NotSupported'));
    }
    return findGpu().then(function() {
      return Calls.callInJob(where, 'wick_init_webgpu', [f16Weights(where)]);
    }).then(function(ok) {
      if (!ok) throw Calls.runtimeError(where);
      var info = json(Calls.callNow(where, 'wick_device_json', []), where);
      gpuState = info;
      return info;
    });
  }

  // Module.f16Weights (createExecuTorch({f16Weights}), a Wick extension; off by default):
  // the WebGPU delegate stores linear weights as f16 (webgpu::BackendOptions::f16_weights),
  // and computes in f16 where the adapter has shader-f16. 1 or 0 for the C API.
  function f16Weights(where) {
    var v = Module.f16Weights;
    if (v === undefined || v === null || v === false) return 0;
    if (v === true) return 1;
    throw error(where, 'f16Weights must be true or false, not ' + describe(v), 'InvalidArgument');
  }

  function initWebGPU(options) {
    options = options || {};
    return Calls.runExclusive(function() {
      if (options.gpu) Module.gpu = options.gpu;
      return openGpu('initWebGPU');
    });
  }

  // Who runs "VulkanBackend" delegates (wick_vulkan_target): 0 not chosen, 1 WebGPU, 2 the
  // CPU executor of VK00 graphs. Chosen at the first method that has them, from
  // Module.backend (createExecuTorch({backend}) or a page's `var Module = {backend}`):
  // 'auto' (the default: WebGPU when an adapter opens, else the CPU, so a browser or a Node
  // without WebGPU still runs delegated programs), 'webgpu' (fails without an adapter) or 'cpu'.
  var TARGET_NAMES = ['', 'webgpu', 'cpu'];
  var PREFERENCES = {auto: 0, webgpu: 1, cpu: 2};
  function vulkanTarget() {
    return typeof Module._wick_vulkan_target === 'function' ? Module._wick_vulkan_target() : gpuState ? 1 : 0;
  }
  function preference(where) {
    var wanted = Module.backend === undefined || Module.backend === null ? 'auto' : Module.backend;
    if (!Object.prototype.hasOwnProperty.call(PREFERENCES, wanted)) {
      throw error(where, "backend must be 'webgpu', 'cpu' or 'auto', not " + describe(wanted), 'InvalidArgument');
    }
    // The threaded bundle's 'auto' is the CPU: it has no WebGPU to try (openGpu).
    if (Module.wickCpuOnly && wanted === 'auto') return 'cpu';
    return wanted;
  }

  // Before loading a method that has "VulkanBackend" delegates: serves them as
  // Module.backend says, unless done. Inside a job.
  function ensureDelegates(where) {
    if (vulkanTarget()) return Promise.resolve();
    var wanted = preference(where);
    if (wanted === 'webgpu') {
      return openGpu(where).then(function() {}, function(e) {
        throw error(where, 'the method has WebGPU (VulkanBackend) parts, and WebGPU did not start: ' +
                    e.message.replace(/^[^:]*: /, ''), e.code || 'NotFound');
      });
    }
    return (wanted === 'auto' ? findGpu() : Promise.resolve()).then(function() {
      return Calls.callInJob(where, 'wick_use_backend', [PREFERENCES[wanted], f16Weights(where)]);
    }).then(function(t) {
      if (!t) throw Calls.runtimeError(where);
      if (t === 1) gpuState = json(Calls.callNow(where, 'wick_device_json', []), where);
    });
  }

  // Whether running the method waits on the GPU: it has "VulkanBackend" delegates and
  // they run on WebGPU (or who runs them is not chosen yet). Such a method runs
  // asynchronously; any other runs synchronously when the runtime is idle, as in
  // ExecuTorch's CPU build, and so do Vulkan-lowered ones once the CPU executor of VK00
  // graphs serves them (wick_vulkan_target() == 2: backend 'cpu', or 'auto' without an
  // adapter). With Module.backend 'cpu', the choice is made right here (it never waits).
  function needsGpu(meta) {
    if (meta.backends.indexOf('VulkanBackend') < 0) return false;
    var target = vulkanTarget();
    if (!target && Module.backend === 'cpu' && Calls.idle()) {
      target = Calls.runNow(function() { return Calls.callNow('Module.backend', 'wick_use_backend', [2, 0]); });
    }
    return target !== 2;
  }

  // ----- results -----

  // A synchronous call's outputs: an Array, as ExecuTorch's CPU build returns, that is
  // also a thenable, so that code written for Wick's Promises (await, .then) works alike.
  function syncResult(values) {
    var settled = Promise.resolve(values.slice());
    Object.defineProperties(values, {
      then: {value: function(ok, fail) { return settled.then(ok, fail); }},
      catch: {value: function(fail) { return settled.catch(fail); }},
      finally: {value: function(fn) { return settled.finally(fn); }},
    });
    return values;
  }

  // An asynchronous call's Promise, which says what to do when it is used as the value it
  // stands for (output[0].data without await: a page written for a synchronous API).
  function asyncResult(promise, where, why) {
    if (typeof Proxy !== 'function') return promise;
    var message = where + ' returned a Promise, not its outputs: ' +
        (why === 'gpu' ? 'the method runs on WebGPU, which answers asynchronously'
                       : 'an earlier call (a load or a run) was still running, so this one waits behind it') +
        '. Write `const outputs = await module.forward(inputs)` (or use .then); pages written for ' +
        "ExecuTorch's synchronous CPU build: see 'Synchronous calls' in Wick's docs/web.md";
    return new Proxy(promise, {
      get: function(target, key) {
        if (key === 'then' || key === 'catch' || key === 'finally') return target[key].bind(target);
        if (key === Symbol.iterator || key === 'length' || key === 'data' ||
            (typeof key === 'string' && /^\d+$/.test(key))) {
          throw Calls.withCode(new TypeError(message), 'AsyncResult');
        }
        var value = target[key];
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }

  // ----- Module -----

  // Emscripten's FS errors carry only its errno numbers (struct_info.json).
  var ERRNO = {2: 'permission denied', 31: 'is a directory', 32: 'too many symbolic links',
               37: 'file name too long', 44: 'no such file or directory', 54: 'not a directory',
               63: 'operation not permitted'};

  function toBytes(data, name, where) {
    if (data === null || data === undefined) throw error(where, 'data cannot be null or undefined', 'InvalidArgument', TypeError);
    if (typeof data === 'string') {
      try {
        return {bytes: FS.readFile(data), name: name || data};
      } catch (e) {
        var why = ERRNO[e.errno] || e.code || (e.errno !== undefined ? 'errno ' + e.errno : e.message);
        throw error(where, "cannot read '" + data + "' from et.FS: " + why, 'AccessFailed');
      }
    }
    var bytes;
    if (data instanceof ArrayBuffer) bytes = new Uint8Array(data);
    else if (ArrayBuffer.isView(data)) bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    else throw error(where, 'unsupported data type: ' + typeof data, 'InvalidArgument', TypeError);
    // A copy, as ExecuTorch keeps: the caller may reuse or transfer its buffer.
    return {bytes: bytes.slice(), name: name || '<bytes: ' + bytes.length + ' B>'};
  }

  // A copy of bytes on the wasm heap (the caller frees it).
  function heapCopy(bytes) {
    var ptr = _malloc(Math.max(bytes.length, 1));
    if (!ptr) throw error('wasm', 'out of memory for ' + bytes.length + ' bytes', 'MemoryAllocationFailed');
    HEAPU8.set(bytes, ptr);
    return ptr;
  }

  function withHeapCopy(bytes, fn) {
    var ptr = heapCopy(bytes);
    try {
      return fn(ptr);
    } finally {
      _free(ptr);
    }
  }

  // As ExecuTorch's, loading is lazy: Module.load keeps the bytes, and the program is
  // parsed at its first use (getMethods, getMethodMeta, loadMethod, forward, execute),
  // where a bad file throws, again at every use. So a page's own error path around
  // loadMethod shows it.
  function EtModule(src) {
    this._bytes = src.bytes;   // until parsed
    this._readError = src.error || null;
    this._name = src.name;
    this._handle = 0;
    this._parseError = null;   // {text}: why the program does not parse
    this._deleted = false;
    this._metas = {};          // method name -> wick_method_meta's answer
    this._methods = {};        // method name -> {handle} once loaded, or {loading: Promise}
  }

  // data: a path in the Emscripten FS, a Uint8Array or an ArrayBuffer (copied). name (or
  // {name}): what errors call it; by default the path, or '<bytes: N B>'.
  EtModule.load = function(data, name) {
    var where = 'Module.load';
    if (name && typeof name === 'object') name = name.name;
    if (name !== undefined && name !== null && typeof name !== 'string') {
      throw error(where, 'name must be a string, not ' + describe(name), 'InvalidArgument', TypeError);
    }
    if (typeof data === 'string') {
      try {
        return new EtModule(toBytes(data, name, where));
      } catch (e) {
        return new EtModule({name: name || data, error: e});  // thrown at first use
      }
    }
    return new EtModule(toBytes(data, name, where));
  };

  EtModule.prototype._live = function(where) {
    if (this._deleted) throw error(where, 'the module was deleted', 'InvalidState');
  };

  // The program's handle, parsed now if it was not: never suspends, so it may run while a
  // job is suspended.
  EtModule.prototype._program = function(where) {
    this._live(where);
    if (this._handle) return this._handle;
    if (this._readError) {
      throw error(where, this._readError.message.replace(/^[^:]*: /, ''), this._readError.code);
    }
    if (!this._parseError) {
      var self = this;
      var bytes = this._bytes;
      var handle = withHeapCopy(bytes, function(ptr) {
        return Calls.withCString(self._name, function(namePtr) {
          return Calls.callNow(where, 'wick_program_load', [ptr, bytes.length, namePtr]);
        });
      });
      this._bytes = null;
      if (handle) return (this._handle = handle);
      this._parseError = {text: Calls.lastError()};
    }
    var m = /^([A-Za-z]+): /.exec(this._parseError.text);
    throw error(where, this._parseError.text, m ? m[1] : 'InvalidProgram');
  };

  EtModule.prototype.getMethods = function() {
    var where = 'Module.getMethods';
    return json(Calls.callNow(where, 'wick_program_method_names', [this._program(where)]), where);
  };
  Object.defineProperty(EtModule.prototype, 'methodNames', {get: function() { return this.getMethods(); }});

  // wick_method_meta's answer for the method (cached: a program does not change).
  EtModule.prototype._meta = function(name, where) {
    var handle = this._program(where);
    if (!Object.prototype.hasOwnProperty.call(this._metas, name)) {
      this._metas[name] = json(Calls.withCString(name, function(p) {
        return Calls.callNow(where, 'wick_method_meta', [handle, p]);
      }), where);
    }
    return this._metas[name];
  };

  function tensorInfo(t, name) {
    if (!t) return undefined;
    var d = byWickName[t.dtype];
    var n = t.sizes.reduce(function(a, b) { return a * b; }, 1);
    return {sizes: t.sizes.slice(), dimOrder: t.dimOrder.slice(), scalarType: d ? d.member : undefined,
            dtype: t.dtype, isMemoryPlanned: t.isMemoryPlanned, dynamic: t.dynamic,
            nbytes: d ? n * d.bytes : 0, name: name || ''};
  }

  EtModule.prototype.getMethodMeta = function(name) {
    var where = "Module.getMethodMeta('" + name + "')";
    var m = this._meta(String(name), where);
    return {
      name: m.name,
      inputTags: m.inputs.map(function(v) { return Tag[TAG_OF[v.tag]]; }),
      inputTensorMeta: m.inputs.map(function(v) { return tensorInfo(v.tensor); }),
      outputTags: m.outputs.map(function(v) { return Tag[TAG_OF[v.tag]]; }),
      outputTensorMeta: m.outputs.map(function(v) { return tensorInfo(v.tensor); }),
      attributeTensorMeta: [],
      memoryPlannedBufferSizes: m.memoryPlannedBufferSizes.map(function(x) { return BigInt(x); }),
      backends: m.backends.slice(),
      operators: m.operators.slice(),
      numInstructions: m.numInstructions,
      runsOnGpu: needsGpu(m),
    };
  };

  // Loads the method inside a job: its handle, or a Promise of it when loading suspended.
  EtModule.prototype._loadInJob = function(name, where) {
    var handle = this._program(where);
    return andThen(Calls.withCString(name, function(p) {
      return Calls.callInJob(where, 'wick_method_load', [handle, p]);
    }), function(h) {
      if (!h) throw Calls.runtimeError(where);
      return h;
    });
  };

  // The method's handle: a number when it is loaded or could be loaded at once (no GPU,
  // runtime idle), else a Promise of it. Errors of a load done at once are thrown.
  EtModule.prototype._method = function(name, where, meta) {
    var slot = this._methods[name];
    if (slot) return slot.handle || slot.loading;
    var self = this;
    var gpu = needsGpu(meta);
    var loaded;
    if (!gpu && Calls.idle()) {
      loaded = Calls.runNow(function() { return self._loadInJob(name, where); });
      if (typeof loaded === 'number') {
        this._methods[name] = {handle: loaded};
        return loaded;
      }
    } else {
      loaded = Calls.runExclusive(function() {
        self._live(where);
        return andThen(gpu ? ensureDelegates(where) : undefined, function() { return self._loadInJob(name, where); });
      });
    }
    slot = {};
    slot.loading = loaded.then(function(h) {
      if (self._deleted) {  // deleted while loading: the method goes too
        Calls.runExclusive(function() { Calls.callNow(where, 'wick_method_free', [h]); });
        throw error(where, 'the module was deleted', 'InvalidState');
      }
      slot.handle = h;
      return h;
    }, function(e) {
      if (self._methods[name] === slot) delete self._methods[name];  // a failed load may be retried
      throw e;
    });
    this._methods[name] = slot;
    return slot.loading;
  };

  // Without a GPU round trip and with the runtime idle, loads at once (errors thrown, as
  // in ExecuTorch); otherwise returns a Promise. A program that does not parse or has no
  // such method throws either way.
  EtModule.prototype.loadMethod = function(name) {
    name = String(name);
    var where = "Module.loadMethod('" + name + "')";
    var h = this._method(name, where, this._meta(name, where));
    return typeof h === 'number' ? Promise.resolve() : h.then(function() {});
  };

  // A tensor in another dim order than contiguous is rearranged into it: the runtime reads
  // every input as contiguous in its logical sizes (the delegates do, and the CPU kernels
  // refuse any other order), whatever dim order the program declares for it. A program
  // exported from a permuted example tensor declares a permuted order (SAM 2.1's decoder:
  // [2, 0, 3, 1]) and still reads the values contiguous, as ExecuTorch's runtime does.
  function setInput(h, i, value, where, held) {
    var ok;
    if (value === undefined) throw error(where, 'input ' + i + ' is undefined', 'InvalidArgument', TypeError);
    if (value instanceof Tensor) {
      if (value.isDeleted()) throw error(where, 'input ' + i + ' is a deleted tensor', 'InvalidArgument');
      var t = value;
      var data = t._data;
      var want = Half.identity(t._sizes.length);
      if (!Half.sameOrder(t._dimOrder, want)) data = Half.permute(data, t._sizes, t._dimOrder, want);
      var bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      var sizes = new Int32Array(t._sizes);
      // The heap copy stays until the run is over (held): the method reads it there, lent to
      // a delegate or copied in, instead of taking a second copy now.
      var ptr = heapCopy(bytes);
      held.push(ptr);
      var sizesPtr = _malloc(Math.max(sizes.byteLength, 4));
      try {
        HEAP32.set(sizes, sizesPtr >> 2);
        ok = Calls.callNow(where, 'wick_method_set_tensor',
                           [h, i, t._dtype.value, sizesPtr, sizes.length, ptr, bytes.length]);
      } finally {
        _free(sizesPtr);
      }
    } else if (value === null) {
      ok = Calls.callNow(where, 'wick_method_set_scalar', [h, i, 0, 0, 0, 0]);
    } else if (typeof value === 'bigint') {
      var u = BigInt.asUintN(64, value);
      ok = Calls.callNow(where, 'wick_method_set_scalar', [h, i, 1, 0, Number(u & BigInt(0xffffffff)),
                                                           Number(BigInt.asIntN(32, u >> BigInt(32)))]);
    } else if (typeof value === 'number') {
      ok = Calls.callNow(where, 'wick_method_set_scalar', [h, i, 2, value, 0, 0]);
    } else if (typeof value === 'boolean') {
      ok = Calls.callNow(where, 'wick_method_set_scalar', [h, i, 3, value ? 1 : 0, 0, 0]);
    } else if (typeof value === 'object') {
      throw error(where, 'input ' + i + ' is not a Tensor: ' + describe(value), 'InvalidArgument');
    } else {
      throw error(where, 'input ' + i + ': unsupported JavaScript type ' + typeof value, 'InvalidArgument', TypeError);
    }
    if (!ok) throw Calls.runtimeError(where);
  }

  function readOutput(h, i, where) {
    var o = json(Calls.callNow(where, 'wick_method_output', [h, i]), where);
    switch (o.tag) {
      case 'Tensor': {
        var d = byValue[o.scalarType];
        if (!d) throw error(where, 'output ' + i + ' has dtype ' + o.dtype + ', which JavaScript cannot hold', 'InvalidType');
        var n = o.sizes.reduce(function(a, b) { return a * b; }, 1);
        var ptr = Calls.callNow(where, 'wick_method_output_data', [h, i]);
        var copy = new d.array(n);
        if (n) copy.set(new d.array(HEAPU8.buffer, ptr, n));
        return new Tensor(d, o.sizes, copy);
      }
      case 'Int': return BigInt(o.value);
      case 'Double': return o.value;
      case 'Bool': return o.value;
      case 'None': return null;
    }
    throw error(where, 'output ' + i + ' is a ' + o.tag + ', which the API does not return', 'InvalidType', TypeError);
  }

  // Sets the inputs, runs and reads the outputs, inside a job: the outputs, or a Promise
  // of them when the run suspended. The inputs' heap copies are freed when the run is over.
  function runInJob(module, h, list, where) {
    module._live(where);
    var held = [];
    function release() {
      for (var j = 0; j < held.length; j++) _free(held[j]);
      held.length = 0;
    }
    var result;
    try {
      for (var i = 0; i < list.length; i++) setInput(h, i, list[i], where, held);
      result = andThen(Calls.callInJob(where, 'wick_method_execute', [h]), function(count) {
        if (count < 0) throw Calls.runtimeError(where);
        var outputs = [];
        for (var k = 0; k < count; k++) outputs.push(readOutput(h, k, where));
        return outputs;
      });
    } catch (e) {
      release();
      throw e;
    }
    if (result && typeof result.then === 'function') {
      return result.then(function(v) { release(); return v; }, function(e) { release(); throw e; });
    }
    release();
    return result;
  }

  // A method that needs no GPU runs synchronously when the runtime is idle, as in
  // ExecuTorch's CPU build: the outputs (an Array that is also a thenable), errors thrown.
  // Otherwise a Promise of the outputs, errors as rejections. Either way a program that
  // does not parse or has no such method throws at once, as in ExecuTorch.
  EtModule.prototype.execute = function(name, inputs) {
    name = String(name);
    var where = "Module.execute('" + name + "')";
    var self = this;
    var list = Array.isArray(inputs) ? inputs : inputs === undefined ? [] : [inputs];
    var meta = this._meta(name, where);
    function checkCount() {
      if (list.length !== meta.inputs.length) {
        throw error(where, 'expected ' + meta.inputs.length + ' input' + (meta.inputs.length === 1 ? '' : 's') +
                    ', got ' + list.length, 'InvalidArgument');
      }
    }
    var gpu = needsGpu(meta);
    if (!gpu && Calls.idle()) {
      checkCount();
      var h = this._method(name, where, meta);
      if (typeof h === 'number' && Calls.idle()) {
        var out = Calls.runNow(function() { return runInJob(self, h, list, where); });
        if (Array.isArray(out)) return syncResult(out);
        return asyncResult(out, where, 'busy');  // it suspended after all
      }
    }
    var result;
    try {
      checkCount();
      var handle = this._method(name, where, meta);
      result = Promise.resolve(handle).then(function(hh) {
        return Calls.runExclusive(function() { return runInJob(self, hh, list, where); });
      });
    } catch (e) {
      result = Promise.reject(e);
    }
    return asyncResult(result.catch(function(e) { throw coded(e); }), where, gpu ? 'gpu' : 'busy');
  };

  EtModule.prototype.forward = function(inputs) { return this.execute('forward', inputs); };

  // ExecuTorch's etdump() (built with its event tracer) returns the ETDump of the runs so
  // far. Wick has no event tracer to write one: said plainly, with a code.
  EtModule.prototype.etdump = function() {
    throw error('Module.etdump', 'not supported: Wick does not record an ETDump (ExecuTorch\'s event ' +
                'tracer format); per-op timings of a run: `wick run --profile model.pte` natively', 'NotSupported');
  };

  // Frees the program and its methods once no job that uses them can still be running.
  EtModule.prototype.delete = function() {
    if (this._deleted) return;
    var handle = this._handle;
    var methods = this._methods;
    this._deleted = true;
    this._handle = 0;
    this._bytes = null;
    this._methods = {};
    function free() {
      Object.keys(methods).forEach(function(k) {
        if (methods[k].handle) Calls.callNow('Module.delete', 'wick_method_free', [methods[k].handle]);
      });
      if (handle) Calls.callNow('Module.delete', 'wick_program_free', [handle]);
    }
    if (Calls.idle()) Calls.runNow(free);
    else Calls.runExclusive(free);
  };
  EtModule.prototype.isDeleted = function() { return this._deleted; };

  // Every public function's own errors (TypeErrors for bad arguments) get a code too.
  function codedSync(fn, fallback) {
    return function() {
      try {
        return fn.apply(this, arguments);
      } catch (e) {
        throw coded(e, fallback);
      }
    };
  }
  ['load'].forEach(function(k) { EtModule[k] = codedSync(EtModule[k]); });
  ['getMethods', 'getMethodMeta', 'loadMethod', 'execute', 'forward', 'etdump'].forEach(function(k) {
    EtModule.prototype[k] = codedSync(EtModule.prototype[k]);
  });
  ['fromArray', 'fromIter', 'zeros', 'ones', 'full'].forEach(function(k) {
    Tensor[k] = codedSync(Tensor[k], 'InvalidArgument');
  });

  return {Module: EtModule, Tensor: Tensor, ScalarType: ScalarType, Tag: Tag,
          initWebGPU: initWebGPU, gpu: function() { return gpuState; },
          delegateBackend: function() { return TARGET_NAMES[vulkanTarget()] || null; },
          ErrorCode: Calls.ERRORS,
          // For llm.js: its calls that may suspend join the one queue (one Asyncify stack),
          // and its programs' "VulkanBackend" delegates are served as Module's (in a job).
          runExclusive: Calls.runExclusive, serialized: Calls.runExclusive, ensureDelegates: ensureDelegates};
})();

Module['Module'] = WickApi.Module;
Module['Tensor'] = WickApi.Tensor;
Module['ScalarType'] = WickApi.ScalarType;
Module['Tag'] = WickApi.Tag;
Module['ErrorCode'] = WickApi.ErrorCode;
Module['initWebGPU'] = WickApi.initWebGPU;
Object.defineProperty(Module, 'webgpu', {get: WickApi.gpu});
// Who runs "VulkanBackend" delegates once chosen: 'webgpu' or 'cpu' (null before).
Object.defineProperty(Module, 'delegateBackend', {get: WickApi.delegateBackend});
// How the CPU kernels run (the CPU executor of VK00 graphs, and the parts outside
// delegates): {variant: 'single' (wick.js) or 'threads' (wick-threads.js), threads (the
// count in force, the caller's included), reason (why this variant: package/index.mjs),
// workerChunks (pieces of kernel work the pool's workers ran so far: 0 with one thread)}.
Object.defineProperty(Module, 'threading', {get: function() {
  var variant = Module.wickVariant || 'single';
  var chosen = Module.wickThreading || {};
  var threads = typeof Module._wick_cpu_threads === 'function' ? Module._wick_cpu_threads(0) : 1;
  var chunks = typeof Module._wick_cpu_worker_chunks === 'function' ? Module._wick_cpu_worker_chunks() : 0;
  return {variant: variant, threads: threads,
          reason: chosen.variant === variant && chosen.reason ? chosen.reason : 'loaded as ' + (variant === 'threads' ? 'wick-threads.js' : 'wick.js'),
          workerChunks: chunks};
}});
