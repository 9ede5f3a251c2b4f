// The page's side of worker.mjs: requests as promises with progress, cancel, and a fresh
// worker when the old one is stuck (a cancelled run that does not come back within
// STUCK_MS) or its GPU device was lost. A restart drops every loaded model; listeners
// of 'restart' hear of it.
const STUCK_MS = 3000;

export class RuntimeClient {
  constructor(workerUrl, startArgs) {
    this.workerUrl = workerUrl;
    this.startArgs = startArgs;
    this.listeners = {};
    this.pending = new Map();
    this.nextId = 1;
    this.worker = null;
    this.started = null;  // promise of the start answer
    this.generation = 0;
  }

  on(event, fn) { (this.listeners[event] ||= []).push(fn); }
  emit(event, data) { for (const fn of this.listeners[event] || []) fn(data); }

  spawn() {
    this.worker = new Worker(this.workerUrl, {type: 'module'});
    this.generation++;
    const generation = this.generation;
    this.worker.onmessage = (e) => this.receive(e.data, generation);
    this.worker.onerror = (e) => {
      const message = `the worker failed: ${e.message || 'script error'}`;
      for (const p of this.pending.values()) p.reject(Object.assign(new Error(message), {code: 'worker'}));
      this.pending.clear();
      this.emit('error', message);
    };
  }

  receive(msg, generation) {
    if (generation !== this.generation) return;
    if (msg.type === 'event') {
      this.emit(msg.event, msg);
      return;
    }
    const p = this.pending.get(msg.id);
    if (!p) return;
    if (msg.type === 'progress') {
      if (p.onProgress) p.onProgress(msg.text, msg.fraction);
      return;
    }
    this.pending.delete(msg.id);
    clearTimeout(p.stuckTimer);
    if (p.stopped) p.stopped();
    if (msg.type === 'result') p.resolve(msg.value);
    else p.reject(Object.assign(new Error(msg.message), {code: msg.code}));
  }

  // Starts (or restarts) the worker and the runtime in it; resolves to {gpu, why}.
  start(onProgress) {
    if (!this.started) {
      this.spawn();
      this.started = this.request('start', this.startArgs, {onProgress});
      this.started.catch(() => { this.started = null; });
    }
    return this.started;
  }

  restart(reason) {
    if (this.worker) this.worker.terminate();
    const error = Object.assign(new Error(reason), {code: 'restarted'});
    for (const p of this.pending.values()) {
      clearTimeout(p.stuckTimer);
      p.reject(error);
      if (p.stopped) p.stopped();
    }
    this.pending.clear();
    this.worker = null;
    this.started = null;
    this.emit('restart', reason);
  }

  // Resolves once every cancelled request has stopped in the worker, or the worker was
  // replaced because one did not stop within STUCK_MS. A task waits for this before it
  // counts as cancelled, so the next one neither queues behind a step still running nor
  // is cut off by the restart that ends it.
  cancelledStopped() {
    return Promise.all([...this.pending.values()].filter((p) => p.stopping).map((p) => p.stopping));
  }

  // One request. signal aborts it: the promise rejects at once (code 'aborted'), the
  // worker is told, and a worker that has not answered STUCK_MS later is replaced.
  request(op, args, {onProgress = null, signal = null, transfer = []} = {}) {
    if (!this.worker) this.spawn();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const entry = {resolve, reject, onProgress, stuckTimer: 0};
      this.pending.set(id, entry);
      if (signal) {
        const abort = () => {
          if (!this.pending.has(id)) return;
          this.worker.postMessage({op: 'cancel', args: {id}});
          reject(Object.assign(new Error('cancelled'), {code: 'aborted', name: 'AbortError'}));
          entry.resolve = entry.reject = () => {};
          entry.onProgress = null;
          entry.stopping = new Promise((done) => { entry.stopped = done; });
          entry.stuckTimer = setTimeout(() => {
            if (this.pending.has(id)) this.restart('a cancelled step did not stop in time, so the runtime was restarted');
          }, STUCK_MS);
        };
        if (signal.aborted) abort();
        else signal.addEventListener('abort', abort, {once: true});
      }
      this.worker.postMessage({id, op, args}, transfer);
    });
  }
}
