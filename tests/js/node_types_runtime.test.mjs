// package/index.d.ts against the runtime itself: the members each interface declares
// are looked up on the live objects of the bundle (et, et.Module, a Module, et.Tensor, a
// Tensor, et.ScalarType, et.Tag, et.Tokenizer, et.LLM), written into a small .ts file as
// string unions, and `tsc --noEmit --strict` checks that
//   - every required member of the interface exists at runtime,
//   - every member the interface types as a function is a function at runtime,
//   - every public member of Wick's own objects (not et, which is Emscripten's Module
//     too) is declared.
// The usage tests (package_readme, node_llm_types) check calls against the types; this
// one checks the types against the code. No GPU: nothing here runs a method.
import assert from 'node:assert/strict';
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {test} from 'node:test';
import {createExecuTorch} from '../../package/index.mjs';
import {repoRoot, fixtureFiles} from './node_runtime.mjs';

// Public member names of an object and its prototypes (up to Object.prototype), and
// which of them hold functions. Accessors count as properties and are not called.
function members(obj) {
  const all = new Set();
  const functions = new Set();
  for (let o = obj; o && o !== Object.prototype && o !== Function.prototype; o = Object.getPrototypeOf(o)) {
    for (const name of Object.getOwnPropertyNames(o)) {
      if (name === 'constructor' || name.startsWith('_') || all.has(name)) continue;
      // What every function or object has. A constructor's prototype is kept: TensorStatic
      // declares it (for instanceof); the others need not.
      if (typeof obj === 'function' && ['length', 'name', 'arguments', 'caller'].includes(name)) continue;
      if (name === 'toString' || name === 'valueOf') continue;
      all.add(name);
      const d = Object.getOwnPropertyDescriptor(o, name);
      if (d && 'value' in d && typeof d.value === 'function') functions.add(name);
    }
  }
  return {all: [...all], functions: [...functions]};
}

const union = (names) => (names.length ? names.map((n) => JSON.stringify(n)).join(' | ') : 'never');

function checks(iface, obj, bothWays) {
  const m = members(obj);
  const id = iface.replace(/\W/g, '_');
  let ts = `type ${id}_All = ${union(m.all)};\ntype ${id}_Fns = ${union(m.functions)};\n`;
  ts += `export const ${id}_declaredButMissing: never = null as unknown as Missing<${iface}, ${id}_All>;\n`;
  ts += `export const ${id}_declaredFunctionButNot: never = null as unknown as Missing<Pick<${iface}, FnKeys<${iface}>>, ${id}_Fns>;\n`;
  if (bothWays) ts += `export const ${id}_presentButUndeclared: never = null as unknown as Exclude<${id}_All, keyof ${iface} | "prototype">;\n`;
  return ts;
}

test('package/index.d.ts declares what the runtime has, and has what it declares', async () => {
  const et = await createExecuTorch({gpu: null});
  const module = et.Module.load(await fixtureFiles.bytes('cpu/mlp_cpu/model.pte'));
  const tensor = et.Tensor.zeros([2, 3]);
  let ts = `import type * as W from 'wick-webgpu';
// Each check assigns a type that is 'never' when the check holds to a 'never' const; a
// name that breaks it shows up in tsc's message ("Type '"name"' is not assignable to
// type 'never'").
type RequiredKeys<T> = {[K in keyof T]-?: {} extends Pick<T, K> ? never : K}[keyof T] & string;
type IsAny<T> = 0 extends 1 & T ? true : false;
type FnKeys<T> = {[K in keyof T]-?: IsAny<T[K]> extends true ? never
                                    : NonNullable<T[K]> extends (...a: any[]) => any ? K : never}[keyof T] & string;
type Missing<T, Present> = Exclude<RequiredKeys<T>, Present>;
`;
  for (const [iface, obj, bothWays] of [
    ['W.ExecuTorch', et, false],
    ['W.ModuleStatic', et.Module, true],
    ['W.Module', module, true],
    ['W.TensorStatic', et.Tensor, true],
    ['W.Tensor', tensor, true],
    ['W.ScalarTypes', et.ScalarType, true],
    ['W.Tags', et.Tag, true],
    ['W.TokenizerStatic', et.Tokenizer, true],
    ['W.LLMStatic', et.LLM, true],
  ]) {
    ts += checks(iface, obj, bothWays);
  }
  // The check can fail: with getMethods taken from the runtime's Module it must report
  // it, or tsc flags the unused @ts-expect-error (one tsc run for both).
  ts += `type Broken_All = Exclude<W_Module_All, "getMethods">;
// @ts-expect-error: a Module without getMethods fails the check
export const brokenModule: never = null as unknown as Missing<W.Module, Broken_All>;
`;
  tensor.delete();
  module.delete();

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wick-types-runtime-'));
  try {
    fs.mkdirSync(path.join(dir, 'node_modules'));
    fs.symlinkSync(path.join(repoRoot, 'package'), path.join(dir, 'node_modules/wick-webgpu'));
    fs.writeFileSync(path.join(dir, 'runtime_members.ts'), ts);
    fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
      compilerOptions: {strict: true, noEmit: true, target: 'es2022', module: 'esnext', moduleResolution: 'bundler',
                        lib: ['es2022', 'dom', 'dom.asynciterable'], types: []},
      files: ['runtime_members.ts'],
    }));
    const tsc = path.join(repoRoot, 'node_modules/typescript/bin/tsc');
    const r = spawnSync(process.execPath, [tsc, '-p', dir], {encoding: 'utf8', timeout: 60000});
    assert.equal(r.status, 0, `index.d.ts and the runtime differ:\n${r.stdout}\n${r.stderr}\n--- generated:\n${ts}`);
  } finally {
    fs.rmSync(dir, {recursive: true, force: true});
  }
});
