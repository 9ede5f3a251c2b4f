// fetchVerified (package/index.mjs): pinned sha256, progress, and the Cache API where
// the host has one. Host-neutral; `base` is the URL of the test server, `hits()` how many
// times it served a path (a number, or a Promise of one).
const MODEL = '/examples/esrgan/model.pte';
const MODEL_SHA256 = '7b05aba970ff5a58e01e93025da607f0b5efc3db57fd1e100054a883aa597e71';

export const LOADER_CASES = {
  'a verified download reports progress and returns the bytes': async (wick, base) => {
    const seen = [];
    const bytes = await wick.fetchVerified(`${base}${MODEL}?p`, {sha256: MODEL_SHA256, cache: false,
                                                                 onProgress: (p) => seen.push(p)});
    if (bytes.length !== 947084) return `got ${bytes.length} bytes`;
    const last = seen[seen.length - 1];
    if (seen.length < 2 || last.loaded !== 947084 || last.total !== 947084) {
      return `progress: ${JSON.stringify(seen.slice(-2))} of ${seen.length} reports`;
    }
    for (let i = 1; i < seen.length; i++) if (seen[i].loaded < seen[i - 1].loaded) return 'progress went back';
    return null;
  },

  'a sha256 mismatch rejects and nothing is cached': async (wick, base, hits) => {
    const wrong = '0'.repeat(64);
    const url = `${base}${MODEL}?mismatch`;
    const before = await hits(MODEL);
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await wick.fetchVerified(url, {sha256: wrong});
        return 'a wrong sha256 was accepted';
      } catch (e) {
        if (!/sha256 mismatch: expected 0{64}, got 7b05ab/.test(e.message)) return `message: ${e.message}`;
      }
    }
    // Both attempts went to the server: the bad bytes were not kept.
    const served = (await hits(MODEL)) - before;
    if (served !== 2) return `the server saw ${served} requests, expected 2`;
    try {
      await wick.fetchVerified(url, {sha256: 'abc'});
      return 'a malformed sha256 was accepted';
    } catch (e) {
      if (!/sha256 must be 64 hex digits/.test(e.message)) return `message: ${e.message}`;
    }
    return null;
  },

  'a verified download is cached where the Cache API exists': async (wick, base, hits) => {
    const url = `${base}${MODEL}?cached`;
    const before = await hits(MODEL);
    const a = await wick.fetchVerified(url, {sha256: MODEL_SHA256, cache: 'wick-test'});
    const b = await wick.fetchVerified(url, {sha256: MODEL_SHA256, cache: 'wick-test'});
    if (a.length !== b.length) return 'the cached copy differs';
    const fetched = (await hits(MODEL)) - before;
    const expected = globalThis.caches ? 1 : 2;
    return fetched === expected ? null : `the server served ${fetched} times, expected ${expected}`;
  },
};
