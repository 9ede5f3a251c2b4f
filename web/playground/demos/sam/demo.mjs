// SAM 2.1 click and box segmentation: the image encoder runs once per picture; every
// click (include / exclude) or dragged box runs the prompt encoder + mask decoder on the
// kept embeddings, and the best of its three masks is drawn over the photo with an outline.
import {el, useStyles} from '../../lib/dom.mjs';
import {fromNCHW, canvasOf, photoPicker, resized, testInputs} from '../../lib/image.mjs';
import {compare, describe, fetchTensor} from '../../lib/reference_check.mjs';
import {bestMask, IMAGENET, maskAndOutline, pixelsToTensor, promptTensors, resizeBilinear} from './prompts.mjs';

useStyles(new URL('./sam.css', import.meta.url));

const MASK_RGB = [58, 91, 217], DRAG_MIN = 6;  // CSS px before a press becomes a box

export default {
  async mount(ctx) {
    const picker = photoPicker(ctx, (pick) => usePicture(pick));
    const modeButtons = ['include', 'exclude', 'box'].map((m) =>
      el('button', {class: `mode mode-${m}`, 'data-mode': m, id: `sam-mode-${m}`, onclick: () => setMode(m)},
         {include: '+ Include', exclude: '\u2212 Exclude', box: '\u25a1 Box'}[m]));
    const undoButton = el('button', {id: 'sam-undo', disabled: true, onclick: () => { prompts.pop(); decode(); }}, 'Undo');
    const clearButton = el('button', {id: 'sam-clear', disabled: true, onclick: () => { prompts.length = 0; decode(); }}, 'Clear');
    const cutoutButton = el('button', {id: 'sam-cutout', disabled: true, onclick: () => downloadCutout()}, 'Download cut-out');
    const stage = el('div', {class: 'sam-stage', id: 'sam-stage'});
    const photoCanvas = el('canvas', {class: 'sam-photo'});
    const overlay = el('canvas', {class: 'sam-overlay', id: 'sam-overlay'});
    const marks = el('canvas', {class: 'sam-marks'});
    stage.append(photoCanvas, overlay, marks);
    const choices = el('div', {class: 'sam-choices', id: 'sam-choices'});
    const info = el('div', {class: 'hint', id: 'sam-info'}, 'Pick a photo: the image encoder runs once, then click on an object.');
    const checkOut = el('pre', {class: 'sam-check', id: 'sam-check', hidden: true});
    const note = el('p', {class: 'hint', id: 'sam-note'});
    const optionNote = () => {
      const option = ctx.option();
      note.textContent = Object.values(option.programs).some((q) => q.override) ? '' :
        `${option.label}: with random weights the masks are noise; the pipeline (resize, encoder once per photo, ` +
        'prompts in the model\'s frame, mask decoder, upsampling) is the real one, checked against PyTorch on the test input.';
    };
    optionNote();
    ctx.root.append(
      picker.element,
      el('div', {class: 'row sam-tools'}, ...modeButtons, undoButton, clearButton, cutoutButton,
         el('span', {class: 'hint'}, 'Shift-click excludes; drag to draw a box.')),
      el('div', {class: 'sam-layout'}, stage, el('div', {class: 'sam-side'}, el('h3', {}, 'Masks'), choices, info, checkOut)), note);

    let mode = 'include';
    function setMode(m) {
      mode = m;
      for (const b of modeButtons) b.classList.toggle('selected', b.dataset.mode === m);
    }
    setMode('include');

    // The picture and its embeddings: {name, width, height, source, embeddings, test}.
    let picture = null, prompts = [], lastMasks = null, chosen = null;
    let decoding = false, again = false, drag = null, encoderCheck = null, runs = 0, usedPrompts = 0;

    function size() { return ctx.option().input.shape[2]; }

    async function usePicture(pick) {
      const option = ctx.option(), s = size();
      let source, pixels, name, test = false;
      if (pick.kind === 'test') {
        const [input] = await testInputs(option);
        pixels = input;
        source = canvasOf(fromNCHW(input.data, s, s, IMAGENET));
        name = 'the test input';
        test = true;
      } else {
        source = pick.bitmap;
        name = pick.name;
        pixels = {dtype: 'float32', shape: [1, 3, s, s], data: pixelsToTensor(resized(source, s, s).data, s, IMAGENET)};
      }
      prompts = [];
      lastMasks = null;
      usedPrompts = 0;
      checkOut.hidden = true;
      showPhoto(source);
      drawMarks();
      drawMask();
      choices.replaceChildren();
      const encoded = await ctx.task('Encoding the image', async (step, signal) => {
        const encoder = await ctx.load('encoder', step, signal);
        step(`Image encoder on ${name} (${s}x${s})`);
        const t0 = performance.now();
        const embeddings = await encoder.run([pixels], {signal});
        return {embeddings, ms: performance.now() - t0};
      });
      if (!encoded) return;
      picture = {name, width: source.width, height: source.height, source, embeddings: encoded.embeddings, test};
      info.textContent = `${name}: ${source.width}x${source.height}, encoded in ${encoded.ms.toFixed(0)} ms. ` +
        'Click on an object (or drag a box).';
      const published = {image: {name, width: source.width, height: source.height, test}, encoderMs: encoded.ms,
                         prompts: [], masks: null};
      encoderCheck = test ? await checkEncoder(encoded.embeddings) : null;
      if (encoderCheck) published.encoderCheck = encoderCheck;
      published.embeddings = encoded.embeddings;  // for the tests: compared with the reference in Node too
      ctx.publish(published);
    }

    async function checkEncoder(embeddings) {
      const option = ctx.option(), tol = option.tolerance;
      const want = await Promise.all(option.reference.outputs.map((t) => fetchTensor(t)));
      const results = want.map((w, i) => ({name: `image_embeddings[${i}] [${w.shape}]`, ...compare(embeddings[i].data, w.data, tol)}));
      showCheck(results, tol);
      return results;
    }

    function showCheck(results, tol) {
      checkOut.hidden = false;
      const lines = results.map((r) => describe(r.name, r, tol));
      checkOut.textContent = `Against the PyTorch reference:\n${lines.join('\n')}`;
    }

    function showPhoto(source) {
      const maxW = Math.min(720, ctx.root.clientWidth - 280 || 720), maxH = 520;
      const k = Math.min(maxW / source.width, maxH / source.height, 4);
      const w = Math.round(source.width * k), h = Math.round(source.height * k);
      for (const c of [photoCanvas, overlay, marks]) {
        c.width = w;
        c.height = h;
      }
      stage.style.width = `${w}px`;
      stage.style.height = `${h}px`;
      const g = photoCanvas.getContext('2d');
      g.imageSmoothingEnabled = k < 1 || source.width > 256;
      g.drawImage(source, 0, 0, w, h);
    }

    // Where a pointer event falls in the photo, in whole photo pixels (a click has no
    // meaningful sub-pixel position, and whole pixels keep the prompts reproducible).
    function photoPoint(e) {
      const r = marks.getBoundingClientRect();
      const x = Math.round(((e.clientX - r.left) / r.width) * picture.width);
      const y = Math.round(((e.clientY - r.top) / r.height) * picture.height);
      return {x: Math.max(0, Math.min(picture.width - 1, x)), y: Math.max(0, Math.min(picture.height - 1, y)),
              cx: e.clientX, cy: e.clientY};
    }

    marks.addEventListener('contextmenu', (e) => e.preventDefault());
    marks.addEventListener('pointerdown', (e) => {
      if (!picture) return;
      marks.setPointerCapture(e.pointerId);
      drag = {start: photoPoint(e), now: null, button: e.button, shift: e.shiftKey};
    });
    marks.addEventListener('pointermove', (e) => {
      if (!drag) return;
      drag.now = photoPoint(e);
      drawMarks();
    });
    marks.addEventListener('pointerup', (e) => {
      if (!drag) return;
      const end = photoPoint(e), d = drag;
      drag = null;
      const moved = Math.hypot(end.cx - d.start.cx, end.cy - d.start.cy) >= DRAG_MIN;
      if (mode === 'box' || moved) {
        if (!moved) { drawMarks(); return; }
        // A new box replaces an old one (the program takes one box).
        prompts = prompts.filter((p) => p.type !== 'box');
        prompts.push({type: 'box', x0: d.start.x, y0: d.start.y, x1: end.x, y1: end.y});
      } else {
        const positive = mode === 'include' && !d.shift && d.button !== 2;
        prompts.push({type: 'point', x: d.start.x, y: d.start.y, positive});
      }
      decode();
    });

    function drawMarks() {
      const g = marks.getContext('2d');
      g.clearRect(0, 0, marks.width, marks.height);
      if (!picture) return;
      const kx = marks.width / picture.width, ky = marks.height / picture.height;
      const box = (x0, y0, x1, y1, dashed) => {
        g.save();
        g.lineWidth = 2;
        g.setLineDash(dashed ? [6, 4] : []);
        g.strokeStyle = '#fff';
        g.shadowColor = '#000a';
        g.shadowBlur = 3;
        g.strokeRect(Math.min(x0, x1) * kx, Math.min(y0, y1) * ky, Math.abs(x1 - x0) * kx, Math.abs(y1 - y0) * ky);
        g.restore();
      };
      prompts.forEach((p, i) => {
        // Prompts that did not fit the program's slots are drawn faded.
        g.globalAlpha = i < prompts.length - usedPrompts ? 0.35 : 1;
        if (p.type === 'box') { box(p.x0, p.y0, p.x1, p.y1, false); return; }
        const x = p.x * kx, y = p.y * ky;
        g.beginPath();
        g.arc(x, y, 7, 0, 2 * Math.PI);
        g.fillStyle = p.positive ? '#22a559' : '#d83b3b';
        g.fill();
        g.lineWidth = 2;
        g.strokeStyle = '#fff';
        g.stroke();
        g.fillStyle = '#fff';
        g.font = 'bold 12px system-ui';
        g.textAlign = 'center';
        g.textBaseline = 'middle';
        g.fillText(p.positive ? '+' : '\u2212', x, y + 0.5);
      });
      g.globalAlpha = 1;
      if (drag && drag.now) box(drag.start.x, drag.start.y, drag.now.x, drag.now.y, true);
    }

    // The chosen mask over the photo: a translucent fill and a solid outline.
    function drawMask() {
      const g = overlay.getContext('2d');
      g.clearRect(0, 0, overlay.width, overlay.height);
      cutoutButton.disabled = !lastMasks;
      if (!lastMasks || !picture) return;
      const {planes, h, w} = lastMasks;
      const W = overlay.width, H = overlay.height;
      const logits = resizeBilinear(planes[chosen], h, w, H, W);
      const {mask, edge} = maskAndOutline(logits, W, H);
      const image = g.createImageData(W, H);
      for (let i = 0; i < W * H; i++) {
        if (edge[i]) {
          image.data.set([255, 255, 255, 255], 4 * i);
        } else if (mask[i]) {
          image.data.set([...MASK_RGB, 120], 4 * i);
        }
      }
      g.putImageData(image, 0, 0);
    }

    function showChoices(ious) {
      const {planes, h, w} = lastMasks;
      choices.replaceChildren(...planes.map((plane, i) => {
        const c = el('canvas', {width: w, height: h});
        const g = c.getContext('2d'), image = g.createImageData(w, h);
        for (let k = 0; k < w * h; k++) {
          const on = plane[k] > 0;
          image.data.set(on ? [...MASK_RGB, 255] : [236, 238, 244, 255], 4 * k);
        }
        g.putImageData(image, 0, 0);
        const b = el('button', {class: `sam-choice${i === chosen ? ' selected' : ''}`, 'data-index': i,
                               onclick: () => { chosen = i; drawMask(); showChoices(ious); ctx.publish({chosen: i}); }},
                     c, el('span', {}, `IoU ${ious[i].toFixed(2)}`));
        return b;
      }));
    }

    async function decode() {
      undoButton.disabled = clearButton.disabled = prompts.length === 0;
      drawMarks();
      if (!picture) return;
      if (prompts.length === 0) {
        lastMasks = null;
        drawMask();
        choices.replaceChildren();
        ctx.publish({prompts: [], masks: null});
        return;
      }
      if (decoding) { again = true; return; }
      decoding = true;
      try {
        do {
          again = false;
          await decodeOnce();
        } while (again);
      } finally {
        decoding = false;
      }
    }

    async function decodeOnce() {
      const option = ctx.option(), s = size();
      const slots = option.prompt?.slots ?? 2;
      const p = promptTensors(prompts, {width: picture.width, height: picture.height, size: s, slots});
      usedPrompts = p.used;
      drawMarks();
      const inputs = [...picture.embeddings, {dtype: 'float32', shape: [1, 1, slots, 2], data: p.coords},
                      {dtype: 'int64', shape: [1, 1, slots], data: p.labels}];
      const out = await ctx.task('Segmenting', async (step, signal) => {
        const decoder = await ctx.load('decoder', step, signal);
        step(`Mask decoder: ${prompts.length} prompt(s)`);
        const t0 = performance.now();
        const r = await decoder.run(inputs, {signal});
        return {outputs: r, ms: performance.now() - t0};
      });
      if (!out) return;
      const [masks, ious] = out.outputs;
      const [, , n, h, w] = masks.shape;
      const planes = Array.from({length: n}, (_, i) => masks.data.subarray(i * h * w, (i + 1) * h * w));
      lastMasks = {planes, h, w};
      chosen = bestMask(ious.data);
      drawMask();
      showChoices(ious.data);
      const area = maskAndOutline(resizeBilinear(planes[chosen], h, w, picture.height, picture.width), picture.width, picture.height).area;
      const unused = prompts.length - p.used;
      info.textContent = `${p.used} prompt(s)${unused ? ` (this program takes ${slots} points, a box 2 of them: ${unused} earlier one(s) left out, faded)` : ''}; ` +
        `mask decoder ${out.ms.toFixed(0)} ms; mask ${chosen + 1} of ${n} ` +
        `(IoU ${ious.data[chosen].toFixed(2)}) covers ${((100 * area) / (picture.width * picture.height)).toFixed(1)}% of the photo.`;
      const published = {prompts: prompts.map((q) => ({...q})), points: Array.from(p.coords), labels: Array.from(p.labels, Number),
                         masks: {shape: masks.shape, iou: Array.from(ious.data), chosen, area}, decoderMs: out.ms,
                         outputs: out.outputs, runs: ++runs};
      // The fixture's case is the test input with these two prompts: check it against PyTorch.
      const ref = option.reference?.decoder;
      if (picture.test && ref) {
        const [wantPoints, wantLabels] = await Promise.all(ref.inputs.slice(3).map((t) => fetchTensor(t)));
        const same = wantPoints.data.every((v, i) => v === p.coords[i]) && wantLabels.data.every((v, i) => v === p.labels[i]);
        if (same) {
          const [wantMasks, wantIou] = await Promise.all(ref.outputs.map((t) => fetchTensor(t)));
          const tol = option.tolerance;
          published.decoderCheck = [
            {name: `pred_masks [${masks.shape}]`, ...compare(masks.data, wantMasks.data, tol)},
            {name: `iou_scores [${ious.shape}]`, ...compare(ious.data, wantIou.data, tol)}];
          showCheck([...(encoderCheck || []), ...published.decoderCheck], tol);
        }
      }
      ctx.publish(published);
    }

    // The photo where the mask is, transparent elsewhere, as a PNG.
    function downloadCutout() {
      if (!lastMasks) return;
      const {width: W, height: H} = picture;
      const c = el('canvas', {width: W, height: H});
      const g = c.getContext('2d');
      g.drawImage(picture.source, 0, 0);
      const image = g.getImageData(0, 0, W, H);
      const {mask} = maskAndOutline(resizeBilinear(lastMasks.planes[chosen], lastMasks.h, lastMasks.w, H, W), W, H);
      for (let i = 0; i < W * H; i++) if (!mask[i]) image.data[4 * i + 3] = 0;
      g.putImageData(image, 0, 0);
      c.toBlob((blob) => {
        const a = el('a', {href: URL.createObjectURL(blob), download: `${picture.name.replace(/\.\w+$/, '')}_cutout.png`});
        document.body.append(a);
        a.click();
        a.remove();
      }, 'image/png');
    }

    ctx.publish({ready: true});
    return {onModelChange: () => { picker.update(); optionNote(); }};
  },
};
