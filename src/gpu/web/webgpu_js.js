// The JavaScript half of WebGPU in the wasm build (--js-library). Its C++ half,
// webgpu_js.cpp, implements the webgpu.h functions that src/gpu uses and calls these
// `wickgpu_*` functions with plain numbers and strings only: every WebGPU struct is
// read in C++, with the same header the native build compiles against.
//
// WebGPU objects live in a table here; C++ holds their table index as the handle
// (WGPUBuffer == index). Asynchronous calls (adapter, device, map, queue done, error
// scopes, compilation info) return a future id; wickgpu_wait suspends the wasm stack
// (Asyncify) until its promise settles, and C++ then reads the result and runs the
// webgpu.h callback. The GPU object is Module.gpu when given (Node: the `webgpu`
// package's create([])), else navigator.gpu.
mergeInto(LibraryManager.library, {
  $WickGpu: {
    objects: [null],
    refs: [0],
    freeIds: [],
    futures: {},         // id -> {promise, done, result} (plain objects: the library
                         // object is serialized into the bundle, and a Map would not survive)
    nextFuture: 1,
    events: [],          // device events waiting for C++: {kind, device, type, message}
    mapped: {},          // buffer id -> heap copies of mapped ranges, freed at unmap
    pendingLimits: {},   // requiredLimits being built for the next requestDevice

    add: function(obj) {
      const id = WickGpu.freeIds.length ? WickGpu.freeIds.pop() : WickGpu.objects.length;
      WickGpu.objects[id] = obj;
      WickGpu.refs[id] = 1;
      return id;
    },
    get: function(id) { return WickGpu.objects[id]; },
    str: function(ptr, len) { return len ? UTF8ToString(ptr, len) : ''; },
    // A future whose result is whatever `promise` resolves to, or {error: message}.
    future: function(promise) {
      const id = WickGpu.nextFuture++;
      const f = {done: false, result: null};
      f.promise = Promise.resolve(promise).then(
          (r) => { f.result = r; f.done = true; },
          (e) => { f.result = {error: String((e && e.message) || e)}; f.done = true; });
      WickGpu.futures[id] = f;
      return id;
    },
    errorType: function(error) {  // 0 none, 1 validation, 2 out of memory, 3 internal
      if (!error) return 0;
      const name = error.constructor && error.constructor.name;
      if (name === 'GPUOutOfMemoryError') return 2;
      if (name === 'GPUInternalError') return 3;
      return 1;
    },
    heapString: function(s) {  // a malloc'd UTF-8 copy for C++ (which frees it)
      const n = lengthBytesUTF8(s) + 1;
      const p = _malloc(n);
      stringToUTF8(s, p, n);
      return p;
    },
  },

  wickgpu_add_ref__deps: ['$WickGpu'],
  wickgpu_add_ref: function(id) { if (id) WickGpu.refs[id]++; },

  wickgpu_release__deps: ['$WickGpu'],
  wickgpu_release: function(id) {
    if (!id || --WickGpu.refs[id] > 0) return;
    const obj = WickGpu.objects[id];
    // Buffers, query sets and devices free their GPU memory now, as native Dawn does
    // when the last reference goes, rather than whenever the garbage collector runs.
    if (obj && typeof obj.destroy === 'function') obj.destroy();
    WickGpu.objects[id] = null;
    WickGpu.freeIds.push(id);
  },

  // --- instance, adapter, device ---

  wickgpu_create_instance__deps: ['$WickGpu'],
  wickgpu_create_instance: function() {
    // The GPU object is looked up when an adapter is requested, so that initWebGPU({gpu})
    // given after a failed attempt is used.
    return WickGpu.add({});
  },

  wickgpu_request_adapter__deps: ['$WickGpu'],
  wickgpu_request_adapter: function(instance, highPerformance) {
    const gpu = Module['gpu'] || (typeof navigator !== 'undefined' && navigator.gpu);
    if (!gpu) {
      return WickGpu.future({error: 'this JavaScript host has no WebGPU (navigator.gpu is missing; ' +
                                    "in Node, pass {gpu} from the 'webgpu' package to initWebGPU)"});
    }
    return WickGpu.future(gpu.requestAdapter(
        {powerPreference: highPerformance ? 'high-performance' : 'low-power'}).then(
        (adapter) => adapter ? {handle: WickGpu.add(adapter)}
                             : {error: ENVIRONMENT_IS_NODE
                                  ? "Dawn's node binding (npm 'webgpu') found no WebGPU adapter: it needs a " +
                                    'Vulkan driver (a GPU\'s, or SwiftShader\'s: set VK_ICD_FILENAMES to its .json)'
                                  : 'the browser offered no WebGPU adapter'}));
  },

  // Adapter info as one string: vendor \n architecture \n device \n description \n
  // fallback(0/1) \n subgroupMinSize \n subgroupMaxSize.
  wickgpu_adapter_info__deps: ['$WickGpu'],
  wickgpu_adapter_info: function(adapter) {
    const a = WickGpu.get(adapter);
    const info = a.info || {};
    const fallback = info.isFallbackAdapter || a.isFallbackAdapter ? 1 : 0;
    return WickGpu.heapString([info.vendor || '', info.architecture || '', info.device || '',
                               info.description || '', fallback, info.subgroupMinSize || 0,
                               info.subgroupMaxSize || 0].join('\n'));
  },

  // A limit of an adapter or device by its WebGPU name; -1 when it has none.
  wickgpu_limit__deps: ['$WickGpu'],
  wickgpu_limit: function(id, namePtr) {
    const v = WickGpu.get(id).limits[UTF8ToString(namePtr)];
    return typeof v === 'number' ? v : -1;
  },

  wickgpu_has_feature__deps: ['$WickGpu'],
  wickgpu_has_feature: function(id, namePtr) {
    return WickGpu.get(id).features.has(UTF8ToString(namePtr)) ? 1 : 0;
  },

  wickgpu_require_limit__deps: ['$WickGpu'],
  wickgpu_require_limit: function(namePtr, value) {
    WickGpu.pendingLimits[UTF8ToString(namePtr)] = value;
  },

  // features: comma-separated WebGPU names. The device's lost promise and uncaptured
  // errors become events that C++ drains (wickgpu_next_event) after each wait.
  wickgpu_request_device__deps: ['$WickGpu'],
  wickgpu_request_device: function(adapter, featuresPtr, labelPtr, labelLen) {
    const features = UTF8ToString(featuresPtr).split(',').filter((f) => f);
    const requiredLimits = WickGpu.pendingLimits;
    WickGpu.pendingLimits = {};
    const label = WickGpu.str(labelPtr, labelLen);
    const request = WickGpu.get(adapter).requestDevice(
        {requiredFeatures: features, requiredLimits: requiredLimits, label: label});
    return WickGpu.future(request.then((device) => {
      const id = WickGpu.add(device);
      device.lost.then((info) => {
        WickGpu.events.push({kind: 0, device: id, type: info.reason === 'destroyed' ? 1 : 0,
                             message: info.message || ''});
      });
      device.onuncapturederror = (e) => {
        WickGpu.events.push({kind: 1, device: id, type: WickGpu.errorType(e.error) || 1,
                             message: (e.error && e.error.message) || ''});
      };
      return {handle: id};
    }));
  },

  // Returns a malloc'd message (C++ frees it) and writes kind/device/type; 0 when none.
  wickgpu_next_event__deps: ['$WickGpu'],
  wickgpu_next_event: function(outPtr) {
    const e = WickGpu.events.shift();
    if (!e) return 0;
    HEAP32[outPtr >> 2] = e.kind;
    HEAP32[(outPtr >> 2) + 1] = e.device;
    HEAP32[(outPtr >> 2) + 2] = e.type;
    return WickGpu.heapString(e.message);
  },

  wickgpu_device_queue__deps: ['$WickGpu'],
  wickgpu_device_queue: function(device) { return WickGpu.add(WickGpu.get(device).queue); },

  wickgpu_push_error_scope__deps: ['$WickGpu'],
  wickgpu_push_error_scope: function(device, filter) {
    WickGpu.get(device).pushErrorScope(['validation', 'out-of-memory', 'internal'][filter]);
  },

  wickgpu_pop_error_scope__deps: ['$WickGpu'],
  wickgpu_pop_error_scope: function(device) {
    return WickGpu.future(WickGpu.get(device).popErrorScope().then((error) => ({
      type: WickGpu.errorType(error), message: error ? error.message : ''})));
  },

  // --- resources ---

  wickgpu_create_buffer__deps: ['$WickGpu'],
  wickgpu_create_buffer: function(device, size, usage, mapped, labelPtr, labelLen) {
    return WickGpu.add(WickGpu.get(device).createBuffer(
        {size: size, usage: usage, mappedAtCreation: !!mapped,
         label: WickGpu.str(labelPtr, labelLen)}));
  },

  wickgpu_create_query_set__deps: ['$WickGpu'],
  wickgpu_create_query_set: function(device, count, labelPtr, labelLen) {
    return WickGpu.add(WickGpu.get(device).createQuerySet(
        {type: 'timestamp', count: count, label: WickGpu.str(labelPtr, labelLen)}));
  },

  wickgpu_create_shader_module__deps: ['$WickGpu'],
  wickgpu_create_shader_module: function(device, codePtr, codeLen, labelPtr, labelLen) {
    return WickGpu.add(WickGpu.get(device).createShaderModule(
        {code: WickGpu.str(codePtr, codeLen), label: WickGpu.str(labelPtr, labelLen)}));
  },

  // result.messages: [{type (1 error, 2 warning, 3 info), message, lineNum, linePos}]
  wickgpu_compilation_info__deps: ['$WickGpu'],
  wickgpu_compilation_info: function(module) {
    const types = {error: 1, warning: 2, info: 3};
    return WickGpu.future(WickGpu.get(module).getCompilationInfo().then((info) => ({
      messages: Array.from(info.messages, (m) => ({
        type: types[m.type] || 3, message: m.message, lineNum: m.lineNum, linePos: m.linePos}))
    })));
  },

  // constants: "name=value" pairs joined by '\n'.
  wickgpu_create_compute_pipeline__deps: ['$WickGpu'],
  wickgpu_create_compute_pipeline: function(device, module, entryPtr, entryLen, constantsPtr,
                                            labelPtr, labelLen) {
    const constants = {};
    for (const pair of UTF8ToString(constantsPtr).split('\n')) {
      if (!pair) continue;
      const eq = pair.indexOf('=');
      constants[pair.slice(0, eq)] = Number(pair.slice(eq + 1));
    }
    return WickGpu.add(WickGpu.get(device).createComputePipeline({
      layout: 'auto', label: WickGpu.str(labelPtr, labelLen),
      compute: {module: WickGpu.get(module), entryPoint: WickGpu.str(entryPtr, entryLen),
                constants: constants}}));
  },

  wickgpu_pipeline_bind_group_layout__deps: ['$WickGpu'],
  wickgpu_pipeline_bind_group_layout: function(pipeline, group) {
    return WickGpu.add(WickGpu.get(pipeline).getBindGroupLayout(group));
  },

  // Entries come one by one (wickgpu_bind_group_entry), then the group is made.
  wickgpu_bind_group_entry__deps: ['$WickGpu'],
  wickgpu_bind_group_entry: function(binding, buffer, offset, size) {
    const resource = {buffer: WickGpu.get(buffer), offset: offset};
    if (size >= 0) resource.size = size;
    (WickGpu.entries = WickGpu.entries || []).push({binding: binding, resource: resource});
  },

  wickgpu_create_bind_group__deps: ['$WickGpu'],
  wickgpu_create_bind_group: function(device, layout, labelPtr, labelLen) {
    const entries = WickGpu.entries || [];
    WickGpu.entries = [];
    return WickGpu.add(WickGpu.get(device).createBindGroup(
        {layout: WickGpu.get(layout), entries: entries, label: WickGpu.str(labelPtr, labelLen)}));
  },

  // --- commands ---

  wickgpu_create_command_encoder__deps: ['$WickGpu'],
  wickgpu_create_command_encoder: function(device) {
    return WickGpu.add(WickGpu.get(device).createCommandEncoder());
  },

  wickgpu_copy_buffer__deps: ['$WickGpu'],
  wickgpu_copy_buffer: function(encoder, src, srcOffset, dst, dstOffset, size) {
    WickGpu.get(encoder).copyBufferToBuffer(WickGpu.get(src), srcOffset, WickGpu.get(dst),
                                            dstOffset, size);
  },

  // querySet 0: no timestamps; an index of -1 is not written.
  wickgpu_begin_compute_pass__deps: ['$WickGpu'],
  wickgpu_begin_compute_pass: function(encoder, querySet, begin, end) {
    const desc = {};
    if (querySet) {
      desc.timestampWrites = {querySet: WickGpu.get(querySet)};
      if (begin >= 0) desc.timestampWrites.beginningOfPassWriteIndex = begin;
      if (end >= 0) desc.timestampWrites.endOfPassWriteIndex = end;
    }
    return WickGpu.add(WickGpu.get(encoder).beginComputePass(desc));
  },

  wickgpu_pass_set_pipeline__deps: ['$WickGpu'],
  wickgpu_pass_set_pipeline: function(pass, pipeline) {
    WickGpu.get(pass).setPipeline(WickGpu.get(pipeline));
  },

  wickgpu_pass_set_bind_group__deps: ['$WickGpu'],
  wickgpu_pass_set_bind_group: function(pass, index, group) {
    WickGpu.get(pass).setBindGroup(index, group ? WickGpu.get(group) : null);
  },

  wickgpu_pass_dispatch__deps: ['$WickGpu'],
  wickgpu_pass_dispatch: function(pass, x, y, z) {
    WickGpu.get(pass).dispatchWorkgroups(x, y, z);
  },

  wickgpu_pass_end__deps: ['$WickGpu'],
  wickgpu_pass_end: function(pass) { WickGpu.get(pass).end(); },

  wickgpu_resolve_query_set__deps: ['$WickGpu'],
  wickgpu_resolve_query_set: function(encoder, querySet, first, count, dst, dstOffset) {
    WickGpu.get(encoder).resolveQuerySet(WickGpu.get(querySet), first, count,
                                         WickGpu.get(dst), dstOffset);
  },

  wickgpu_encoder_finish__deps: ['$WickGpu'],
  wickgpu_encoder_finish: function(encoder) {
    return WickGpu.add(WickGpu.get(encoder).finish());
  },

  wickgpu_queue_submit__deps: ['$WickGpu'],
  wickgpu_queue_submit: function(queue, commandBuffer) {
    WickGpu.get(queue).submit([WickGpu.get(commandBuffer)]);
  },

  wickgpu_queue_write_buffer__deps: ['$WickGpu'],
  wickgpu_queue_write_buffer: function(queue, buffer, offset, dataPtr, size) {
    WickGpu.get(queue).writeBuffer(WickGpu.get(buffer), offset, HEAPU8, dataPtr, size);
  },

  wickgpu_queue_work_done__deps: ['$WickGpu'],
  wickgpu_queue_work_done: function(queue) {
    return WickGpu.future(WickGpu.get(queue).onSubmittedWorkDone().then(() => ({})));
  },

  // --- mapping ---

  wickgpu_buffer_map_read__deps: ['$WickGpu'],
  wickgpu_buffer_map_read: function(buffer, offset, size) {
    return WickGpu.future(WickGpu.get(buffer).mapAsync(1 /* GPUMapMode.READ */, offset, size)
                              .then(() => ({})));
  },

  // A heap copy of the mapped range (the wasm heap cannot alias a GPU mapping).
  wickgpu_buffer_mapped_range__deps: ['$WickGpu'],
  wickgpu_buffer_mapped_range: function(buffer, offset, size) {
    let bytes;
    try {
      bytes = new Uint8Array(WickGpu.get(buffer).getMappedRange(offset, size));
    } catch (e) {
      return 0;
    }
    const p = _malloc(Math.max(size, 1));
    HEAPU8.set(bytes, p);
    (WickGpu.mapped[buffer] = WickGpu.mapped[buffer] || []).push(p);
    return p;
  },

  wickgpu_buffer_unmap__deps: ['$WickGpu'],
  wickgpu_buffer_unmap: function(buffer) {
    WickGpu.get(buffer).unmap();
    for (const p of WickGpu.mapped[buffer] || []) _free(p);
    delete WickGpu.mapped[buffer];
  },

  // --- futures ---

  // Suspends until the future settles; 1 when it did, 0 when timeoutMs (>= 0) passed first.
  wickgpu_wait__deps: ['$WickGpu'],
  wickgpu_wait: function(id, timeoutMs) {
    return Asyncify.handleAsync(async () => {
      const f = WickGpu.futures[id];
      if (!f) return 1;
      if (!f.done) {
        if (timeoutMs < 0) {
          await f.promise;
        } else {
          let timer;
          await Promise.race([f.promise, new Promise((r) => { timer = setTimeout(r, timeoutMs); })]);
          clearTimeout(timer);
        }
      }
      return f.done ? 1 : 0;
    });
  },

  // Lets queued promise callbacks (device loss, uncaptured errors) run.
  wickgpu_yield: function() {
    return Asyncify.handleAsync(async () => { await Promise.resolve(); });
  },

  // Reads a settled future. field: 0 handle, 1 has error (message in the error),
  // 2 error type (pop error scope), 3 message count (compilation info).
  wickgpu_future_int__deps: ['$WickGpu'],
  wickgpu_future_int: function(id, field) {
    const r = (WickGpu.futures[id] || {}).result || {};
    switch (field) {
      case 0: return r.handle || 0;
      case 1: return 'error' in r ? 1 : 0;
      case 2: return r.type || 0;
      case 3: return r.messages ? r.messages.length : 0;
    }
    return 0;
  },

  // The future's error or scope message (index < 0), or compilation message `index`
  // (also writing its type, line and column to outPtr). malloc'd; C++ frees it.
  wickgpu_future_message__deps: ['$WickGpu'],
  wickgpu_future_message: function(id, index, outPtr) {
    const r = (WickGpu.futures[id] || {}).result || {};
    if (index < 0) return WickGpu.heapString(r.error || r.message || '');
    const m = r.messages[index];
    HEAP32[outPtr >> 2] = m.type;
    HEAP32[(outPtr >> 2) + 1] = m.lineNum;
    HEAP32[(outPtr >> 2) + 2] = m.linePos;
    return WickGpu.heapString(m.message);
  },

  wickgpu_future_forget__deps: ['$WickGpu'],
  wickgpu_future_forget: function(id) { delete WickGpu.futures[id]; },
});
