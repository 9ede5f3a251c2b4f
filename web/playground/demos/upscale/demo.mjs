// 4x super-resolution of a picture of any size: cut into the program's fixed-size tiles
// with overlaps that are blended without seams (web/lib/tiling.mjs, the algorithm of the
// native upscaler), each tile run in the worker; then a before/after slider and a PNG
// download. The option's input.range says the program's value scale (255: pixels as they
// are, ESRGAN-slim; 1: pixels / 255, Real-ESRGAN).
import {planTiles, toRGBA, upscaleTiled} from '../../../lib/tiling.mjs';
import {el} from '../../lib/dom.mjs';
import {canvasOf, downloadButton, fromNCHW, photoPicker, testInputs} from '../../lib/image.mjs';

// The largest result drawn (a canvas of 4096x4096 takes 64 MiB of memory).
const MAX_OUTPUT_PIXELS = 16777216;

const SIZES = [['original size', 0], ['at most 256 px', 256], ['at most 128 px', 128], ['at most 64 px', 64]];

function shrink(bitmap, max) {
  const k = max ? Math.min(1, max / Math.max(bitmap.width, bitmap.height)) : 1;
  const w = Math.max(1, Math.round(bitmap.width * k)), h = Math.max(1, Math.round(bitmap.height * k));
  const c = new OffscreenCanvas(w, h);
  const g = c.getContext('2d', {willReadFrequently: true});
  g.imageSmoothingQuality = 'high';
  g.drawImage(bitmap, 0, 0, w, h);
  return g.getImageData(0, 0, w, h);
}

// Before/after: the input (nearest-neighbour 4x) over the output, cut at the slider.
function comparison(input, output) {
  const after = canvasOf(output);
  after.className = 'after';
  const before = document.createElement('canvas');
  before.width = output.width;
  before.height = output.height;
  const g = before.getContext('2d');
  g.imageSmoothingEnabled = false;
  g.drawImage(canvasOf(input), 0, 0, before.width, before.height);
  before.className = 'before';
  const display = Math.min(560, output.width * Math.max(1, Math.floor(512 / output.width)));
  for (const c of [after, before]) c.style.width = `${display}px`;
  const handle = el('div', {class: 'handle'});
  const box = el('div', {class: 'compare'}, after, before, handle,
                 el('span', {class: 'compare-label', style: 'left:.5em'}, 'before'),
                 el('span', {class: 'compare-label', style: 'right:.5em'}, 'after: 4x'));
  const slider = el('input', {type: 'range', min: '0', max: '100', value: '50', class: 'compare-slider', 'aria-label': 'before/after'});
  const set = () => {
    before.style.clipPath = `inset(0 ${100 - slider.value}% 0 0)`;
    handle.style.left = `${slider.value}%`;
  };
  slider.oninput = set;
  set();
  box.style.width = `${display}px`;
  return {element: el('div', {}, box, el('div', {}, slider)), after};
}

export default {
  async mount(ctx) {
    const sizeSelect = el('select', {class: 'size-select'}, ...SIZES.map(([label, v]) => el('option', {value: String(v)}, label)));
    const stats = el('p', {class: 'hint stats'});
    const result = el('div', {class: 'figures'});
    let output = null;
    let runs = 0;
    const download = downloadButton('Download PNG', () => output, 'upscaled-4x.png');
    download.disabled = true;

    async function run(pick) {
      const option = ctx.option();
      const [, , th, tw] = option.input.shape;
      const range = option.input.range, scale = option.input.scale;
      await ctx.task('Super-resolution', async (step, signal) => {
        let image, direct = null;
        if (pick.kind === 'test') {
          const [t] = await testInputs(option, signal);
          direct = t;
          image = fromNCHW(t.data, tw, th, {range});
        } else {
          image = shrink(pick.bitmap, Number(sizeSelect.value));
          const pixels = image.width * scale * image.height * scale;
          if (pixels > MAX_OUTPUT_PIXELS) {
            throw new Error(`${pick.name} is ${image.width}x${image.height}: its ${scale}x result would have ` +
                            `${(pixels / 1e6).toFixed(0)} million pixels, more than this page draws (${(MAX_OUTPUT_PIXELS / 1e6).toFixed(1)} million). ` +
                            'Pick a smaller input size (next to the Download button) and run again.');
          }
        }
        const model = await ctx.load('main', step, signal);
        const t0 = performance.now();
        let float, tiles;
        if (direct) {
          // The fixture's tensor as it is, one run: its output is what the test compares.
          step('Upscaling the test input', undefined);
          const [y] = await model.run([direct], {signal});
          float = {width: tw * scale, height: th * scale, data: y.data.map((v) => v * (255 / range))};
          ctx.publish({outputs: [y]});
          tiles = 1;
        } else {
          const plan = planTiles(image.width, image.height, tw, th);
          tiles = plan.count;
          let shownAt = 0;
          float = await upscaleTiled(image, plan, scale, async ({index, count, chw}) => {
            step(`Upscaling tile ${index + 1} of ${count}`, index / count);
            const data = range === 255 ? chw : chw.map((v) => v * (range / 255));
            const [y] = await model.run([{dtype: 'float32', shape: [1, 3, th, tw], data}], {signal});
            return range === 255 ? y.data : y.data.map((v) => v * (255 / range));
          }, {signal, onTile: ({index, count, partial}) => {
            if (index + 1 < count && performance.now() - shownAt > 700) {
              shownAt = performance.now();
              const p = partial();
              result.replaceChildren(comparison(image, new ImageData(toRGBA(p), p.width, p.height)).element);
            }
          }});
        }
        const ms = performance.now() - t0;
        const out = new ImageData(toRGBA(float), float.width, float.height);
        const view = comparison(image, out);
        output = view.after;
        result.replaceChildren(view.element);
        download.disabled = false;
        stats.textContent = `${image.width}x${image.height} -> ${out.width}x${out.height} in ${tiles} tile${tiles === 1 ? '' : 's'} of ${tw}x${th}, ${ms.toFixed(0)} ms`;
        runs++;
        ctx.publish({runs, done: true, source: pick.kind, ms, tiles, width: out.width, height: out.height});
      });
    }

    const picker = photoPicker(ctx, run);
    ctx.root.append(el('p', {class: 'hint'}, 'Pick a picture of any size: it is upscaled 4x in overlapping tiles. Drag the slider to compare.'),
                    picker.element, el('div', {class: 'row'}, el('label', {}, 'Input ', sizeSelect), download), stats, result);
    return {onModelChange: () => picker.update()};
  },
};
