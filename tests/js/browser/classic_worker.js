// A classic worker: the bundle comes in with importScripts and publishes the global
// createExecuTorch factory, as in a page's <script> tag.
importScripts('/package/dist/wick.js');

self.onmessage = async ({data: rel}) => {
  try {
    const et = await createExecuTorch({locateFile: (p) => `/package/dist/${p}`});
    await et.initWebGPU();
    const manifest = await (await fetch(`/fixtures/${rel}/manifest.json`)).json();
    const module = et.Module.load(new Uint8Array(await (await fetch(`/fixtures/${rel}/model.pte`)).arrayBuffer()));
    const t = manifest.cases[0].inputs[0];
    const x = new Float32Array(await (await fetch(`/fixtures/${rel}/${t.file}`)).arrayBuffer());
    const [y] = await module.forward([et.Tensor.fromArray(t.shape, x)]);
    const ref = new Float32Array(await (await fetch(`/fixtures/${rel}/${manifest.cases[0].outputs[0].file}`)).arrayBuffer());
    let worst = 0;
    for (let i = 0; i < ref.length; i++) worst = Math.max(worst, Math.abs(y.data[i] - ref[i]));
    self.postMessage({shape: y.shape, worst});
  } catch (e) {
    self.postMessage({error: String(e && e.message || e)});
  }
};
