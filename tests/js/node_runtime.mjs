// Wick's bundle in Node on Dawn's node binding (npm `webgpu`), which runs on the Vulkan
// driver VK_ICD_FILENAMES names (SwiftShader here: scripts/env.sh sets it).
import fs from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {create} from 'webgpu';
import {createExecuTorch} from '../../package/index.mjs';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const fixturesDir = process.env.WICK_FIXTURES_DIR || path.resolve(repoRoot, '../shared/fixtures');

// Kept for the life of the process: dawn.node crashes if its GPU object is collected.
// vulkan_enable_f16_on_nvidia: Dawn's adapter toggle that offers shader-f16 on NVIDIA's
// Vulkan driver, which Dawn otherwise turns off there (docs/gpu.md, f16); harmless on other
// adapters (SwiftShader, lavapipe). package/index.mjs passes the same. The second flag is
// what package/index.mjs adds on a CPU adapter, which the tests run on: workgroup memory
// zeroed by the shader (Tint's loop) rather than through Vulkan's zero-initialization
// extension, which SwiftShader compiles as one store per element (seconds of JIT per
// pipeline; bench/results/ci_time.md). The memory is zeroed either way.
export const dawnNodeFlags = ['enable-dawn-features=vulkan_enable_f16_on_nvidia',
                              'disable-dawn-features=use_vulkan_zero_initialize_workgroup_memory_extension'];
export const gpu = create(dawnNodeFlags);

let runtime = null;
// One runtime (and one device) for every test of a file. Rejects when there is no
// adapter, so a GPU test fails instead of passing on the CPU.
export function nodeRuntime() {
  if (!runtime) {
    runtime = (async () => {
      const et = await createExecuTorch();
      await et.initWebGPU({gpu});
      return et;
    })();
  }
  return runtime;
}

export const fixtureFiles = {
  text: async (rel) => fs.readFileSync(path.join(fixturesDir, rel), 'utf8'),
  bytes: async (rel) => new Uint8Array(fs.readFileSync(path.join(fixturesDir, rel))),
};

// The repository's op fixtures (tests/fixtures/ops/<name>, outside the shared index): their
// files, read relative to tests/fixtures ('ops/<name>/...'), and their names in order.
export const repoFixturesDir = path.join(repoRoot, 'tests/fixtures');
export const repoFixtureFiles = {
  text: async (rel) => fs.readFileSync(path.join(repoFixturesDir, rel), 'utf8'),
  bytes: async (rel) => new Uint8Array(fs.readFileSync(path.join(repoFixturesDir, rel))),
};
export function listRepoOpFixtures() {
  return fs.readdirSync(path.join(repoFixturesDir, 'ops'))
    .filter((name) => fs.existsSync(path.join(repoFixturesDir, 'ops', name, 'manifest.json'))).sort();
}
