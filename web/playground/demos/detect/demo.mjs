// Object detection (D-FINE; DETR as a second option): the photo resized to the program's
// input in [0, 1], the detections (postprocess.mjs) drawn on the photo with COCO labels
// and scores, and a threshold slider that redraws without running again.
import {el} from '../../lib/dom.mjs';
import {canvasOf, fitted, fromNCHW, photoPicker, resized, testInputs, toNCHW} from '../../lib/image.mjs';
import {detections} from './postprocess.mjs';

const colour = (label) => `hsl(${(label * 137.5) % 360} 80% 45%)`;

export default {
  async mount(ctx) {
    const slider = el('input', {type: 'range', min: '0.05', max: '0.95', step: '0.01', value: '0.5', class: 'threshold', 'aria-label': 'score threshold'});
    const sliderValue = el('span', {class: 'threshold-value'}, '0.50');
    const maxBoxes = el('select', {class: 'max-boxes', 'aria-label': 'boxes drawn at most'},
                        ...[5, 10, 20, 50, 100].map((n) => el('option', {value: String(n), selected: n === 10}, String(n))));
    const stats = el('p', {class: 'hint stats'});
    const figure = el('figure', {});
    const table = el('table', {class: 'detections'});
    let last = null;  // {photo, logits, boxes, queries, classes}
    let runs = 0;

    function draw() {
      if (!last) return;
      const threshold = Number(slider.value);
      sliderValue.textContent = threshold.toFixed(2);
      const found = detections(last.logits, last.boxes, {queries: last.queries, classes: last.classes, threshold});
      const c = document.createElement('canvas');
      c.width = last.photo.width;
      c.height = last.photo.height;
      const g = c.getContext('2d');
      g.drawImage(last.photo, 0, 0);
      g.font = '600 13px system-ui, sans-serif';
      g.textBaseline = 'top';
      const drawn = found.slice(0, Number(maxBoxes.value));
      for (const d of drawn.slice().reverse()) {
        const [x0, y0, x1, y1] = d.box.map((v, i) => Math.max(0, Math.min(1, v)) * (i % 2 ? c.height : c.width));
        g.strokeStyle = g.fillStyle = colour(d.label);
        g.lineWidth = 2.5;
        g.strokeRect(x0, y0, x1 - x0, y1 - y0);
        const text = `${d.name} ${d.score.toFixed(2)}`;
        const tw = g.measureText(text).width + 8;
        const ty = y0 >= 18 ? y0 - 18 : y0;
        g.fillRect(x0 - 1.25, ty, tw, 18);
        g.fillStyle = '#fff';
        g.fillText(text, x0 + 3, ty + 2);
      }
      c.className = 'detections-canvas';
      figure.replaceChildren(c, el('figcaption', {}, `${found.length} detection${found.length === 1 ? '' : 's'} at score >= ${threshold.toFixed(2)}` +
                                   (drawn.length < found.length ? `, the best ${drawn.length} drawn` : '')));
      table.replaceChildren(el('tr', {}, el('th', {}, 'object'), el('th', {}, 'score'), el('th', {}, 'box (x0, y0, x1, y1 in pixels)')),
        ...found.slice(0, 8).map((d) => el('tr', {},
          el('td', {}, el('span', {style: `background:${colour(d.label)}`}), d.name),
          el('td', {}, d.score.toFixed(3)),
          el('td', {}, d.box.map((v, i) => Math.round(v * (i % 2 ? last.height : last.width))).join(', ')))));
      if (found.length > 8) table.append(el('tr', {}, el('td', {colspan: '3', class: 'hint'}, `and ${found.length - 8} more`)));
      ctx.publish({threshold, detections: found});
    }
    slider.oninput = draw;
    maxBoxes.onchange = draw;

    async function run(pick) {
      const option = ctx.option();
      const [, , h, w] = option.input.shape;
      await ctx.task('Object detection', async (step, signal) => {
        let x, shown;
        if (pick.kind === 'test') {
          const [t] = await testInputs(option, signal);
          x = t.data;
          shown = canvasOf(fromNCHW(x, w, h));
        } else {
          x = toNCHW(resized(pick.bitmap, w, h));
          shown = pick.bitmap;
        }
        const model = await ctx.load('main', step, signal);
        step(`Detecting (${w}x${h})`, undefined);
        const t0 = performance.now();
        const [logits, boxes] = await model.run([{dtype: 'float32', shape: option.input.shape, data: x}], {signal});
        const ms = performance.now() - t0;
        const [, queries, classes] = logits.shape;
        const photo = fitted(shown, 560, 420);
        last = {photo, logits: logits.data, boxes: boxes.data, queries, classes, width: shown.width, height: shown.height};
        stats.textContent = `${queries} queries x ${classes} classes in ${ms.toFixed(0)} ms`;
        runs++;
        ctx.publish({runs, done: true, source: pick.kind, ms, outputs: [logits, boxes]});
        draw();
      });
    }

    const picker = photoPicker(ctx, run);
    ctx.root.append(el('p', {class: 'hint'}, 'Pick a photo: the program finds COCO objects in it. Move the threshold to see more or fewer.'),
                    picker.element, el('div', {class: 'row'}, el('label', {}, 'Score threshold ', slider), sliderValue,
                                                   el('label', {}, 'Boxes drawn at most ', maxBoxes)), stats,
                    el('div', {class: 'figures'}, figure, table));
    return {onModelChange: () => picker.update()};
  },
};
