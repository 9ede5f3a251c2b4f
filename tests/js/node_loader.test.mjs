// fetchVerified and createExecuTorch's wasm check in Node (no Cache API: downloads are
// verified but not cached).
import assert from 'node:assert/strict';
import {after, before, test} from 'node:test';
import * as wick from '../../package/index.mjs';
import {startServer} from './browser_host.mjs';
import {LOADER_CASES} from './loader_cases.mjs';

let server;
before(async () => { server = await startServer(); });
after(() => server.close());

for (const [name, check] of Object.entries(LOADER_CASES)) {
  test(`loader: ${name}`, async () => {
    assert.equal(await check(wick, server.url, (p) => server.hits.get(p) || 0), null);
  });
}

test('createExecuTorch refuses a .wasm that does not match wasmSha256', async () => {
  await assert.rejects(wick.createExecuTorch({wasmSha256: 'f'.repeat(64)}), /does not match wasmSha256/);
});
