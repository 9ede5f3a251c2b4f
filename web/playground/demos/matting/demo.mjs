// Portrait matting: the photo resized to the program's input (256x256 in [0, 1] for
// MediaPipe's selfie segmentation, whose person probability is the alpha; 128x128 in
// [-1, 1] for the tiny MODNet program), the alpha matte resized back to the photo, and the
// subject composited over the background the person picks (re-composited without a new
// run). The option's `input` (shape, mean, std) says which.
import {el} from '../../lib/dom.mjs';
import {canvasOf, fitted, fromNCHW, photoPicker, resized, testInputs, toNCHW} from '../../lib/image.mjs';

const BACKGROUNDS = [
  {name: 'transparent', css: 'repeating-conic-gradient(#ccc 0 25%, #fff 0 50%) 0 0 / 16px 16px'},
  {name: 'white', color: [255, 255, 255]},
  {name: 'studio blue', color: [58, 91, 217]},
  {name: 'green screen', color: [46, 158, 91]},
  {name: 'sunset', gradient: [[255, 94, 58], [255, 196, 87]]},
];

export default {
  async mount(ctx) {
    const photoFig = el('figure', {}, el('figcaption', {}, 'photo'));
    const matteFig = el('figure', {}, el('figcaption', {}, 'alpha matte'));
    const compFig = el('figure', {}, el('figcaption', {}, 'composite'));
    const stats = el('p', {class: 'hint stats'});
    const swatches = el('div', {class: 'swatches'}, el('span', {class: 'hint'}, 'Background'));
    let background = BACKGROUNDS[2];
    let last = null;  // {photo canvas, alpha Float32Array at the photo's size}
    let runs = 0;

    for (const bg of BACKGROUNDS) {
      const b = el('button', {title: bg.name, 'aria-label': bg.name, 'data-name': bg.name});
      b.style.background = bg.css || (bg.gradient ? `linear-gradient(${bg.gradient.map((c) => `rgb(${c})`).join(',')})` : `rgb(${bg.color})`);
      b.onclick = () => {
        background = bg;
        for (const s of swatches.querySelectorAll('button')) s.classList.toggle('selected', s === b);
        if (last) composite();
      };
      if (bg === background) b.classList.add('selected');
      swatches.append(b);
    }

    // Subject over the background: rgb = a * photo + (1 - a) * bg; 'transparent' keeps the
    // alpha instead (the checkerboard behind the canvas shows through, and a download keeps it).
    function composite() {
      const {photo, alpha} = last;
      const w = photo.width, h = photo.height;
      const src = photo.getContext('2d').getImageData(0, 0, w, h).data;
      const out = new ImageData(w, h);
      for (let y = 0; y < h; y++) {
        const bg = background.gradient
          ? background.gradient[0].map((c, i) => c + (background.gradient[1][i] - c) * (y / h)) : background.color;
        for (let x = 0; x < w; x++) {
          const i = y * w + x, a = alpha[i];
          for (let c = 0; c < 3; c++) out.data[4 * i + c] = bg ? Math.round(a * src[4 * i + c] + (1 - a) * bg[c]) : src[4 * i + c];
          out.data[4 * i + 3] = bg ? 255 : Math.round(255 * a);
        }
      }
      const c = canvasOf(out);
      c.className = 'composite';
      c.style.background = background.css || '';
      compFig.replaceChildren(c, el('figcaption', {}, `on ${background.name}`));
    }

    async function run(pick) {
      const option = ctx.option();
      const [, , h, w] = option.input.shape;
      const norm = {mean: option.input.mean, std: option.input.std};
      await ctx.task('Portrait matting', async (step, signal) => {
        let x, shown;
        if (pick.kind === 'test') {
          const [t] = await testInputs(option, signal);
          x = t.data;
          shown = canvasOf(fromNCHW(x, w, h, norm));
        } else {
          x = toNCHW(resized(pick.bitmap, w, h), norm);
          shown = pick.bitmap;
        }
        const photo = fitted(shown, 300, 300);
        const caption = pick.kind === 'test' ? option.reference.caption || 'test input (fixture case 0)' : `photo: ${pick.name}`;
        photoFig.replaceChildren(photo, el('figcaption', {}, caption));
        const model = await ctx.load('main', step, signal);
        step(`Matting (${w}x${h})`, undefined);
        const t0 = performance.now();
        const [y] = await model.run([{dtype: 'float32', shape: option.input.shape, data: x}], {signal});
        const ms = performance.now() - t0;
        const [mh, mw] = y.shape.slice(-2);
        // The matte as a grey image, resized to the photo by the canvas (bilinear).
        const grey = new ImageData(mw, mh);
        for (let i = 0; i < mw * mh; i++) {
          const v = Math.round(255 * Math.max(0, Math.min(1, y.data[i])));
          grey.data.set([v, v, v, 255], 4 * i);
        }
        const matte = fitted(canvasOf(grey), photo.width, photo.height);
        matte.className = 'matte';
        matteFig.replaceChildren(matte, el('figcaption', {}, 'alpha matte'));
        const m = matte.getContext('2d').getImageData(0, 0, matte.width, matte.height).data;
        const alpha = new Float32Array(matte.width * matte.height);
        for (let i = 0; i < alpha.length; i++) alpha[i] = m[4 * i] / 255;
        last = {photo, alpha};
        composite();
        let sum = 0;
        for (const v of y.data) sum += v;
        stats.textContent = `${mw}x${mh} matte in ${ms.toFixed(0)} ms; mean alpha ${(sum / y.data.length).toFixed(3)}`;
        runs++;
        ctx.publish({runs, done: true, source: pick.kind, ms, outputs: [y]});
      });
    }

    const picker = photoPicker(ctx, run);
    ctx.root.append(el('p', {class: 'hint'}, 'Pick a portrait: the program separates the person from the background.'),
                    picker.element, el('div', {class: 'row'}, swatches), stats,
                    el('div', {class: 'figures'}, photoFig, matteFig, compFig));
    return {onModelChange: () => picker.update()};
  },
};
