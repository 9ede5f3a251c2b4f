// The playground shell: demo tabs, the one runtime (in worker.mjs), the status bar with
// progress and Cancel, messages, the cache panel and the URL overrides. Demos are loaded
// on first use and talk to the runtime through the ctx made here (README.md: the demo
// module interface). window.playground is what the tests read.
import {DEMOS, PHOTOS} from './registry.mjs';
import {RuntimeClient} from './runtime_client.mjs';
import {fetchVerifiedCached, formatBytes, freeAll, freeCached, listCached, storageEstimate} from './lib/cache.mjs';

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const state = window.playground = {ready: false, runtimeError: null, gpu: null, noWebGPU: null, backend: null, threads: null, demos: {},
                                   messages: [], statusTexts: [], openMs: null, restarts: 0,
                                   // the worker's runtime.threading (workerChunks: how much the pool ran)
                                   threading: () => client.request('threading', {})};

// ----- status bar, one task at a time -----

let current = null;  // {controller, label, t0}
let elapsedTimer = 0;

function setStatus(text, fraction, {busy = true} = {}) {
  $('status-text').textContent = text;
  state.statusTexts.push(text);
  const bar = $('progress');
  if (fraction === undefined || fraction === null || Number.isNaN(fraction)) bar.removeAttribute('value');
  else bar.value = Math.max(0, Math.min(1, fraction));
  $('status').classList.toggle('idle', !busy);
  if (!busy) $('elapsed').textContent = '';
}

function startClock(t0) {
  clearInterval(elapsedTimer);
  elapsedTimer = setInterval(() => { $('elapsed').textContent = `${((performance.now() - t0) / 1000).toFixed(1)} s`; }, 100);
}
function stopClock() { clearInterval(elapsedTimer); }

// ----- messages -----

const TITLES = {sha256: 'Corrupted download', limits: 'Too big for this GPU', 'device-lost': 'The GPU device was lost',
                'no-webgpu': 'No WebGPU: the models run on the CPU', quota: 'Not enough storage', restarted: 'The runtime restarted',
                runtime: 'The runtime did not start', pin: 'The runtime is not pinned',
                'runtime-pin': 'The runtime does not match its pin'};

function message(text, kind = 'info', {title = null, code = null} = {}) {
  const el = document.createElement('div');
  el.className = `msg ${kind}`;
  if (code) el.dataset.code = code;
  const body = document.createElement('div');
  if (title) {
    const b = document.createElement('b');
    b.textContent = title;
    body.append(b);
  }
  body.append(document.createTextNode(text));
  const close = document.createElement('button');
  close.className = 'ghost';
  close.textContent = 'Dismiss';
  close.onclick = () => el.remove();
  el.append(body, close);
  $('messages').append(el);
  state.messages.push({kind, code, title, text});
  return el;
}
function clearMessages() { $('messages').replaceChildren(); }

let lastLossAt = -Infinity;  // a lost device is explained once, by its event

function explain(e, label) {
  const code = e.code || 'other';
  if (code === 'aborted') return;
  if ((code === 'device-lost' || code === 'restarted') && performance.now() - lastLossAt < 10000) return;
  message(e.message, 'error', {title: TITLES[code] || `${label} failed`, code});
}

// ----- the runtime -----

const client = new RuntimeClient(new URL('./worker.mjs', import.meta.url), {
  pinUrl: new URL('./runtime.pin.json', import.meta.url).href,
  bundleUrl: new URL('../../package/dist/wick.js', import.meta.url).href,
  wasmUrl: new URL('../../package/dist/wick.wasm', import.meta.url).href,
});
const models = new Map();  // url|sha256 -> Model
client.on('restart', (reason) => {
  models.clear();
  runtimePromise = null;
  state.ready = false;
  state.restarts++;
  $('runtime-chip').textContent = 'runtime: restarting';
  $('runtime-chip').className = 'chip';
  startRuntime().catch(() => {});
});
client.on('device-lost', (m) => {
  lastLossAt = performance.now();
  message(`${m.message}. The runtime restarts by itself; run the demo again.`, 'error',
          {title: TITLES['device-lost'], code: 'device-lost'});
  client.restart('the GPU device was lost');
});
client.on('warn', (m) => message(m.message, 'warn', {title: TITLES.quota, code: 'quota'}));

let runtimePromise = null;
function startRuntime() {
  if (!runtimePromise) {
    const t0 = performance.now();
    if (!current) startClock(t0);
    runtimePromise = client.start((text, fraction) => { if (!current) setStatus(text, fraction); }).then((r) => {
      state.gpu = r.gpu;
      state.ready = true;
      state.openMs = state.openMs ?? performance.now();
      if (!current) {
        stopClock();
        $('elapsed').textContent = '';
      }
      state.backend = r.backend;
      state.threads = r.threads;
      $('runtime-chip').textContent = 'runtime ready';
      $('runtime-chip').className = 'chip ok';
      showBackend(r);
      if (!r.gpu) {
        state.noWebGPU = r.why;
        noWebGPU(r.why);
      }
      if (!current) setStatus(`Ready${r.gpu ? '' : ' (on the CPU)'}. Pick a photo or a test input.`, 1, {busy: false});
      return r;
    }, (e) => {
      runtimePromise = null;
      state.runtimeError = e.message;
      $('runtime-chip').textContent = 'runtime failed';
      $('runtime-chip').className = 'chip err';
      stopClock();
      if (!current) setStatus('The runtime did not start.', 0, {busy: false});
      explain(e, 'The runtime');
      throw e;
    });
  }
  return runtimePromise;
}

// Which backend runs the models, in the header (#backend-chip) and the footer: WebGPU on
// the named adapter, or the CPU (WebAssembly, on N threads where the page is cross-origin
// isolated: scripts/serve.mjs) when this browser has no WebGPU.
function showBackend(r) {
  const chip = $('backend-chip');
  chip.hidden = false;
  if (r.gpu) {
    const summary = r.gpu.adapter.summary.trim();
    chip.textContent = 'on WebGPU';
    chip.className = 'chip ok';
    chip.title = summary;
    $('gpu-info').textContent = `Runs on WebGPU: ${summary}; max buffer ${formatBytes(r.gpu.limits.maxBufferSize)}`;
  } else {
    const threads = r.threads > 1 ? `${r.threads} threads` : '1 thread';
    chip.textContent = `on the CPU, ${threads} (no WebGPU)`;
    chip.className = 'chip warn';
    chip.title = r.why || '';
    $('gpu-info').textContent = `Runs on the CPU (WebAssembly, ${threads}${r.threads > 1 ? '' :
      crossOriginIsolated ? '' : ': the page is not cross-origin isolated'}): no WebGPU here (${r.why})`;
  }
}

let noWebGPUShown = false;
function noWebGPU(why) {
  if (noWebGPUShown) return;
  noWebGPUShown = true;
  message(`This browser does not offer WebGPU (${why}), so the models run on the CPU (WebAssembly): the ` +
          'same results, more slowly. For GPU speed use a current Chrome, Edge or Safari (on Linux, Chrome with ' +
          'chrome://flags/#enable-unsafe-webgpu).', 'warn', {title: TITLES['no-webgpu'], code: 'no-webgpu'});
}

// ----- demos -----

// ?model= / ?model2= (with ?sha256= / ?sha256_2=) replace the first / second program of
// the option the page opens with.
function applyOverrides(demo, option) {
  const names = Object.keys(option.programs);
  const programs = {...option.programs};
  [['model', 'sha256', 0], ['model2', 'sha256_2', 1]].forEach(([key, shaKey, i]) => {
    const url = params.get(key);
    if (!url || !names[i]) return;
    const was = programs[names[i]];
    const sha = params.get(shaKey);
    programs[names[i]] = {...was, url, sha256: sha === 'none' ? null : (sha || was.sha256).toLowerCase(), size: 0,
                          license: `given by ?${key}=`, override: true, reference: undefined};
    if (sha === 'none') message(`${url} runs without a sha256 check (?${shaKey}=none).`, 'warn');
  });
  return {...option, programs, reference: programs[names[0]].override ? null : option.reference};
}

const mounted = new Map();  // id -> {section, hooks, ctx}
const selected = {};        // demo id -> option id

// The overrides apply to the demo the page opened with, and to its option from ?option=
// (or its first): picking another option in the page runs that option as registered.
function optionOf(demo) {
  const option = demo.options.find((o) => o.id === selected[demo.id]) || demo.options[0];
  const urlOption = demo.options.find((o) => o.id === params.get('option')) || demo.options[0];
  const overridden = demo.id === openDemoId && option === urlOption && (params.has('model') || params.has('model2'));
  return overridden ? applyOverrides(demo, option) : option;
}

async function runTask(label, fn) {
  if (current) {
    message(`"${current.label}" is still running: wait for it or cancel it first.`, 'warn');
    return undefined;
  }
  const controller = new AbortController();
  const t0 = performance.now();
  current = {controller, label, t0};
  $('cancel').hidden = false;
  $('cancel').disabled = false;
  startClock(t0);
  setStatus(label, undefined);
  try {
    const value = await fn((text, fraction) => setStatus(text, fraction), controller.signal);
    if (controller.signal.aborted) throw Object.assign(new Error('cancelled'), {code: 'aborted'});
    setStatus(`${label}: done in ${((performance.now() - t0) / 1000).toFixed(1)} s`, 1, {busy: false});
    return value;
  } catch (e) {
    if (controller.signal.aborted || e.code === 'aborted' || e.name === 'AbortError') {
      await client.cancelledStopped();
      setStatus(`${label}: cancelled`, 0, {busy: false});
    } else {
      setStatus(`${label}: failed`, 0, {busy: false});
      explain(e, label);
    }
    return undefined;
  } finally {
    current = null;
    stopClock();
    $('cancel').hidden = true;
    refreshCache();
  }
}

function makeModel(r, label) {
  return {
    meta: r.meta, label,
    run(inputs, {method = 'forward', signal = null, transfer = false} = {}) {
      const buffers = transfer ? inputs.filter((v) => v && v.data && v.data.buffer).map((v) => v.data.buffer) : [];
      return client.request('run', {handle: r.handle, method, inputs}, {signal, transfer: buffers});
    },
  };
}

function makeCtx(demo, section) {
  const ctx = {
    root: section.querySelector('.demo-body'),
    entry: demo,
    photos: PHOTOS,
    option: () => optionOf(demo),
    task: runTask,
    message: (text, kind) => message(text, kind),
    clearMessages,
    gpu: () => state.gpu,
    backend: () => state.backend,  // 'webgpu' or 'cpu', once the runtime is up
    publish: (s) => { state.demos[demo.id] = {...(state.demos[demo.id] || {}), ...s}; },
    async load(name = 'main', step = () => {}, signal = null) {
      await startRuntime();
      const option = optionOf(demo);
      const spec = option.programs[name];
      if (!spec) throw new Error(`${demo.id}: the option ${option.id} has no program '${name}'`);
      const key = `${spec.url}|${spec.sha256}`;
      if (models.has(key)) return models.get(key);
      const label = spec.override ? spec.url : `${option.label.replace(/ \(.*/, '')}${name === 'main' ? '' : ` ${name}`}`;
      const res = await client.request('load', {...spec, label}, {onProgress: step, signal});
      if (res.unverified) message(`${spec.url} was not verified (no sha256).`, 'warn');
      const model = makeModel(res, label);
      models.set(key, model);
      return model;
    },
    // One of this demo's own worker requests (demos/<id>/worker_ops.mjs), once the runtime is up.
    async request(op, args, {onProgress = null, signal = null} = {}) {
      await startRuntime();
      return client.request(`${demo.id}/${op}`, args, {onProgress, signal});
    },
    async fetchAsset(url, {sha256 = null, step = () => {}, signal = null} = {}) {
      const {bytes} = await fetchVerifiedCached(url, {sha256, signal,
        onProgress: ({loaded, total}) => step(`Downloading ${url.split('/').pop()}: ${formatBytes(loaded)}`, total ? loaded / total : undefined)});
      return bytes;
    },
  };
  return ctx;
}

// What a download costs before it is made: size (and whether it is kept already),
// licence, pinned sha256. cachedUrls: the URLs in the cache now.
function describeOption(option, cachedUrls = new Set()) {
  const parts = Object.entries(option.programs).map(([name, p]) => {
    const kept = cachedUrls.has(new URL(p.url, location.href).href);
    return `${name === 'main' ? '' : `${name}: `}${p.size ? formatBytes(p.size) : 'size unknown'}` +
           `${kept ? ' (downloaded)' : ''}, ${p.license}${p.sha256 ? `, sha256 ${p.sha256.slice(0, 12)}…` : ', not verified'}`;
  });
  return parts.join(' · ');
}
const infoUpdaters = [];
async function refreshModelInfo() {
  const urls = new Set((await listCached()).map((e) => e.url));
  for (const update of infoUpdaters) update(urls);
}

let openDemoId = null;

async function openDemo(id) {
  const demo = DEMOS.find((d) => d.id === id) || DEMOS[0];
  openDemoId = openDemoId || demo.id;
  for (const b of $('tabs').children) b.setAttribute('aria-selected', String(b.dataset.id === demo.id));
  for (const m of mounted.values()) m.section.hidden = true;
  if (mounted.has(demo.id)) {
    mounted.get(demo.id).section.hidden = false;
    return;
  }
  const section = document.createElement('section');
  section.id = `demo-${demo.id}`;
  section.innerHTML = '<h2></h2><p class="hint blurb"></p><div class="row model-row"></div><div class="demo-body"></div>';
  section.querySelector('h2').textContent = demo.title;
  section.querySelector('.blurb').textContent = demo.blurb;
  const row = section.querySelector('.model-row');
  const label = document.createElement('label');
  label.textContent = 'Model ';
  const select = document.createElement('select');
  select.className = 'model-select';
  const wanted = params.get('option');
  for (const o of demo.options) {
    const opt = document.createElement('option');
    opt.value = o.id;
    opt.textContent = o.label;
    select.append(opt);
  }
  if (wanted && demo.options.some((o) => o.id === wanted) && demo.id === openDemoId) select.value = wanted;
  selected[demo.id] = select.value;
  label.append(select);
  const info = document.createElement('span');
  info.className = 'hint model-info';
  row.append(label, info);
  $('demos').append(section);
  const entry = {section, hooks: {}, ctx: null};
  mounted.set(demo.id, entry);
  let cachedUrls = new Set();
  const showInfo = () => { info.textContent = describeOption(optionOf(demo), cachedUrls); };
  infoUpdaters.push((urls) => {
    cachedUrls = urls;
    showInfo();
  });
  showInfo();
  refreshModelInfo();
  select.onchange = () => {
    selected[demo.id] = select.value;
    showInfo();
    if (entry.hooks.onModelChange) entry.hooks.onModelChange(optionOf(demo));
  };
  entry.ctx = makeCtx(demo, section);
  try {
    const mod = await import(new URL(demo.module, import.meta.url).href);
    entry.hooks = (await mod.default.mount(entry.ctx)) || {};
    state.demos[demo.id] = {...(state.demos[demo.id] || {}), mounted: true};
  } catch (e) {
    message(`The ${demo.title} demo did not load: ${e.message}`, 'error');
    state.demos[demo.id] = {...(state.demos[demo.id] || {}), mounted: false, error: e.message};
  }
}

// ----- cache panel -----

async function refreshCache() {
  const tbody = $('cache-table').querySelector('tbody');
  const entries = await listCached();
  const total = entries.reduce((a, e) => a + e.bytes, 0);
  tbody.replaceChildren(...entries.map((e) => {
    const tr = document.createElement('tr');
    const name = new URL(e.url).pathname;
    tr.innerHTML = '<td class="url"></td><td></td><td></td><td><button class="ghost">Free</button></td>';
    tr.children[0].textContent = name;
    tr.children[1].textContent = e.store === 'wick' ? 'runtime' : 'models';
    tr.children[2].textContent = formatBytes(e.bytes);
    tr.querySelector('button').onclick = async () => {
      await freeCached(e.store, e.url);
      refreshCache();
    };
    return tr;
  }));
  const est = await storageEstimate();
  $('cache-usage').textContent = `${entries.length} file${entries.length === 1 ? '' : 's'}, ${formatBytes(total)} kept for next time` +
      (est ? ` · this site uses ${formatBytes(est.usage)} of ${formatBytes(est.quota)} the browser allows` : '');
  state.cache = {entries, total};
  const urls = new Set(entries.map((e) => e.url));
  for (const update of infoUpdaters) update(urls);
  return entries;
}

$('cache-toggle').onclick = () => {
  const panel = $('cache');
  panel.hidden = !panel.hidden;
  $('cache-toggle').setAttribute('aria-expanded', String(!panel.hidden));
  if (!panel.hidden) refreshCache();
};
$('cache-free-all').onclick = async () => {
  await freeAll();
  models.clear();
  refreshCache();
};
$('cache-refresh').onclick = () => refreshCache();
$('cancel').onclick = () => {
  if (!current) return;
  $('cancel').disabled = true;
  setStatus(`Cancelling ${current.label}`, undefined);
  current.controller.abort();
};

// ----- start -----

for (const demo of DEMOS) {
  const b = document.createElement('button');
  b.role = 'tab';
  b.dataset.id = demo.id;
  b.textContent = demo.title;
  b.onclick = () => {
    history.replaceState(null, '', `?demo=${demo.id}`);
    openDemo(demo.id);
  };
  $('tabs').append(b);
}

window.addEventListener('unhandledrejection', (e) => {
  if (e.reason && (e.reason.code === 'aborted' || e.reason.name === 'AbortError')) e.preventDefault();
});

openDemo(params.get('demo') || DEMOS[0].id);
startRuntime().catch(() => {});  // with or without WebGPU: the worker says which backend
state.client = client;  // for the tests: workers, restarts
