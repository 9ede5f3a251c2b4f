// The ESRGAN page: load Wick and the model (with progress), then upscale what the person
// picks, 64x64 tile by tile (the bundled model takes exactly 64x64).
import {createExecuTorch, fetchVerified} from '../../package/index.mjs';

const MODEL_URL = new URL('../../examples/esrgan/model.pte', import.meta.url);
const MODEL_SHA256 = '7b05aba970ff5a58e01e93025da607f0b5efc3db57fd1e100054a883aa597e71';
const TILE = 64, SCALE = 4;

const statusBox = document.getElementById('status');
const statusText = document.getElementById('status-text');
const progress = document.getElementById('progress');
const fileInput = document.getElementById('file');
const timing = document.getElementById('timing');

function setStatus(text, fraction) {
  statusText.textContent = text;
  if (fraction === undefined) progress.removeAttribute('value');
  else progress.value = fraction;
}

function onProgress(what) {
  return ({loaded, total}) => setStatus(`Loading ${what}: ${(loaded / 1048576).toFixed(1)} MiB`,
                                        total ? loaded / total : undefined);
}

// RGBA pixels of one tile -> float32 NCHW on the 0..255 scale (edge pixels repeated
// where the tile runs past the image).
function tileInput(image, x0, y0) {
  const {width, height, data} = image;
  const x = new Float32Array(3 * TILE * TILE);
  for (let y = 0; y < TILE; y++) {
    for (let xx = 0; xx < TILE; xx++) {
      const sx = Math.min(x0 + xx, width - 1), sy = Math.min(y0 + y, height - 1);
      const p = 4 * (sy * width + sx);
      for (let c = 0; c < 3; c++) x[c * TILE * TILE + y * TILE + xx] = data[p + c];
    }
  }
  return x;
}

// NCHW output of one tile -> the output image, clipped to 0..255 and rounded.
function placeTile(out, y, x0, y0) {
  const n = TILE * SCALE;
  for (let yy = 0; yy < n && y0 * SCALE + yy < out.height; yy++) {
    for (let xx = 0; xx < n && x0 * SCALE + xx < out.width; xx++) {
      const p = 4 * ((y0 * SCALE + yy) * out.width + x0 * SCALE + xx);
      for (let c = 0; c < 3; c++) {
        out.data[p + c] = Math.min(255, Math.max(0, Math.round(y[c * n * n + yy * n + xx])));
      }
      out.data[p + 3] = 255;
    }
  }
}

async function upscale(model, bitmap) {
  const inCanvas = document.getElementById('input');
  inCanvas.width = bitmap.width;
  inCanvas.height = bitmap.height;
  const ictx = inCanvas.getContext('2d');
  ictx.drawImage(bitmap, 0, 0);
  const image = ictx.getImageData(0, 0, bitmap.width, bitmap.height);
  const outCanvas = document.getElementById('output');
  outCanvas.width = bitmap.width * SCALE;
  outCanvas.height = bitmap.height * SCALE;
  const octx = outCanvas.getContext('2d');
  const out = octx.createImageData(outCanvas.width, outCanvas.height);
  const tiles = [];
  for (let y0 = 0; y0 < bitmap.height; y0 += TILE) {
    for (let x0 = 0; x0 < bitmap.width; x0 += TILE) tiles.push([x0, y0]);
  }
  const t0 = performance.now();
  for (let i = 0; i < tiles.length; i++) {
    setStatus(`Upscaling tile ${i + 1} of ${tiles.length}`, i / tiles.length);
    const [x0, y0] = tiles[i];
    const x = model.et.Tensor.fromArray([1, 3, TILE, TILE], tileInput(image, x0, y0));
    const [y] = await model.module.forward([x]);
    placeTile(out, y.data, x0, y0);
    octx.putImageData(out, 0, 0);
  }
  const ms = performance.now() - t0;
  timing.textContent = `${bitmap.width}x${bitmap.height} -> ${out.width}x${out.height} in ${ms.toFixed(0)} ms`;
  setStatus('Done. Pick another picture.', 1);
  return {width: out.width, height: out.height, ms, tiles: tiles.length};
}

async function main() {
  setStatus('Loading the runtime', undefined);
  const et = await createExecuTorch({onProgress: onProgress('the runtime')});
  setStatus('Opening WebGPU', undefined);
  const gpu = await et.initWebGPU();
  const bytes = await fetchVerified(MODEL_URL, {sha256: MODEL_SHA256, onProgress: onProgress('the model')});
  setStatus('Compiling the model for this GPU', undefined);
  const module = et.Module.load(bytes);
  await module.loadMethod('forward');
  const model = {et, module};
  setStatus(`Ready on ${gpu.adapter.summary.trim()}. Pick a picture.`, 1);
  fileInput.disabled = false;
  window.esrgan = {ready: true, last: null};
  fileInput.addEventListener('change', async () => {
    const file = fileInput.files[0];
    if (!file) return;
    fileInput.disabled = true;
    try {
      window.esrgan.last = await upscale(model, await createImageBitmap(file, {colorSpaceConversion: 'none', premultiplyAlpha: 'none'}));
    } catch (e) {
      statusBox.classList.add('error');
      setStatus(`Failed: ${e.message}`, 0);
      window.esrgan.last = {error: e.message};
    } finally {
      fileInput.disabled = false;
    }
  });
}

main().catch((e) => {
  statusBox.classList.add('error');
  setStatus(`Failed: ${e.message}`, 0);
  window.esrgan = {ready: false, error: e.message};
});
