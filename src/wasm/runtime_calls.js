// How the JavaScript API (api.js, llm.js) calls into the runtime (c_api.cpp): one queue for
// the calls that may suspend, direct calls for those that never do, and errors with codes.
// Linked with --post-js before api.js; `Module` and `Asyncify` are the factory's.
//
// Why a queue: the runtime waits on the GPU by suspending the wasm stack (Asyncify), which
// holds one suspended stack at a time. Emscripten 3.1.6's ccall takes any call made while a
// stack is suspended for that call: it returns a Promise and takes over the suspended
// call's completion, which then never settles, and every later call waits behind it
// forever (issue 13). So:
//  - every call that may suspend (wick_init_webgpu, wick_method_load, wick_method_execute)
//    or touches a loaded method (its inputs, outputs, free) runs inside runExclusive(fn):
//    one job at a time, in call order;
//  - the calls that never suspend and only parse a new program or read a parsed one
//    (wick_program_load, wick_program_method_names, wick_method_meta, wick_device_json,
//    wick_last_error) may run at any time, also while a job is suspended, because they
//    call the export directly (callNow) and never through ccall. A suspended stack keeps
//    its frames below the stack pointer, so a call made meanwhile does not overwrite them.

var WickCalls = (function() {
  'use strict';

  // ----- errors -----

  // ExecuTorch's Error numbers (runtime/core/error.h), by the names its messages and Wick's
  // Status use. Wick's codes that ExecuTorch lacks (DeviceLost) and the API's own (Busy,
  // AsyncResult) have no number.
  var EXECUTORCH_ERRORS = Object.freeze({
    Ok: 0x00, Internal: 0x01, InvalidState: 0x02, EndOfMethod: 0x03, AlreadyLoaded: 0x04,
    NotSupported: 0x10, NotImplemented: 0x11, InvalidArgument: 0x12, InvalidType: 0x13,
    OperatorMissing: 0x14, RegistrationExceedingMaxKernels: 0x15, RegistrationAlreadyRegistered: 0x16,
    NotFound: 0x20, MemoryAllocationFailed: 0x21, AccessFailed: 0x22, InvalidProgram: 0x23,
    InvalidExternalData: 0x24, OutOfResources: 0x25, DelegateInvalidCompatibility: 0x30,
    DelegateMemoryAllocationFailed: 0x31, DelegateInvalidHandle: 0x32,
  });

  // Gives `e` a code (a name a page can branch on) and, where ExecuTorch has one, its
  // number as errorCode. Keeps a code already there.
  function withCode(e, code) {
    if (e && typeof e === 'object' && e.code === undefined) {
      e.code = code;
      if (EXECUTORCH_ERRORS[code] !== undefined) e.errorCode = EXECUTORCH_ERRORS[code];
    }
    return e;
  }

  // An Error (or a Type: TypeError, RangeError) "where: message" with a code.
  function error(where, message, code, Type) {
    return withCode(new (Type || Error)(where + ': ' + message), code || 'Internal');
  }

  function lastError() { return UTF8ToString(Module._wick_last_error()); }

  // The error the runtime left ("InvalidProgram: ..."), at `where`, coded by its prefix.
  function runtimeError(where) {
    var text = lastError();
    var m = /^([A-Za-z]+): /.exec(text);
    return error(where, text || 'failed (no message)', m ? m[1] : 'Internal');
  }

  // The C API answers errors as values; should C++ still throw (Emscripten then throws the
  // exception's address, a bare number, into JavaScript), callers get an Error.
  function cxxError(where, e) {
    if (e instanceof Error) return e;
    return error(where, 'internal error: the runtime threw ' +
                 (typeof e === 'number' ? 'a C++ exception' : String(e)) +
                 ' (a bug in Wick; load the program again)', 'Internal');
  }

  // ----- the queue -----

  var tail = Promise.resolve();
  var jobs = 0;  // queued or running
  function release() { jobs--; }

  // Runs fn once every job queued before it has settled, and the next job once fn's
  // result (a value or a Promise) has. Returns a Promise of fn's result. Every call into
  // the runtime that may suspend must run inside a job.
  function runExclusive(fn) {
    jobs++;
    var run = tail.then(function() { return fn(); });
    tail = run.then(release, release);
    return run;
  }

  // True when no job is queued or running (and so no stack is suspended): a job may then
  // run at once, synchronously, through runNow.
  function idle() { return jobs === 0 && !Asyncify.currData; }

  // Runs fn now as a job; only when idle(). fn's result is returned as it is: a value, or
  // when fn suspended, a Promise that later jobs wait for.
  function runNow(fn) {
    if (!idle()) throw error('runNow', 'the runtime is busy (a bug in Wick: check idle() first)', 'Internal');
    jobs++;
    var value;
    try {
      value = fn();
    } catch (e) {
      jobs--;
      throw e;
    }
    if (value && typeof value.then === 'function') {
      tail = Promise.resolve(value).then(release, release);
    } else {
      jobs--;
    }
    return value;
  }

  // ----- calls -----

  // A C string on the wasm heap for the duration of fn (which may return a Promise). Heap,
  // not ccall's stack: a call that suspends keeps its arguments until it resumes.
  function withCString(text, fn) {
    var size = lengthBytesUTF8(text) + 1;
    var ptr = _malloc(size);
    if (!ptr) throw error('wasm', 'out of memory for a string of ' + size + ' bytes', 'MemoryAllocationFailed');
    stringToUTF8(text, ptr, size);
    var result;
    try {
      result = fn(ptr);
    } catch (e) {
      _free(ptr);
      throw e;
    }
    if (result && typeof result.then === 'function') {
      return result.then(function(v) { _free(ptr); return v; }, function(e) { _free(ptr); throw e; });
    }
    _free(ptr);
    return result;
  }

  // Calls the export `name` (without its leading underscore) with plain numbers. For the
  // calls that never suspend, at any time; a C++ throw becomes an Error. Should the call
  // suspend after all, that is a bug here: it says so instead of leaving a stack behind.
  function callNow(where, name, args) {
    var before = Asyncify.currData;
    var ret;
    try {
      ret = Module['_' + name].apply(null, args || []);
    } catch (e) {
      throw cxxError(where, e);
    }
    if (Asyncify.currData !== before) {
      throw error(where, name + ' waited on the GPU where it must not (a bug in Wick)', 'Internal');
    }
    return ret;
  }

  // Calls the export `name` inside a job: its number, or, when it suspended (it waits on
  // the GPU), a Promise of that number. Only inside runExclusive / runNow.
  function callInJob(where, name, args) {
    if (Asyncify.currData) throw error(where, 'called while another call is suspended (a bug in Wick)', 'Internal');
    var ret;
    try {
      ret = Module['_' + name].apply(null, args || []);
    } catch (e) {
      throw cxxError(where, e);
    }
    if (Asyncify.currData) {
      return Asyncify.whenDone().catch(function(e) { throw cxxError(where, e); });
    }
    return ret;
  }

  return {runExclusive: runExclusive, runNow: runNow, idle: idle, callNow: callNow,
          callInJob: callInJob, withCString: withCString, error: error, withCode: withCode,
          runtimeError: runtimeError, cxxError: cxxError, lastError: lastError,
          ERRORS: EXECUTORCH_ERRORS};
})();
