// A shipped shader's text (src/webgpu/ops/<dir>/<name>.wgsl) with its
// `//#include "x.inc.wgsl"` lines expanded as the build does (cmake/webgpu.cmake): looked
// up beside the including file, then in src/webgpu/wgsl; each module once per shader. For
// the Node benches and checks that build shipped kernels outside Wick.
import fs from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export function shippedWgsl(name) {
  const seen = new Set();
  const expand = (file) => {
    if (seen.has(file)) return '';
    seen.add(file);
    return fs.readFileSync(file, 'utf8').replace(/^\/\/#include "([^"]+)"$/gm, (_, inc) => {
      const found = [path.dirname(file), path.join(repoRoot, 'src/webgpu/wgsl')]
        .map((d) => path.join(d, inc)).find((f) => fs.existsSync(f));
      if (!found) throw new Error(`${file}: include ${inc} not found`);
      return expand(found);
    });
  };
  return expand(path.join(repoRoot, 'src/webgpu/ops', `${name}.wgsl`));
}
