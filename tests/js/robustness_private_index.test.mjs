// Every shipped shader indexes its register arrays (function and private arrays) by
// constants only, in the SPIR-V that Dawn's node binding (the Dawn of a current browser)
// produces with robustness on: bench/kernels/robustness/private_index_check.mjs reads it
// through the dump_shaders toggle. Why: with robustness, Tint guards every loop, a driver may
// then keep a loop rolled, and a loop index into a register array puts the array in local
// memory (10x on the H200's matmuls; bench/kernels/robustness/README.md). A kernel that
// brings such an index back fails here, on any adapter (lavapipe when present: it has
// shader-f16, so the f16 kernels are checked too). So does a GEMM tile, implicit-GEMM conv or
// flash attention whose hot loops read shared memory at an index robustness clamps again
// (the check's `sharedMax`: README, "Indices Tint can bound").
import assert from 'node:assert/strict';
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {test} from 'node:test';
import {repoRoot} from './node_runtime.mjs';

const LAVAPIPE = '/usr/share/vulkan/icd.d/lvp_icd.json';

test('no shipped shader indexes a register array at run time under robustness', () => {
  const env = {...process.env};
  if (fs.existsSync(LAVAPIPE)) env.VK_ICD_FILENAMES = LAVAPIPE;
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'bench/kernels/robustness/private_index_check.mjs'), '--all'],
                      {encoding: 'utf8', env, timeout: 600000});
  const lines = r.stdout.split('\n').filter((l) => l.startsWith('FAIL') || / run-time indices|failed:/.test(l));
  assert.equal(r.status, 0, `check failed:\n${lines.join('\n')}\n${r.stderr.slice(-2000)}`);
  const checked = r.stdout.split('\n').filter((l) => l.includes(': clean'));
  // Every shipped shader was built and read (a check that built none would pass vacuously).
  assert.ok(checked.length >= 70, `only ${checked.length} shaders checked:\n${r.stdout.slice(-2000)}`);
  assert.deepEqual(lines, [], 'shaders with run-time register-array indices');
});
