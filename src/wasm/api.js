// Wick's JavaScript API, in the names of ExecuTorch's web bindings (see
// shared/spec/wasm_api.md): et.Module, et.Tensor, et.ScalarType, et.Tag, plus
// et.initWebGPU() (optional: a method with WebGPU delegates opens the device on first
// use). Linked with --post-js after tensor_data.js, so it runs inside the Emscripten
// factory and `Module` here is the object createExecuTorch() resolves to.
//
// What differs from ExecuTorch, and why:
//  - loadMethod, forward and execute return Promises: running on WebGPU waits on the
//    GPU, which the browser only allows asynchronously. They run one at a time, in call
//    order (a queue), so callers need not await each one before the next.
//  - Tensors hold their data in JavaScript memory: outputs stay valid after the next
//    call and after the heap grows. delete() drops the data and is optional.
//  - Errors are Error objects whose message says what failed and where, e.g.
//    "Module.execute('forward'): input 0: expected float32, got int64".

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

  // ----- calls into C++ -----

  function lastError() { return UTF8ToString(Module._wick_last_error()); }
  function failure(where) { return new Error(where + ': ' + lastError()); }
  function json(ptr, where) {
    if (!ptr) throw failure(where);
    return JSON.parse(UTF8ToString(ptr));
  }

  // The C API answers errors as values; should C++ still throw (Emscripten then throws
  // the exception's address, a bare number, into JavaScript), callers get an Error.
  function cxxError(where, e) {
    if (e instanceof Error) return e;
    return new Error(where + ': internal error: the runtime threw ' +
                     (typeof e === 'number' ? 'a C++ exception' : describe(e)) +
                     ' (a bug in Wick; load the program again)');
  }
  function guarded(where, fn) {
    try {
      return fn();
    } catch (e) {
      throw cxxError(where, e);
    }
  }

  // One GPU-waiting call at a time: Asyncify can suspend only one stack.
  var queue = Promise.resolve();
  function serialized(fn) {
    var run = queue.then(fn);
    queue = run.then(function() {}, function() {});
    return run;
  }
  function callAsync(where, name, argTypes, args) {
    return Promise.resolve().then(function() {
      return ccall(name, 'number', argTypes, args, {async: true});
    }).catch(function(e) { throw cxxError(where, e); });
  }

  // ----- WebGPU -----

  var gpuState = null;  // {adapter, features, limits} once initialised

  // Opens the device; runs inside the queue. In Node, without a GPU object given, the
  // package entry's findGpu hook (package/index.mjs) offers Dawn's binding, npm 'webgpu'.
  function openGpu(where) {
    var noNavigatorGpu = typeof navigator === 'undefined' || !navigator.gpu;
    var found = !Module.gpu && noNavigatorGpu && typeof Module.findGpu === 'function'
              ? Promise.resolve(Module.findGpu()) : Promise.resolve(null);
    return found.then(function(gpu) {
      if (gpu) Module.gpu = gpu;
      return callAsync(where, 'wick_init_webgpu', [], []);
    }).then(function(ok) {
      if (!ok) throw failure(where);
      var info = json(Module._wick_device_json(), where);
      gpuState = info;
      return info;
    });
  }

  function initWebGPU(options) {
    options = options || {};
    return serialized(function() {
      if (options.gpu) Module.gpu = options.gpu;
      return openGpu('initWebGPU');
    });
  }

  // Before loading a method that has WebGPU ("VulkanBackend") delegates: opens the
  // device unless initWebGPU did. Runs inside the queue.
  function gpuFor(module, name, where) {
    if (gpuState) return Promise.resolve();
    var meta;
    try {
      meta = json(guarded(where, function() {
        return ccall('wick_method_meta', 'number', ['number', 'string'], [module._handle, name]);
      }), where);
    } catch (e) {
      return Promise.resolve();  // wick_method_load reports it
    }
    if (meta.backends.indexOf('VulkanBackend') < 0) return Promise.resolve();
    return openGpu(where).then(function() {}, function(e) {
      throw new Error(where + ': the method has WebGPU (VulkanBackend) parts, and WebGPU did not start: ' +
                      e.message.replace(/^[^:]*: /, ''));
    });
  }

  // ----- Module -----

  // Emscripten's FS errors carry only its errno numbers (struct_info.json).
  var ERRNO = {2: 'permission denied', 31: 'is a directory', 32: 'too many symbolic links',
               37: 'file name too long', 44: 'no such file or directory', 54: 'not a directory',
               63: 'operation not permitted'};

  function toBytes(data, name, where) {
    if (data === null || data === undefined) throw new TypeError(where + ': data cannot be null or undefined');
    if (typeof data === 'string') {
      try {
        return {bytes: FS.readFile(data), name: name || data};
      } catch (e) {
        var why = ERRNO[e.errno] || e.code || (e.errno !== undefined ? 'errno ' + e.errno : e.message);
        throw new Error(where + ": cannot read '" + data + "' from et.FS: " + why);
      }
    }
    var bytes;
    if (data instanceof ArrayBuffer) bytes = new Uint8Array(data);
    else if (ArrayBuffer.isView(data)) bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    else throw new TypeError(where + ': unsupported data type: ' + typeof data);
    return {bytes: bytes, name: name || '<bytes: ' + bytes.length + ' B>'};
  }

  function withHeapCopy(bytes, fn) {
    var ptr = _malloc(Math.max(bytes.length, 1));
    if (!ptr) throw new Error('out of wasm memory for ' + bytes.length + ' bytes');
    try {
      HEAPU8.set(bytes, ptr);
      return fn(ptr);
    } finally {
      _free(ptr);
    }
  }

  function EtModule(handle, name) {
    this._handle = handle;
    this._name = name;
    this._methods = {};  // name -> Promise of a method handle
  }

  // data: a path in the Emscripten FS, a Uint8Array or an ArrayBuffer. Parses and
  // verifies the program now (a bad file throws here). name (or {name}): what errors
  // call it; by default the path, or '<bytes: N B>'.
  EtModule.load = function(data, name) {
    var where = 'Module.load';
    if (name && typeof name === 'object') name = name.name;
    if (name !== undefined && name !== null && typeof name !== 'string') {
      throw new TypeError(where + ': name must be a string, not ' + describe(name));
    }
    var src = toBytes(data, name, where);
    var handle = withHeapCopy(src.bytes, function(ptr) {
      return guarded(where, function() {
        return ccall('wick_program_load', 'number', ['number', 'number', 'string'],
                     [ptr, src.bytes.length, src.name]);
      });
    });
    if (!handle) throw failure(where);
    return new EtModule(handle, src.name);
  };

  EtModule.prototype._live = function(where) {
    if (!this._handle) throw new Error(where + ': the module was deleted');
  };

  EtModule.prototype.getMethods = function() {
    this._live('Module.getMethods');
    var self = this;
    return json(guarded('Module.getMethods', function() { return Module._wick_program_method_names(self._handle); }),
                'Module.getMethods');
  };
  Object.defineProperty(EtModule.prototype, 'methodNames', {get: function() { return this.getMethods(); }});

  function tensorInfo(t, name) {
    if (!t) return undefined;
    var d = byWickName[t.dtype];
    var n = t.sizes.reduce(function(a, b) { return a * b; }, 1);
    return {sizes: t.sizes, dimOrder: t.dimOrder, scalarType: d ? d.member : undefined,
            dtype: t.dtype, isMemoryPlanned: t.isMemoryPlanned, dynamic: t.dynamic,
            nbytes: d ? n * d.bytes : 0, name: name || ''};
  }

  EtModule.prototype.getMethodMeta = function(name) {
    var where = "Module.getMethodMeta('" + name + "')";
    this._live(where);
    var self = this;
    var m = json(guarded(where, function() {
      return ccall('wick_method_meta', 'number', ['number', 'string'], [self._handle, String(name)]);
    }), where);
    return {
      name: m.name,
      inputTags: m.inputs.map(function(v) { return Tag[TAG_OF[v.tag]]; }),
      inputTensorMeta: m.inputs.map(function(v) { return tensorInfo(v.tensor); }),
      outputTags: m.outputs.map(function(v) { return Tag[TAG_OF[v.tag]]; }),
      outputTensorMeta: m.outputs.map(function(v) { return tensorInfo(v.tensor); }),
      attributeTensorMeta: [],
      memoryPlannedBufferSizes: m.memoryPlannedBufferSizes.map(function(x) { return BigInt(x); }),
      backends: m.backends,
      operators: m.operators,
      numInstructions: m.numInstructions,
    };
  };

  // Loads (once) and returns a Promise of the method's handle.
  EtModule.prototype._method = function(name, where) {
    this._live(where);
    var self = this;
    if (!this._methods[name]) {
      var loading = serialized(function() {
        self._live(where);
        return gpuFor(self, name, where).then(function() {
          return callAsync(where, 'wick_method_load', ['number', 'string'], [self._handle, name]);
        }).then(function(h) {
          if (!h) throw failure(where);
          return h;
        });
      });
      // A failed load may be retried (e.g. after initWebGPU).
      loading.catch(function() { if (self._methods[name] === loading) delete self._methods[name]; });
      this._methods[name] = loading;
    }
    return this._methods[name];
  };

  EtModule.prototype.loadMethod = function(name) {
    var where = "Module.loadMethod('" + name + "')";
    return this._method(String(name), where).then(function() {});
  };

  // expected: the input's TensorInfo from the method's meta (its dimOrder is the layout
  // the program reads; a tensor in another dim order is rearranged into it).
  function setInput(h, i, value, expected, where) {
    var ok;
    if (value === undefined) throw new TypeError(where + ': input ' + i + ' is undefined');
    if (value instanceof Tensor) {
      if (value.isDeleted()) throw new Error(where + ': input ' + i + ' is a deleted tensor');
      var t = value;
      var data = t._data;
      var want = expected && expected.dimOrder && expected.dimOrder.length === t._sizes.length
               ? expected.dimOrder : Half.identity(t._sizes.length);
      if (!Half.sameOrder(t._dimOrder, want)) data = Half.permute(data, t._sizes, t._dimOrder, want);
      var bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      var sizes = new Int32Array(t._sizes);
      var sizesPtr = _malloc(Math.max(sizes.byteLength, 4));
      try {
        HEAP32.set(sizes, sizesPtr >> 2);
        ok = withHeapCopy(bytes, function(ptr) {
          return Module._wick_method_set_tensor(h, i, t._dtype.value, sizesPtr, sizes.length, ptr, bytes.length);
        });
      } finally {
        _free(sizesPtr);
      }
    } else if (value === null) {
      ok = Module._wick_method_set_scalar(h, i, 0, 0, 0, 0);
    } else if (typeof value === 'bigint') {
      var u = BigInt.asUintN(64, value);
      ok = Module._wick_method_set_scalar(h, i, 1, 0, Number(u & BigInt(0xffffffff)),
                                          Number(BigInt.asIntN(32, u >> BigInt(32))));
    } else if (typeof value === 'number') {
      ok = Module._wick_method_set_scalar(h, i, 2, value, 0, 0);
    } else if (typeof value === 'boolean') {
      ok = Module._wick_method_set_scalar(h, i, 3, value ? 1 : 0, 0, 0);
    } else if (typeof value === 'object') {
      throw new Error(where + ': input ' + i + ' is not a Tensor: ' + describe(value));
    } else {
      throw new TypeError(where + ': input ' + i + ': unsupported JavaScript type ' + typeof value);
    }
    if (!ok) throw failure(where);
  }

  function readOutput(h, i, where) {
    var o = json(Module._wick_method_output(h, i), where);
    switch (o.tag) {
      case 'Tensor': {
        var d = byValue[o.scalarType];
        if (!d) throw new Error(where + ': output ' + i + ' has dtype ' + o.dtype + ', which JavaScript cannot hold');
        var n = o.sizes.reduce(function(a, b) { return a * b; }, 1);
        var ptr = Module._wick_method_output_data(h, i);
        var copy = new d.array(n);
        if (n) copy.set(new d.array(HEAPU8.buffer, ptr, n));
        return new Tensor(d, o.sizes, copy);
      }
      case 'Int': return BigInt(o.value);
      case 'Double': return o.value;
      case 'Bool': return o.value;
      case 'None': return null;
    }
    throw new TypeError(where + ': output ' + i + ' is a ' + o.tag + ', which the API does not return');
  }

  EtModule.prototype.execute = function(name, inputs) {
    name = String(name);
    var where = "Module.execute('" + name + "')";
    var self = this;
    var list = Array.isArray(inputs) ? inputs : inputs === undefined ? [] : [inputs];
    var meta;
    try {
      meta = this.getMethodMeta(name);
    } catch (e) {
      return Promise.reject(new Error(where + ': ' + e.message.replace(/^[^:]*\): /, '')));
    }
    if (list.length !== meta.inputTags.length) {
      return Promise.reject(new Error(where + ': expected ' + meta.inputTags.length + ' input' +
                                      (meta.inputTags.length === 1 ? '' : 's') + ', got ' + list.length));
    }
    return this._method(name, where).then(function(h) {
      return serialized(function() {
        self._live(where);
        guarded(where, function() {
          for (var i = 0; i < list.length; i++) setInput(h, i, list[i], meta.inputTensorMeta[i], where);
        });
        return callAsync(where, 'wick_method_execute', ['number'], [h]).then(function(count) {
          if (count < 0) throw failure(where);
          var outputs = [];
          guarded(where, function() {
            for (var k = 0; k < count; k++) outputs.push(readOutput(h, k, where));
          });
          return outputs;
        });
      });
    });
  };

  EtModule.prototype.forward = function(inputs) { return this.execute('forward', inputs); };

  EtModule.prototype.delete = function() {
    if (!this._handle) return;
    var handle = this._handle;
    var methods = this._methods;
    this._handle = 0;
    this._methods = {};
    Object.keys(methods).forEach(function(k) {
      methods[k].then(function(h) { Module._wick_method_free(h); }, function() {});
    });
    serialized(function() { Module._wick_program_free(handle); });
  };
  EtModule.prototype.isDeleted = function() { return !this._handle; };

  return {Module: EtModule, Tensor: Tensor, ScalarType: ScalarType, Tag: Tag,
          initWebGPU: initWebGPU, gpu: function() { return gpuState; }};
})();

Module['Module'] = WickApi.Module;
Module['Tensor'] = WickApi.Tensor;
Module['ScalarType'] = WickApi.ScalarType;
Module['Tag'] = WickApi.Tag;
Module['initWebGPU'] = WickApi.initWebGPU;
Object.defineProperty(Module, 'webgpu', {get: WickApi.gpu});
