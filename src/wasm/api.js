// Wick's JavaScript API, in the names of ExecuTorch's web bindings (see
// shared/spec/wasm_api.md): et.Module, et.Tensor, et.ScalarType, et.Tag, plus
// et.initWebGPU(). Linked with --post-js, so it runs inside the Emscripten factory and
// `Module` here is the object createExecuTorch() resolves to.
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
    {name: 'Half', value: 5, wick: 'float16', bytes: 2, array: Uint16Array},  // raw bits
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
  Object.freeze(ScalarType);

  var TAG_NAMES = ['None', 'Tensor', 'String', 'Double', 'Int', 'Bool', 'ListBool',
                   'ListDouble', 'ListInt', 'ListTensor', 'ListScalar', 'ListOptionalTensor'];
  var Tag = {};
  TAG_NAMES.forEach(function(name, value) { Tag[name] = Object.freeze({name: name, value: value}); });
  Object.freeze(Tag);
  // Wick's tag names (runtime/value.cpp) -> ExecuTorch's.
  var TAG_OF = {None: 'None', Tensor: 'Tensor', String: 'String', Double: 'Double', Int: 'Int',
                Bool: 'Bool', BoolList: 'ListBool', DoubleList: 'ListDouble', IntList: 'ListInt',
                TensorList: 'ListTensor', OptionalTensorList: 'ListOptionalTensor'};

  function dtypeInfo(dtype, where) {
    if (dtype === undefined || dtype === null) return byValue[6];
    var value = typeof dtype === 'object' ? dtype.value : dtype;
    var d = typeof value === 'string' ? byWickName[value] || ScalarType[value] && byValue[ScalarType[value].value]
                                      : byValue[value];
    if (!d) throw new TypeError(where + ': unsupported dtype ' + JSON.stringify(dtype));
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

  function fill(d, n, value, where) {
    var data = new d.array(n);
    if (d.array === BigInt64Array) {
      data.fill(typeof value === 'bigint' ? value : BigInt(value));
    } else if (typeof value === 'bigint' || typeof value === 'boolean') {
      data.fill(Number(value));
    } else {
      data.fill(value);
    }
    return data;
  }

  // ----- Tensor -----

  function Tensor(dtype, sizes, data) {
    this._dtype = dtype;  // a DTYPES entry
    this._sizes = sizes.slice();
    this._data = data;
  }
  Object.defineProperties(Tensor.prototype, {
    data: {get: function() { return this._live('data')._data; }},
    sizes: {get: function() { return this._live('sizes')._sizes.slice(); }},
    shape: {get: function() { return this._live('shape')._sizes.slice(); }},
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

  // data: an array (numbers, BigInts or booleans) or a typed array, at least numel long.
  Tensor.fromArray = function(sizes, data, dtype) {
    var where = 'Tensor.fromArray';
    var n = checkSizes(sizes, where);
    if (data === null || data === undefined || typeof data.length !== 'number') {
      throw new TypeError(where + ': data must be an array or a typed array');
    }
    if (dtype === undefined) {
      if (ArrayBuffer.isView(data)) {
        dtype = data instanceof BigInt64Array ? 4 : data instanceof Int32Array ? 3
              : data instanceof Float64Array ? 7 : data instanceof Uint8Array ? 0
              : data instanceof Int8Array ? 1 : data instanceof Int16Array ? 2 : 6;
      } else {
        dtype = data.length > 0 && typeof data[0] === 'bigint' ? 4
              : data.length > 0 && typeof data[0] === 'boolean' ? 11 : 6;
      }
    }
    var d = dtypeInfo(dtype, where);
    if (data.length < n) {
      throw new Error(where + ': required ' + n + ' elements, given ' + data.length);
    }
    var out = new d.array(n);
    if (d.array === BigInt64Array) {
      for (var i = 0; i < n; i++) out[i] = typeof data[i] === 'bigint' ? data[i] : BigInt(data[i]);
    } else if (data instanceof BigInt64Array || (n > 0 && typeof data[0] === 'bigint')) {
      for (var j = 0; j < n; j++) out[j] = Number(data[j]);
    } else if (ArrayBuffer.isView(data)) {
      out.set(data.subarray(0, n));
    } else {
      for (var k = 0; k < n; k++) out[k] = Number(data[k]);
    }
    return new Tensor(d, sizes, out);
  };
  Tensor.fromIter = function(sizes, iterable, dtype) {
    return Tensor.fromArray(sizes, Array.from(iterable), dtype === undefined ? 6 : dtype);
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

  // One GPU-waiting call at a time: Asyncify can suspend only one stack.
  var queue = Promise.resolve();
  function serialized(fn) {
    var run = queue.then(fn);
    queue = run.then(function() {}, function() {});
    return run;
  }
  function callAsync(name, argTypes, args) {
    return ccall(name, 'number', argTypes, args, {async: true});
  }

  // ----- WebGPU -----

  var gpuState = null;  // {adapter, features, limits} once initialised

  function initWebGPU(options) {
    options = options || {};
    return serialized(function() {
      if (options.gpu) Module.gpu = options.gpu;
      return callAsync('wick_init_webgpu', [], []).then(function(ok) {
        if (!ok) throw failure('initWebGPU');
        var info = json(Module._wick_device_json(), 'initWebGPU');
        gpuState = info;
        return info;
      });
    });
  }

  // ----- Module -----

  function toBytes(data, where) {
    if (data === null || data === undefined) throw new TypeError(where + ': data cannot be null or undefined');
    if (typeof data === 'string') {
      try {
        return {bytes: FS.readFile(data), name: data};
      } catch (e) {
        throw new Error(where + ": cannot read '" + data + "' from et.FS (" + (e.code || e.errno || e.message) + ')');
      }
    }
    if (data instanceof ArrayBuffer) return {bytes: new Uint8Array(data), name: '<bytes>'};
    if (ArrayBuffer.isView(data)) {
      return {bytes: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), name: '<bytes>'};
    }
    throw new TypeError(where + ': unsupported data type: ' + typeof data);
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
  // verifies the program now (a bad file throws here).
  EtModule.load = function(data) {
    var where = 'Module.load';
    var src = toBytes(data, where);
    var handle = withHeapCopy(src.bytes, function(ptr) {
      return ccall('wick_program_load', 'number', ['number', 'number', 'string'],
                          [ptr, src.bytes.length, src.name]);
    });
    if (!handle) throw failure(where);
    return new EtModule(handle, src.name);
  };

  EtModule.prototype._live = function(where) {
    if (!this._handle) throw new Error(where + ': the module was deleted');
  };

  EtModule.prototype.getMethods = function() {
    this._live('Module.getMethods');
    return json(Module._wick_program_method_names(this._handle), 'Module.getMethods');
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
    var m = json(ccall('wick_method_meta', 'number', ['number', 'string'],
                              [this._handle, String(name)]), where);
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
        return callAsync('wick_method_load', ['number', 'string'], [self._handle, name]).then(function(h) {
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

  function setInput(h, i, value, d, where) {
    var ok;
    if (value === undefined) throw new TypeError(where + ': input ' + i + ' is undefined');
    if (value instanceof Tensor) {
      if (value.isDeleted()) throw new Error(where + ': input ' + i + ' is a deleted tensor');
      var t = value;
      var bytes = new Uint8Array(t._data.buffer, t._data.byteOffset, t._data.byteLength);
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
      throw new Error(where + ': input ' + i + ' is not a Tensor: ' + String(value));
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
        for (var i = 0; i < list.length; i++) setInput(h, i, list[i], null, where);
        return callAsync('wick_method_execute', ['number'], [h]).then(function(count) {
          if (count < 0) throw failure(where);
          var outputs = [];
          for (var k = 0; k < count; k++) outputs.push(readOutput(h, k, where));
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
