// et.LLM and et.Tokenizer: text generation with an ExecuTorch LLM program, on the C++ of
// src/llm (tokenizer, chat template, sampler, runner) through src/wasm/c_api_llm.cpp.
// Linked with --post-js after runtime_calls.js and api.js: `Module` is the runtime object,
// and every call that may suspend (runner load, steps, prefill, free) is a job of
// WickCalls' one queue, so that it never runs while a Module call is suspended (Asyncify
// holds one stack); the calls that never suspend (tokenizer, info) go straight to the
// export (WickCalls.callNow), never through ccall.
//
//   const llm = await et.LLM.load('model.pte', {tokenizer: 'tokenizer.json',
//                                               tokenizerConfig: 'tokenizer_config.json'});
//   const gen = llm.generate([{role: 'user', content: 'Hi!'}], {maxNewTokens: 64});
//   for await (const piece of gen) show(piece.text);   // piece.tokens: its ids
//   console.log(gen.stats.decodeTokensPerS);
//
// Generation runs one token per queued call: text streams as it is sampled, other calls
// (and other models) get their turn between tokens, and a stop (AbortSignal, break out
// of the loop, gen.cancel()) takes effect before the next token. A stopped generation
// ends normally with stats.stopReason 'cancelled'; only failures throw.

var WickLlm = (function() {
  'use strict';

  var Calls = WickCalls;
  var encoder = new TextEncoder();
  var decoder = new TextDecoder();

  function lastError() { return UTF8ToString(Module._wick_llm_last_error()); }
  // The error the LLM C API left ("InvalidArgument: ..."), coded by its prefix.
  function failure(where, text) {
    text = text || lastError();
    var m = /^([A-Za-z]+): /.exec(text);
    return Calls.error(where, text || 'failed (no message)', m ? m[1] : 'Internal');
  }
  function typeError(where, message) { return Calls.error(where, message, 'InvalidArgument', TypeError); }
  function now(where, name, args) { return Calls.callNow(where, name, args); }

  // The text of the most recent answer (it may hold NUL bytes, so not UTF8ToString).
  function textAt(ptr, where) {
    if (!ptr) throw failure(where);
    var n = Module._wick_llm_text_size();
    return decoder.decode(HEAPU8.slice(ptr, ptr + n));
  }
  function jsonAt(ptr, where) { return JSON.parse(textAt(ptr, where)); }

  // Runs fn(ptr, length) with `bytes` copied into the wasm heap.
  function withBytes(bytes, fn) {
    var ptr = _malloc(Math.max(bytes.length, 1));
    if (!ptr) throw new Error('out of wasm memory for ' + bytes.length + ' bytes');
    try {
      HEAPU8.set(bytes, ptr);
      return fn(ptr, bytes.length);
    } finally {
      _free(ptr);
    }
  }
  function withIds(ids, fn) {
    var a = Int32Array.from(ids);
    return withBytes(new Uint8Array(a.buffer), function(ptr) { return fn(ptr, a.length); });
  }

  function describe(v) {
    var s;
    try { s = typeof v === 'string' ? JSON.stringify(v) : String(v); } catch (e) { s = typeof v; }
    return s.length > 60 ? s.slice(0, 57) + '...' : s;
  }

  // ----- reading models and tokenizer files -----

  function nodeFs() {
    return ENVIRONMENT_IS_NODE && typeof require === 'function' ? require('fs') : null;
  }
  // In Node, a string without a URL scheme (or a file: URL) is a path.
  function localPath(s) {
    if (!ENVIRONMENT_IS_NODE) return null;
    if (/^file:/i.test(s)) return decodeURIComponent(new URL(s).pathname);
    return /^[a-z][a-z0-9+.-]+:/i.test(s) ? null : s;
  }

  // bytes of a URL, a path (Node), a Blob, an ArrayBuffer or a typed array.
  function readBytes(src, what, where) {
    if (src instanceof ArrayBuffer) return Promise.resolve(new Uint8Array(src));
    if (ArrayBuffer.isView(src)) return Promise.resolve(new Uint8Array(src.buffer, src.byteOffset, src.byteLength));
    if (typeof Blob !== 'undefined' && src instanceof Blob) {
      return src.arrayBuffer().then(function(b) { return new Uint8Array(b); });
    }
    if (typeof URL !== 'undefined' && src instanceof URL) src = src.href;
    if (typeof src !== 'string' || src === '') {
      return Promise.reject(new TypeError(where + ': ' + what + ' must be a URL, a path, bytes or a Blob, not ' + describe(src)));
    }
    var file = localPath(src);
    var fs = file !== null ? nodeFs() : null;
    if (fs) {
      return new Promise(function(resolve, reject) {
        fs.readFile(file, function(err, data) {
          if (err) reject(new Error(where + ': cannot read ' + what + " '" + file + "': " +
                                    (err.code === 'ENOENT' ? 'no such file' : err.code === 'EISDIR' ? 'is a directory' : err.message)));
          else resolve(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
        });
      });
    }
    return fetch(src).then(function(r) {
      if (!r.ok) throw new Error(where + ': cannot fetch ' + what + ' ' + src + ': HTTP ' + r.status + ' ' + r.statusText);
      return r.arrayBuffer();
    }, function(e) {
      throw new Error(where + ': cannot fetch ' + what + ' ' + src + ': ' + (e && e.message || e));
    }).then(function(b) { return new Uint8Array(b); });
  }

  // tokenizer.json / tokenizer_config.json: their text itself (a string starting with
  // '{'), a parsed object, or anything readBytes takes. In Node, a folder path means its
  // tokenizer.json (and tokenizer_config.json beside it when no config is given), as
  // the native `wick generate --tokenizer` does.
  function readJsonText(src, what, where) {
    if (typeof src === 'string' && /^\s*[\[{]/.test(src)) return Promise.resolve(src);
    if (src && typeof src === 'object' && !(src instanceof ArrayBuffer) && !ArrayBuffer.isView(src) &&
        !(typeof Blob !== 'undefined' && src instanceof Blob) && !(typeof URL !== 'undefined' && src instanceof URL)) {
      return Promise.resolve(JSON.stringify(src));
    }
    return readBytes(src, what, where).then(function(b) { return decoder.decode(b); });
  }

  function tokenizerSources(tokenizer, config) {
    var file = typeof tokenizer === 'string' && !/^\s*[\[{]/.test(tokenizer) ? localPath(tokenizer) : null;
    var fs = file !== null ? nodeFs() : null;
    if (!fs) return {tokenizer: tokenizer, config: config};
    var dir = file.replace(/[\\/]+$/, '');
    try {
      if (fs.statSync(file).isDirectory()) {
        file = dir + '/tokenizer.json';
      } else {
        dir = file.replace(/[\\/][^\\/]*$/, '') || '.';
      }
    } catch (e) {
      return {tokenizer: tokenizer, config: config};  // readBytes says what is missing
    }
    if (config === undefined || config === null) {
      var sibling = dir + '/tokenizer_config.json';
      if (fs.existsSync(sibling)) config = sibling;
    }
    return {tokenizer: file, config: config};
  }

  // ----- Tokenizer -----

  function Tokenizer(handle) {
    this._handle = handle;
    var info = jsonAt(Module._wick_llm_tokenizer_info(handle), 'Tokenizer');
    this.vocabSize = info.vocabSize;
    this.eosIds = info.eosIds;
    this.bosId = info.bosId === null ? undefined : info.bosId;
    this.hasChatTemplate = info.hasChatTemplate;
  }

  // From the texts of tokenizer.json and tokenizer_config.json (optional).
  Tokenizer.fromJSON = function(tokenizerJson, configJson, where) {
    where = where || 'Tokenizer.fromJSON';
    if (typeof tokenizerJson !== 'string') throw new TypeError(where + ': tokenizer.json must be a string');
    var t = encoder.encode(tokenizerJson);
    var c = encoder.encode(configJson || '');
    var handle = withBytes(t, function(tp, tn) {
      return withBytes(c, function(cp, cn) { return Module._wick_llm_tokenizer_load(tp, tn, cp, cn); });
    });
    if (!handle) throw failure(where);
    return new Tokenizer(handle);
  };

  // tokenizer, config: see readJsonText. Resolves to a Tokenizer.
  Tokenizer.load = function(tokenizer, config, where) {
    where = where || 'Tokenizer.load';
    if (tokenizer === undefined || tokenizer === null) {
      return Promise.reject(new TypeError(where + ': no tokenizer given (tokenizer.json: a URL, a path, its text, an object or bytes)'));
    }
    var src = tokenizerSources(tokenizer, config);
    return Promise.all([
      readJsonText(src.tokenizer, 'the tokenizer', where),
      src.config === undefined || src.config === null ? '' : readJsonText(src.config, 'the tokenizer config', where),
    ]).then(function(texts) { return Tokenizer.fromJSON(texts[0], texts[1], where); });
  };

  Tokenizer.prototype._live = function(where) {
    if (!this._handle) throw new Error(where + ': the tokenizer was deleted');
    return this._handle;
  };

  // text -> ids, as Hugging Face's encode: added tokens split out first;
  // addSpecialTokens (default true) applies the post-processor (Llama 3's BOS).
  Tokenizer.prototype.encode = function(text, options) {
    var where = 'Tokenizer.encode';
    var h = this._live(where);
    if (typeof text !== 'string') throw new TypeError(where + ': text must be a string, not ' + describe(text));
    var special = !options || options.addSpecialTokens === undefined ? true : !!options.addSpecialTokens;
    var n = withBytes(encoder.encode(text), function(p, len) { return Module._wick_llm_encode(h, p, len, special ? 1 : 0); });
    if (n < 0) throw failure(where);
    var ptr = Module._wick_llm_ids();
    return Array.from(HEAP32.subarray(ptr >> 2, (ptr >> 2) + n));
  };

  function checkIds(ids, where) {
    if (!ids || typeof ids.length !== 'number' || typeof ids === 'string') {
      throw new TypeError(where + ': ids must be an array of token ids, not ' + describe(ids));
    }
    for (var i = 0; i < ids.length; i++) {
      var v = ids[i];
      if (typeof v === 'bigint') v = Number(v);
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 0x7fffffff) {
        throw new TypeError(where + ': ids[' + i + '] = ' + describe(ids[i]) + ' is not a token id');
      }
    }
    return Array.from(ids, Number);
  }

  Tokenizer.prototype.decode = function(ids, options) {
    var where = 'Tokenizer.decode';
    var h = this._live(where);
    var list = checkIds(ids, where);
    var skip = !!(options && options.skipSpecialTokens);
    return withIds(list, function(p, n) { return textAt(Module._wick_llm_decode(h, p, n, skip ? 1 : 0), where); });
  };

  // The id of one token's string (e.g. '<|im_end|>'), or undefined.
  Tokenizer.prototype.tokenToId = function(token) {
    var h = this._live('Tokenizer.tokenToId');
    var id = withBytes(encoder.encode(String(token)), function(p, n) { return Module._wick_llm_token_to_id(h, p, n); });
    return id < 0 ? undefined : id;
  };

  function checkMessages(messages, where) {
    if (!Array.isArray(messages) || messages.length === 0) {
      throw new TypeError(where + ': messages must be a non-empty array of {role, content}');
    }
    return messages.map(function(m, i) {
      if (!m || typeof m.role !== 'string' || typeof m.content !== 'string') {
        throw new TypeError(where + ': messages[' + i + '] must be {role: string, content: string}, not ' +
                            describe(JSON.stringify(m)));
      }
      return {role: m.role, content: m.content};
    });
  }

  // The tokenizer config's chat_template rendered as transformers renders it.
  // options: {addGenerationPrompt (true), enableThinking (true; Qwen3)}.
  Tokenizer.prototype.applyChatTemplate = function(messages, options) {
    var where = 'Tokenizer.applyChatTemplate';
    var h = this._live(where);
    var list = checkMessages(messages, where);
    options = options || {};
    var gen = options.addGenerationPrompt === undefined ? 1 : options.addGenerationPrompt ? 1 : 0;
    var think = options.enableThinking === undefined ? 1 : options.enableThinking ? 1 : 0;
    return withBytes(encoder.encode(JSON.stringify(list)), function(p, n) {
      return textAt(Module._wick_llm_chat_template(h, p, n, gen, think), where);
    });
  };

  // Streaming detokenization: push(id) returns only complete UTF-8 text; flush() the rest.
  Tokenizer.prototype.streamDecoder = function(options) {
    var where = 'Tokenizer.streamDecoder';
    var h = this._live(where);
    var s = Module._wick_llm_stream_new(h, options && options.skipSpecialTokens ? 1 : 0);
    if (!s) throw failure(where);
    return {
      push: function(id) {
        if (!s) throw new Error('StreamDecoder.push: the decoder was deleted');
        return textAt(Module._wick_llm_stream_push(s, checkIds([id], 'StreamDecoder.push')[0]), 'StreamDecoder.push');
      },
      flush: function() {
        if (!s) throw new Error('StreamDecoder.flush: the decoder was deleted');
        return textAt(Module._wick_llm_stream_flush(s), 'StreamDecoder.flush');
      },
      delete: function() {
        if (s) Module._wick_llm_stream_free(s);
        s = 0;
      },
    };
  };

  Tokenizer.prototype.delete = function() {
    if (this._handle) Module._wick_llm_tokenizer_free(this._handle);
    this._handle = 0;
  };
  Tokenizer.prototype.isDeleted = function() { return !this._handle; };

  // ----- LLM -----

  function LLM(runner, tokenizer, name) {
    this._runner = runner;
    this.tokenizer = tokenizer;
    this.name = name;
    this._conversation = [];  // every token of the chat so far, the pending last one included
    this._active = null;      // the running Generation
    this._eos = {};
    var self = this;
    this._runnerInfo().eosIds.forEach(function(id) { self._eos[id] = true; });
  }

  LLM.prototype._runnerInfo = function() {
    return jsonAt(Module._wick_llm_runner_info(this._runner), 'LLM.info');
  };

  // pte: a URL, a path (Node), bytes or a Blob. options: {tokenizer, tokenizerConfig,
  // maxContextLen, method ('forward'), prefillChunk, eosIds, name}.
  LLM.load = function(pte, options) {
    var where = 'LLM.load';
    options = options || {};
    if (typeof options !== 'object') return Promise.reject(new TypeError(where + ': options must be an object'));
    var method = options.method === undefined ? 'forward' : String(options.method);
    var opts = {method: method};
    var bad = null;
    ['maxContextLen', 'prefillChunk'].forEach(function(k) {
      var v = options[k];
      if (v === undefined || v === null) return;
      if (typeof v !== 'number' || !Number.isInteger(v) || v < (k === 'prefillChunk' ? 0 : 1)) {
        bad = bad || new TypeError(where + ': ' + k + ' must be an integer >= ' + (k === 'prefillChunk' ? 0 : 1) + ', got ' + describe(v));
      }
      opts[k] = v;
    });
    if (bad) return Promise.reject(bad);
    var name = options.name || (typeof pte === 'string' ? pte : typeof URL !== 'undefined' && pte instanceof URL ? pte.href : undefined);
    var tokenizerP = options.tokenizer === undefined || options.tokenizer === null
                   ? Promise.resolve(null) : Tokenizer.load(options.tokenizer, options.tokenizerConfig, where);
    var program = 0;
    var tokenizer = null;
    // In one job: the delegates' backend as Module's methods get it (WebGPU unless
    // Module.backend says otherwise), then the runner. The options string stays on the
    // heap until the job ends (it may suspend).
    function loadRunner(ensure) {
      return Calls.runExclusive(function() {
        return Promise.resolve(ensure ? WickApi.ensureDelegates(where) : undefined).then(function() {
          return Calls.withCString(JSON.stringify(opts), function(op) {
            return Calls.callInJob(where, 'wick_llm_runner_load', [program, op]);
          });
        });
      });
    }
    return Promise.all([readBytes(pte, 'the model', where), tokenizerP]).then(function(r) {
      tokenizer = r[1];
      var bytes = r[0];
      name = name || '<bytes: ' + bytes.length + ' B>';
      program = withBytes(bytes, function(p, n) {
        return Calls.withCString(name, function(np) { return now(where, 'wick_llm_program_load', [p, n, np]); });
      });
      if (!program) throw failure(where);
      var info = jsonAt(Calls.withCString(method, function(mp) {
        return now(where, 'wick_llm_program_info', [program, mp]);
      }), where);
      var delegated = info.backends.indexOf('VulkanBackend') >= 0;
      var eos = options.eosIds !== undefined ? checkIds(options.eosIds, where + ': eosIds') : tokenizer ? tokenizer.eosIds : [];
      opts.eosIds = eos;
      // Without api.js's ensureDelegates: WebGPU, opened before the job (initWebGPU is a
      // job itself).
      if (delegated && !WickApi.ensureDelegates && !Module.webgpu) {
        return Module.initWebGPU().then(function() { return loadRunner(false); }, function(e) {
          throw Calls.error(where, 'the model has WebGPU (VulkanBackend) parts, and WebGPU did not start: ' +
                            e.message.replace(/^[^:]*: /, ''), e.code || 'NotFound');
        });
      }
      return loadRunner(delegated && !!WickApi.ensureDelegates);
    }).then(function(runner) {
      Module._wick_llm_program_free(program);  // the runner holds it
      program = 0;
      if (!runner) throw failure(where);
      // Given ids replace the program's get_eos_ids too.
      if (options.eosIds !== undefined) withIds(opts.eosIds, function(p, n) { Module._wick_llm_set_eos_ids(runner, p, n); });
      return new LLM(runner, tokenizer, name);
    }).catch(function(e) {
      if (program) Module._wick_llm_program_free(program);
      // Also when the model failed first and the tokenizer is still loading.
      tokenizerP.then(function(t) { if (t) t.delete(); }, function() {});
      throw e;
    });
  };

  LLM.prototype._live = function(where) {
    if (!this._runner) throw new Error(where + ': the LLM was deleted');
  };

  // What the runner settled on: maxContextLen, maxSeqLen, prefillChunk, useKvCache,
  // dynamicShape, eosIds, bosId, vocabSize, and the chat's position/remainingContext.
  Object.defineProperty(LLM.prototype, 'info', {get: function() {
    this._live('LLM.info');
    var i = this._runnerInfo();
    i.name = this.name;
    return i;
  }});

  // The token ids of `input` for this turn, and whether they continue the chat.
  LLM.prototype._promptIds = function(input, options, where) {
    var tok = this.tokenizer;
    var needTokenizer = function(what) {
      if (!tok) throw new Error(where + ': ' + what + ' needs a tokenizer (LLM.load(pte, {tokenizer}))');
    };
    var messages = null;
    if (typeof input === 'string') {
      if (input.length === 0) throw new Error(where + ': empty prompt: give some text');
      if (options.chat || options.system !== undefined) messages = [{role: 'user', content: input}];
    } else if (Array.isArray(input) && input.length > 0 && typeof input[0] === 'object' && input[0] !== null) {
      messages = checkMessages(input, where);
    } else if (input && typeof input.length === 'number') {
      if (input.length === 0) throw new Error(where + ': empty prompt: give at least one token');
      return {ids: checkIds(input, where), whole: false};
    } else {
      throw new TypeError(where + ': the prompt must be a string, an array of {role, content} messages or token ids, not ' +
                          describe(input));
    }
    var ids;
    if (messages) {
      needTokenizer('a chat');
      if (options.system !== undefined && messages[0].role !== 'system') {
        messages = [{role: 'system', content: String(options.system)}].concat(messages);
      }
      var text = tok.applyChatTemplate(messages, {addGenerationPrompt: true,
                                                  enableThinking: options.enableThinking === undefined ? true : !!options.enableThinking});
      ids = tok.encode(text, {addSpecialTokens: false});  // the template writes the BOS itself
    } else {
      needTokenizer('a text prompt');
      var special = options.addSpecialTokens === undefined ? this._conversation.length === 0 : !!options.addSpecialTokens;
      ids = tok.encode(input, {addSpecialTokens: special});
    }
    if (ids.length === 0) throw new Error(where + ': empty prompt: it encodes to no tokens');
    return {ids: ids, whole: !!messages};
  };

  function samplerConfig(o, where) {
    var num = function(k, lo, hi) {
      var v = o[k];
      if (v === undefined || v === null) return undefined;
      if (typeof v !== 'number' || !isFinite(v)) throw new TypeError(where + ': ' + k + ' must be a finite number, got ' + describe(v));
      return v;
    };
    var c = {};
    var t = num('temperature');
    var topK = num('topK'), topP = num('topP'), minP = num('minP'), rep = num('repetitionPenalty');
    var seed = o.seed;
    var sampling = topK !== undefined || topP !== undefined || minP !== undefined || seed !== undefined;
    if (o.greedy && (t !== undefined || sampling)) {
      throw new TypeError(where + ': greedy cannot be combined with temperature, topK, topP, minP or seed');
    }
    c.temperature = o.greedy ? 0 : t !== undefined ? t : sampling ? 1 : 0;  // as Hugging Face's do_sample
    if (topK !== undefined) {
      if (!Number.isInteger(topK)) throw new TypeError(where + ': topK must be an integer, got ' + topK);
      c.topK = topK;
    }
    if (topP !== undefined) c.topP = topP;
    if (minP !== undefined) c.minP = minP;
    if (rep !== undefined) c.repetitionPenalty = rep;
    if (seed !== undefined) {
      var s = typeof seed === 'bigint' ? seed : typeof seed === 'number' && Number.isSafeInteger(seed) ? BigInt(seed) : null;
      if (s === null || s < BigInt(0) || s >= (BigInt(1) << BigInt(64))) {
        throw new TypeError(where + ': seed must be an integer in [0, 2^64), got ' + describe(seed));
      }
      c.seed = s.toString();
    }
    var max = o.maxNewTokens;
    if (max !== undefined && max !== null) {
      if (typeof max !== 'number' || !Number.isInteger(max) || (max < 1 && max !== -1)) {
        throw new TypeError(where + ': maxNewTokens must be an integer >= 1 (or -1: until EOS or the context is full), got ' + describe(max));
      }
      c.maxNewTokens = max;
    }
    if (o.ignoreEos) c.ignoreEos = true;
    return c;
  }

  // input: a string (raw text; with options.chat or options.system, one user message),
  // an array of {role, content} messages (the whole chat so far, rendered with the chat
  // template; when it extends the previous turn's tokens only the new ones are
  // prefilled, otherwise the chat restarts), or token ids (appended to the chat).
  // options: maxNewTokens, temperature, topK, topP, minP, repetitionPenalty, seed,
  // greedy, ignoreEos, signal (AbortSignal), enableThinking, system, chat,
  // addSpecialTokens. Returns a Generation: an async iterator of {text, tokens} pieces.
  LLM.prototype.generate = function(input, options) {
    var where = 'LLM.generate';
    this._live(where);
    options = options || {};
    if (this._active) {
      throw new Error(where + ': a generation is running on this LLM: finish it or stop it (signal, break, cancel()) first');
    }
    var config = samplerConfig(options, where);
    var p = this._promptIds(input, options, where);
    var prompt = p.ids;
    var conv = this._conversation;
    var restart = false;
    if (p.whole) {
      // The chat's tokens so far are a prefix of the new rendering: feed only the rest.
      var prefix = conv.length > 0 && conv.length < prompt.length;
      for (var i = 0; prefix && i < conv.length; i++) prefix = conv[i] === prompt[i];
      if (prefix) prompt = prompt.slice(conv.length);
      else restart = conv.length > 0;
    }
    if (restart) {
      if (!Module._wick_llm_reset(this._runner)) throw failure(where);
      this._conversation = [];
    }
    var self = this;
    var ok = withIds(prompt, function(ptr, n) {
      return Calls.withCString(JSON.stringify(config), function(cp) {
        return now(where, 'wick_llm_start', [self._runner, ptr, n, cp]);
      });
    });
    if (!ok) throw failure(where);
    var gen = new Generation(this, prompt, options.signal, !!config.ignoreEos);
    this._active = gen;
    return gen;
  };

  // Starts a new conversation (position 0).
  LLM.prototype.reset = function() {
    this._live('LLM.reset');
    if (this._active) throw new Error('LLM.reset: a generation is running: finish it or stop it first');
    this._conversation = [];
    if (!Module._wick_llm_reset(this._runner)) throw failure('LLM.reset');
  };

  LLM.prototype.delete = function() {
    if (!this._runner) return;
    var runner = this._runner;
    this._runner = 0;
    if (this._active) this._active.cancel();
    Calls.runExclusive(function() { Module._wick_llm_runner_free(runner); });
    if (this.tokenizer) this.tokenizer.delete();
  };
  LLM.prototype.isDeleted = function() { return !this._runner; };

  // ----- Generation -----

  function Generation(llm, prompt, signal, ignoreEos) {
    this._llm = llm;
    this._prompt = prompt;
    this._signal = signal || null;
    this._ignoreEos = ignoreEos;
    this._stream = llm.tokenizer ? llm.tokenizer.streamDecoder() : null;
    this._pieceIds = [];
    this._done = false;
    this._stopping = false;
    this._pendingNext = Promise.resolve();
    this.tokens = [];   // every generated id (an EOS that stopped it included)
    this.text = '';     // the text so far (EOS not rendered)
    this.stats = null;  // set when done (see _finish)
    if (this._signal && typeof this._signal.addEventListener === 'function') {
      var self = this;
      this._onAbort = function() { self._stopping = true; };
      this._signal.addEventListener('abort', this._onAbort);
    }
  }

  Generation.prototype[Symbol.asyncIterator] = function() { return this; };

  // Ends the generation: stats from C++ (the times are those inside the runner's calls).
  Generation.prototype._finish = function(cancel) {
    var llm = this._llm;
    if (this._done) return;
    this._done = true;
    if (this._signal && this._onAbort) this._signal.removeEventListener('abort', this._onAbort);
    if (llm._active === this) llm._active = null;
    if (!llm._runner) return;
    if (cancel) Module._wick_llm_cancel(llm._runner);
    var r = jsonAt(Module._wick_llm_result(llm._runner), 'LLM.generate');
    this.stats = {
      stopReason: r.stopReason || 'cancelled', stopMessage: r.stopMessage, promptTokens: r.promptTokens,
      generatedTokens: this.tokens.length, position: r.position,
      timeToFirstTokenMs: r.timeToFirstTokenMs, prefillMs: r.prefillMs, decodeMs: r.decodeMs,
      prefillTokensPerS: r.prefillTokensPerS, decodeTokensPerS: r.decodeTokensPerS,
    };
    if (this._stream) this._stream.delete();
    this._stream = null;
  };

  function doneResult() { return {value: undefined, done: true}; }

  // The next piece: tokens until they make some complete text (or the end).
  Generation.prototype._next = function() {
    var self = this;
    var llm = this._llm;
    if (this._done) return Promise.resolve(doneResult());
    if (this._stopping || (this._signal && this._signal.aborted) || !llm._runner) {
      var rest = this._flush();
      this._finish(true);
      return Promise.resolve(rest ? rest : doneResult());
    }
    return Calls.runExclusive(function() {
      if (!llm._runner) return {tok: -1, err: 'InvalidState: the LLM was deleted'};
      return Promise.resolve(Calls.callInJob('LLM.generate', 'wick_llm_step', [llm._runner])).then(function(tok) {
        return {tok: tok, err: tok === -1 ? lastError() : null, done: Module._wick_llm_done(llm._runner) === 1};
      });
    }).then(function(s) {
      if (s.tok === -1) {
        self._finish(false);
        throw failure('LLM.generate', s.err);
      }
      if (s.tok === -2) {
        var tail = self._flush();
        self._finish(false);
        return tail || doneResult();
      }
      if (self.tokens.length === 0) llm._conversation = llm._conversation.concat(self._prompt);
      llm._conversation.push(s.tok);
      self.tokens.push(s.tok);
      self._pieceIds.push(s.tok);
      var eos = !self._ignoreEos && llm._eos[s.tok];
      var text = self._stream && !eos ? self._stream.push(s.tok) : '';
      if (s.done) {
        if (self._stream) text += self._stream.flush();
        self._finish(false);
      }
      if (text === '' && !s.done && self._stream) return self._next();  // a character is still incomplete
      return self._piece(text);
    });
  };

  Generation.prototype._piece = function(text) {
    var piece = {text: text, tokens: this._pieceIds};
    this._pieceIds = [];
    this.text += text;
    return {value: piece, done: false};
  };

  // What is held back when the generation stops early: a piece, or null.
  Generation.prototype._flush = function() {
    var text = this._stream ? this._stream.flush() : '';
    if (text === '' && this._pieceIds.length === 0) return null;
    return this._piece(text);
  };

  // Calls are chained: next() before the previous one settled waits for it.
  Generation.prototype.next = function() {
    var self = this;
    var run = this._pendingNext.then(function() { return self._next(); });
    this._pendingNext = run.then(function() {}, function() {});
    return run;
  };

  // `break` in for-await, or an explicit stop: no more tokens.
  Generation.prototype.return = function(value) {
    var self = this;
    this._stopping = true;
    return this._pendingNext.then(function() {
      self._finish(true);
      return {value: value, done: true};
    });
  };
  Generation.prototype.cancel = function() {
    this._stopping = true;
    var self = this;
    return this._pendingNext.then(function() { self._finish(true); });
  };

  // Runs to the end: {text, tokens, stats}.
  Generation.prototype.result = function() {
    var self = this;
    var loop = function() {
      return self.next().then(function(r) { return r.done ? {text: self.text, tokens: self.tokens, stats: self.stats} : loop(); });
    };
    return loop();
  };

  return {LLM: LLM, Tokenizer: Tokenizer};
})();

Module['LLM'] = WickLlm.LLM;
Module['Tokenizer'] = WickLlm.Tokenizer;
