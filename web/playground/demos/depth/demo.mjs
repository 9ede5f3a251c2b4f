// Depth Anything V2: the photo resized to the program's input (126x126 for the tiny
// program), ImageNet-normalised; the relative depth (larger = nearer) min-max scaled into
// a colour map, shown at the photo's size beside it.
import {el} from '../../lib/dom.mjs';
import {canvasOf, colormap, colormapBar, fitted, fromNCHW, photoPicker, resized, testInputs, toNCHW} from '../../lib/image.mjs';

export default {
  async mount(ctx) {
    const photoFig = el('figure', {}, el('figcaption', {}, 'photo'));
    const depthFig = el('figure', {}, el('figcaption', {}, 'depth: near is bright'));
    const stats = el('p', {class: 'hint stats'});
    const figures = el('div', {class: 'figures'}, photoFig, depthFig);
    let runs = 0;

    async function run(pick) {
      const option = ctx.option();
      const [, , h, w] = option.input.shape;
      const norm = {mean: option.input.mean, std: option.input.std};
      await ctx.task('Depth estimation', async (step, signal) => {
        let x, shown;
        if (pick.kind === 'test') {
          const [t] = await testInputs(option, signal);
          x = t.data;
          shown = canvasOf(fromNCHW(x, w, h, norm));
        } else {
          x = toNCHW(resized(pick.bitmap, w, h), norm);
          shown = pick.bitmap;
        }
        const photo = fitted(shown, 420, 360);
        photoFig.replaceChildren(photo, el('figcaption', {}, pick.kind === 'test' ? 'test input (fixture case 0)' : `photo: ${pick.name}`));
        const model = await ctx.load('main', step, signal);
        step(`Estimating depth (${w}x${h})`, undefined);
        const t0 = performance.now();
        const [y] = await model.run([{dtype: 'float32', shape: option.input.shape, data: x}], {signal});
        const ms = performance.now() - t0;
        const [oh, ow] = y.shape.slice(-2);
        const {image, lo, hi} = colormap(y.data, ow, oh);
        const depth = document.createElement('canvas');
        depth.width = photo.width;
        depth.height = photo.height;
        const dctx = depth.getContext('2d');
        dctx.imageSmoothingQuality = 'high';
        dctx.drawImage(canvasOf(image), 0, 0, depth.width, depth.height);
        depth.className = 'depth-map';
        depthFig.replaceChildren(depth, el('figcaption', {}, 'depth: far ', colormapBar(120, 8), ' near'));
        stats.textContent = `${ow}x${oh} depth map in ${ms.toFixed(0)} ms; relative depth ${lo.toPrecision(3)} to ${hi.toPrecision(3)}`;
        runs++;
        ctx.publish({runs, done: true, source: pick.kind, ms, outputs: [y]});
      });
    }

    const picker = photoPicker(ctx, run);
    ctx.root.append(el('p', {class: 'hint'}, 'Pick a photo: the program estimates how far each pixel is.'), picker.element, stats, figures);
    return {onModelChange: () => picker.update()};
  },
};
