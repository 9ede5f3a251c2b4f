// The ESRGAN page: load Wick and the model (with progress), then upscale the picture the
// person picks, drops or asks for (the sample), in overlapping 64x64 tiles blended without
// seams (../lib/tiling.mjs; the bundled model takes exactly 64x64). Each run starts from a
// clean state (no old result, no red error style), shows its progress tile by tile (and
// within a tile by the time the finished ones took) with the result filling in, can be
// cancelled between tiles, and offers the result as a PNG.
//
// For tests, window.esrgan = {ready, busy, runs, last}: `runs` counts finished runs and
// `last` is the latest one's {width, height, ms, tiles} or {error} or {cancelled}.
import {createExecuTorch, fetchVerified} from '../../package/index.mjs';
import {planTiles, toRGBA, upscaleTiled} from '../lib/tiling.mjs';

const MODEL_URL = new URL('../../examples/esrgan/model.pte', import.meta.url);
const MODEL_SHA256 = '7b05aba970ff5a58e01e93025da607f0b5efc3db57fd1e100054a883aa597e71';
const SAMPLE_URL = new URL('../../examples/esrgan/input.png', import.meta.url);
const TILE = 64, SCALE = 4;

const $ = (id) => document.getElementById(id);
const statusBox = $('status'), statusText = $('status-text'), progress = $('progress');
const fileInput = $('file'), sampleButton = $('sample'), cancelButton = $('cancel'), downloadButton = $('download');
const dropZone = $('drop'), timing = $('timing'), inCanvas = $('input'), outCanvas = $('output');

function setStatus(text, fraction) {
  statusText.textContent = text;
  if (fraction === undefined) progress.removeAttribute('value');
  else progress.value = fraction;
}

function onProgress(what) {
  return ({loaded, total}) => setStatus(`Loading ${what}: ${(loaded / 1048576).toFixed(1)} MiB`,
                                        total ? loaded / total : undefined);
}

function clearCanvas(canvas) {
  canvas.width = 0;
  canvas.height = 0;
}

// What a run shows while idle: inputs on, cancel off.
function setBusy(busy) {
  window.esrgan.busy = busy;
  fileInput.disabled = busy;
  sampleButton.disabled = busy;
  cancelButton.disabled = !busy;
}

let resultName = 'result';

async function upscale(model, bitmap, signal) {
  inCanvas.width = bitmap.width;
  inCanvas.height = bitmap.height;
  const ictx = inCanvas.getContext('2d');
  ictx.drawImage(bitmap, 0, 0);
  const image = ictx.getImageData(0, 0, bitmap.width, bitmap.height);
  const plan = planTiles(bitmap.width, bitmap.height, TILE, TILE);
  outCanvas.width = bitmap.width * SCALE;
  outCanvas.height = bitmap.height * SCALE;
  const octx = outCanvas.getContext('2d');
  const out = octx.createImageData(outCanvas.width, outCanvas.height);
  const t0 = performance.now();
  // A tile is one GPU submission that reports nothing until it ends, so the bar moves
  // within a tile by time: every tile has the same size and cost, and once one has finished
  // its duration says how far the next one is (capped below the tile's end, which only the
  // result moves past). The first tile, with nothing to go on, shows an indeterminate bar.
  let tileMs = 0, tilesDone = 0;
  const runTile = async ({index, count, w, h, chw}) => {
    setStatus(`Upscaling tile ${index + 1} of ${count}`, tilesDone ? index / count : undefined);
    const start = performance.now();
    const timer = tilesDone ? setInterval(() => {
      progress.value = (index + Math.min(0.95, (performance.now() - start) / tileMs)) / count;
    }, 100) : null;
    try {
      const x = model.et.Tensor.fromArray([1, 3, h, w], chw);
      const [y] = await model.module.forward([x]);
      tileMs = (tileMs * tilesDone + performance.now() - start) / (tilesDone + 1);
      tilesDone++;
      return y.data;
    } finally {
      clearInterval(timer);
    }
  };
  const onTile = ({index, count, partial}) => {
    progress.value = (index + 1) / count;
    if (index + 1 < count) {
      toRGBA(partial(), out.data);
      octx.putImageData(out, 0, 0);
    }
  };
  const result = await upscaleTiled(image, plan, SCALE, runTile, {onTile, signal});
  toRGBA(result, out.data);
  octx.putImageData(out, 0, 0);
  const ms = performance.now() - t0;
  const tiles = plan.count > 1 ? `, ${plan.count} overlapping tiles` : '';
  timing.textContent = `${bitmap.width}x${bitmap.height} -> ${out.width}x${out.height} in ${ms.toFixed(0)} ms${tiles}`;
  return {width: out.width, height: out.height, ms, tiles: plan.count};
}

async function run(model, blob, name) {
  if (window.esrgan.busy) return;
  const controller = new AbortController();
  cancelButton.onclick = () => controller.abort();
  setBusy(true);
  // A new run forgets the last one: its error style, its result and its download.
  statusBox.classList.remove('error');
  window.esrgan.last = null;
  downloadButton.disabled = true;
  clearCanvas(outCanvas);
  timing.textContent = '';
  resultName = `${name.replace(/\.[^.]*$/, '') || 'result'}_x4.png`;
  let last;
  try {
    setStatus(`Reading ${name}`, undefined);
    let bitmap;
    try {
      bitmap = await createImageBitmap(blob, {colorSpaceConversion: 'none', premultiplyAlpha: 'none'});
    } catch (e) {
      throw new Error(`${name} is not an image this browser can decode (${e.message})`);
    }
    last = await upscale(model, bitmap, controller.signal);
    downloadButton.disabled = false;
    setStatus('Done. Pick or drop another picture.', 1);
  } catch (e) {
    clearCanvas(outCanvas);
    timing.textContent = '';
    if (e?.name === 'AbortError') {
      setStatus('Cancelled. Pick or drop another picture.', 0);
      last = {cancelled: true};
    } else {
      statusBox.classList.add('error');
      setStatus(`Failed: ${e.message}`, 0);
      last = {error: e.message};
    }
  } finally {
    cancelButton.onclick = null;
    setBusy(false);
    window.esrgan.last = last;
    window.esrgan.runs++;
  }
}

function download() {
  outCanvas.toBlob((blob) => {
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = resultName;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 60000);
  }, 'image/png');
}

async function main() {
  window.esrgan = {ready: false, busy: false, runs: 0, last: null};
  setStatus('Loading the runtime', undefined);
  const et = await createExecuTorch({onProgress: onProgress('the runtime')});
  const bytes = await fetchVerified(MODEL_URL, {sha256: MODEL_SHA256, onProgress: onProgress('the model')});
  // The runtime's default backend ('auto'): WebGPU when this browser has an adapter, else
  // the CPU (WebAssembly), so a browser without WebGPU still upscales, more slowly.
  setStatus('Preparing the model (on WebGPU when this browser has it, else on the CPU)', undefined);
  const module = et.Module.load(bytes);
  await module.loadMethod('forward');
  const model = {et, module};
  // On the CPU: wick-threads.js on every core (at most 8) where the page is cross-origin
  // isolated (scripts/serve.mjs), else wick.js on one thread (package/index.mjs).
  const threads = et.threading.threads;
  const where = et.delegateBackend === 'webgpu' ? `WebGPU (${et.webgpu.adapter.summary.trim()})`
                                                : `the CPU (WebAssembly, ${threads > 1 ? `${threads} threads` : '1 thread'}; this browser has no WebGPU)`;
  window.esrgan.backend = et.delegateBackend;
  window.esrgan.threads = threads;
  setStatus(`Ready on ${where}. Pick or drop a picture.`, 1);

  fileInput.addEventListener('change', () => {
    const file = fileInput.files[0];
    if (file) run(model, file, file.name).finally(() => { fileInput.value = ''; });
  });
  sampleButton.addEventListener('click', async () => {
    try {
      const blob = await (await fetch(SAMPLE_URL)).blob();
      await run(model, blob, 'sample.png');
    } catch (e) {
      statusBox.classList.add('error');
      setStatus(`Failed to fetch the sample: ${e.message}`, 0);
    }
  });
  downloadButton.addEventListener('click', download);
  dropZone.addEventListener('dragover', (e) => {
    e.preventDefault();
    dropZone.classList.add('over');
  });
  dropZone.addEventListener('dragleave', () => dropZone.classList.remove('over'));
  dropZone.addEventListener('drop', (e) => {
    e.preventDefault();
    dropZone.classList.remove('over');
    const file = e.dataTransfer?.files?.[0];
    if (file) run(model, file, file.name);
  });
  window.esrgan.ready = true;
  setBusy(false);
}

main().catch((e) => {
  statusBox.classList.add('error');
  setStatus(`Failed: ${e.message}`, 0);
  window.esrgan = {...window.esrgan, ready: false, error: e.message};
});
