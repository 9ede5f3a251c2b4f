// The playground's downloads in the Cache API: verified by sha256 before they are kept,
// checked again when read back, listed with their sizes and freed from the cache panel.
// Used by the worker (downloads) and by the page (the panel). Two stores: 'wick' holds
// the runtime (package/index.mjs's fetchVerified keeps wick.wasm there) and
// 'wick-playground' the programs and assets.

export const STORES = ['wick', 'wick-playground'];
export const MODEL_STORE = 'wick-playground';

export class VerifyError extends Error {
  constructor(url, expected, got, pinnedBy = 'the registry') {
    super(`${url}: the download's sha256 is ${got}, ${pinnedBy} pins ${expected}; it was ` +
          'thrown away and nothing was cached (a damaged or substituted file)');
    this.code = 'sha256';
  }
}

export function hex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, '0')).join('');
}

export async function sha256Hex(bytes) {
  if (!globalThis.crypto || !crypto.subtle) {
    throw new Error('crypto.subtle is missing: open the playground over https or from localhost');
  }
  return hex(await crypto.subtle.digest('SHA-256', bytes));
}

export function formatBytes(n) {
  if (n >= 1 << 30) return `${(n / (1 << 30)).toFixed(2)} GiB`;
  if (n >= 1 << 20) return `${(n / (1 << 20)).toFixed(1)} MiB`;
  if (n >= 1 << 10) return `${(n / (1 << 10)).toFixed(0)} KiB`;
  return `${n} B`;
}

// Reads a response body, reporting {loaded, total} as chunks arrive.
async function readBody(response, total, onProgress, signal) {
  if (!response.body) return new Uint8Array(await response.arrayBuffer());
  const reader = response.body.getReader();
  const chunks = [];
  let loaded = 0;
  onProgress({loaded, total});
  for (;;) {
    if (signal && signal.aborted) {
      reader.cancel().catch(() => {});
      throw signal.reason || new DOMException('cancelled', 'AbortError');
    }
    const {done, value} = await reader.read();
    if (done) break;
    chunks.push(value);
    loaded += value.length;
    onProgress({loaded, total});
  }
  const bytes = new Uint8Array(loaded);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  return bytes;
}

// Bytes of `url`, from the cache when a verified copy is there, else downloaded, verified
// and (when `keep`) cached. sha256: 64 hex digits, or null for an unverified download.
// Resolves to {bytes, cached (read from the cache), stored (written to it)}.
export async function fetchVerifiedCached(url, {sha256 = null, store = MODEL_STORE, keep = true, onProgress = () => {},
                                                signal = null, expectedSize = 0, pinnedBy = undefined} = {}) {
  const key = new URL(url, self.location.href).href;
  const cache = globalThis.caches ? await caches.open(store) : null;
  if (cache && sha256) {
    const hit = await cache.match(key);
    if (hit) {
      const bytes = await readBody(hit, Number(hit.headers.get('content-length')) || expectedSize,
                                   (p) => onProgress({...p, cached: true}), signal);
      if ((await sha256Hex(bytes)) === sha256) return {bytes, cached: true, stored: false};
      await cache.delete(key);  // damaged in storage: fetch it again
    }
  }
  let response;
  try {
    response = await fetch(key, {signal});
  } catch (e) {
    if (signal && signal.aborted) throw e;
    throw new Error(`${url}: the download failed (${e.message}); check the address and your connection`);
  }
  if (!response.ok) throw new Error(`${url}: the server answered HTTP ${response.status} ${response.statusText}`);
  const total = Number(response.headers.get('content-length')) || expectedSize;
  const bytes = await readBody(response, total, (p) => onProgress({...p, cached: false}), signal);
  if (sha256) {
    const got = await sha256Hex(bytes);
    if (got !== sha256) throw new VerifyError(url, sha256, got, pinnedBy);
  }
  let stored = false;
  if (cache && sha256 && keep) {
    try {
      await cache.put(key, new Response(bytes, {headers: {'content-type': 'application/octet-stream',
                                                          'content-length': String(bytes.length),
                                                          'x-sha256': sha256}}));
      stored = true;
    } catch (e) {
      // QuotaExceededError: the run goes on with the bytes in memory
    }
  }
  return {bytes, cached: false, stored};
}

// Every cached entry: [{store, url, bytes}].
export async function listCached() {
  if (!globalThis.caches) return [];
  const out = [];
  for (const store of STORES) {
    if (!(await caches.has(store))) continue;
    const cache = await caches.open(store);
    for (const request of await cache.keys()) {
      const response = await cache.match(request);
      let bytes = Number(response.headers.get('content-length'));
      if (!bytes) bytes = (await response.blob()).size;
      out.push({store, url: request.url, bytes});
    }
  }
  return out;
}

export async function freeCached(store, url) {
  if (!globalThis.caches) return false;
  return (await caches.open(store)).delete(url);
}

export async function freeAll() {
  if (!globalThis.caches) return;
  for (const store of STORES) await caches.delete(store);
}

// {usage, quota} from navigator.storage.estimate(), or null where the browser has none.
export async function storageEstimate() {
  const storage = globalThis.navigator && navigator.storage;
  if (!storage || !storage.estimate) return null;
  try {
    const {usage = 0, quota = 0} = await storage.estimate();
    return {usage, quota};
  } catch (e) {
    return null;
  }
}
