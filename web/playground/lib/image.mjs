// What the vision demos share: a photo picker (sample photos, a file, a dropped file, or the
// fixture's test input), images resized into NCHW tensors and back, canvases, and the
// colour map of the depth demo.
import {el} from './dom.mjs';
import {fetchTensor} from './reference_check.mjs';

// An ImageBitmap of a URL or a Blob, pixels as stored (no colour conversion).
export async function loadBitmap(src) {
  const blob = typeof src === 'string' ? await (await fetchOk(src)).blob() : src;
  try {
    return await createImageBitmap(blob, {colorSpaceConversion: 'none', premultiplyAlpha: 'none'});
  } catch (e) {
    throw new Error(`${typeof src === 'string' ? src : src.name || 'the file'} is not an image this browser can decode`);
  }
}

async function fetchOk(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  return r;
}

// RGBA pixels of `source` (bitmap or canvas) resized to w x h with the browser's
// high-quality filter.
export function resized(source, w, h) {
  const c = new OffscreenCanvas(w, h);
  const ctx = c.getContext('2d', {willReadFrequently: true});
  ctx.imageSmoothingEnabled = true;
  ctx.imageSmoothingQuality = 'high';
  ctx.drawImage(source, 0, 0, w, h);
  return ctx.getImageData(0, 0, w, h);
}

// ImageData -> float32 NCHW [1, 3, h, w]: ((v / 255) * range - mean) / std per channel.
export function toNCHW(image, {mean = [0, 0, 0], std = [1, 1, 1], range = 1} = {}) {
  const {width: w, height: h, data} = image;
  const out = new Float32Array(3 * w * h);
  for (let c = 0; c < 3; c++) {
    const m = mean[c], s = std[c], k = range / 255, base = c * w * h;
    for (let i = 0; i < w * h; i++) out[base + i] = (data[4 * i + c] * k - m) / s;
  }
  return out;
}

// The inverse, for showing a tensor (the fixture's test input) as a picture.
export function fromNCHW(data, w, h, {mean = [0, 0, 0], std = [1, 1, 1], range = 1} = {}) {
  const image = new ImageData(w, h);
  for (let i = 0; i < w * h; i++) {
    for (let c = 0; c < 3; c++) {
      const v = (data[c * w * h + i] * std[c] + mean[c]) * 255 / range;
      image.data[4 * i + c] = Math.max(0, Math.min(255, Math.round(v)));
    }
    image.data[4 * i + 3] = 255;
  }
  return image;
}

export function canvasOf(image) {
  const c = document.createElement('canvas');
  c.width = image.width;
  c.height = image.height;
  const ctx = c.getContext('2d');
  if (image instanceof ImageData) ctx.putImageData(image, 0, 0);
  else ctx.drawImage(image, 0, 0);
  return c;
}

// A canvas showing `source` scaled to fit in maxW x maxH (keeping its aspect ratio).
export function fitted(source, maxW = 480, maxH = 400, smooth = true) {
  const k = Math.min(maxW / source.width, maxH / source.height, 4);
  const c = document.createElement('canvas');
  c.width = Math.max(1, Math.round(source.width * k));
  c.height = Math.max(1, Math.round(source.height * k));
  const ctx = c.getContext('2d');
  ctx.imageSmoothingEnabled = smooth;
  ctx.imageSmoothingQuality = 'high';
  ctx.drawImage(source instanceof ImageData ? canvasOf(source) : source, 0, 0, c.width, c.height);
  return c;
}

// Inferno-like colour map (dark purple = far, yellow = near): stops every 1/8.
const STOPS = [[0, 0, 4], [40, 11, 84], [101, 21, 110], [159, 42, 99], [212, 72, 66], [245, 125, 21],
               [250, 193, 39], [245, 251, 162]];
export function colormap(values, w, h) {
  let lo = Infinity, hi = -Infinity;
  for (const v of values) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  const span = hi > lo ? hi - lo : 1;
  const image = new ImageData(w, h);
  for (let i = 0; i < w * h; i++) {
    const t = ((values[i] - lo) / span) * (STOPS.length - 1);
    const k = Math.min(STOPS.length - 2, Math.floor(t)), f = t - k;
    for (let c = 0; c < 3; c++) image.data[4 * i + c] = Math.round(STOPS[k][c] * (1 - f) + STOPS[k + 1][c] * f);
    image.data[4 * i + 3] = 255;
  }
  return {image, lo, hi};
}

export function colormapBar(w = 240, h = 12) {
  const values = new Float32Array(w * h);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) values[y * w + x] = x;
  return canvasOf(colormap(values, w, h).image);
}

// The fixture case's input tensors of an option (its `reference`), or null. An input
// marked `image: true` is a PNG of exactly the tensor's height and width, whose 8-bit RGB
// becomes the tensor with the option's normalisation (as a photo would, minus the resize):
// a real photo as a reference case, a third of the raw float32 size.
export async function testInputs(option, signal) {
  if (!option.reference) return null;
  return Promise.all(option.reference.inputs.map(async (t) => {
    if (!t.image) return fetchTensor(t, signal);
    const bitmap = await loadBitmap(t.url);
    const [, , h, w] = t.shape;
    if (bitmap.width !== w || bitmap.height !== h) {
      throw new Error(`${t.url}: ${bitmap.width}x${bitmap.height}, the reference input is ${w}x${h}`);
    }
    const c = new OffscreenCanvas(w, h);
    const g = c.getContext('2d');
    g.drawImage(bitmap, 0, 0);
    const norm = {mean: option.input.mean, std: option.input.std, range: option.input.range};
    return {dtype: 'float32', shape: t.shape, data: toNCHW(g.getImageData(0, 0, w, h), norm)};
  }));
}

// The picker: sample photos as thumbnails, a file input, drop on the page area, and (when
// the option has a fixture case) a "test input" button. onPick({kind: 'image', bitmap,
// name}) or onPick({kind: 'test'}).
export function photoPicker(ctx, onPick, {photos = ctx.photos} = {}) {
  const thumbs = el('div', {class: 'photos'});
  const file = el('input', {type: 'file', accept: 'image/*', class: 'file-input', 'aria-label': 'Pick a picture'});
  const drop = el('div', {class: 'drop'}, 'or drop a picture here');
  const test = el('button', {class: 'test-input', title: 'the fixture case input, to compare with the PyTorch reference'}, 'Test input');
  const select = (b) => {
    for (const t of thumbs.querySelectorAll('.thumb')) t.classList.toggle('selected', t === b);
  };
  for (const p of photos) {
    const b = el('button', {class: 'thumb', title: `${p.name}: ${p.credit}`, 'data-name': p.name},
                 el('img', {src: p.url, alt: p.name, loading: 'lazy'}));
    b.querySelector('img').onerror = () => b.remove();  // photos.sh not run: offer the others
    b.onclick = async () => {
      select(b);
      try {
        onPick({kind: 'image', bitmap: await loadBitmap(p.url), name: p.name});
      } catch (e) {
        ctx.message(e.message, 'error');
      }
    };
    thumbs.append(b);
  }
  file.onchange = async () => {
    if (!file.files[0]) return;
    select(null);
    try {
      onPick({kind: 'image', bitmap: await loadBitmap(file.files[0]), name: file.files[0].name});
    } catch (e) {
      ctx.message(e.message, 'error');
    }
    file.value = '';
  };
  drop.ondragover = (e) => {
    e.preventDefault();
    drop.classList.add('over');
  };
  drop.ondragleave = () => drop.classList.remove('over');
  drop.ondrop = async (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    const f = e.dataTransfer.files[0];
    if (!f) return;
    try {
      onPick({kind: 'image', bitmap: await loadBitmap(f), name: f.name});
    } catch (err) {
      ctx.message(err.message, 'error');
    }
  };
  test.onclick = () => {
    select(null);
    onPick({kind: 'test'});
  };
  const row = el('div', {class: 'row picker'}, thumbs, file, drop, test);
  const update = () => { test.hidden = !ctx.option().reference; };
  update();
  return {element: row, update};
}

// Download link for a canvas as PNG.
export function downloadButton(label, getCanvas, filename) {
  return el('button', {class: 'download', onclick: async () => {
    const canvas = getCanvas();
    if (!canvas) return;
    const blob = await new Promise((r) => canvas.toBlob(r, 'image/png'));
    const a = el('a', {href: URL.createObjectURL(blob), download: filename});
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
  }}, label);
}
