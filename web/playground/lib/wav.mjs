// RIFF/WAVE decoding to float samples, with no browser API: the playground reads WAV files
// itself so that the exact samples (not a browser's resampled copy) reach Whisper, and the
// same code runs in Node tests. Other formats go through the browser's decodeAudioData.

const FORMAT_PCM = 1, FORMAT_FLOAT = 3, FORMAT_EXTENSIBLE = 0xfffe;

function fail(what) {
  throw new Error(`WAV: ${what}`);
}

function fourcc(view, at) {
  return String.fromCharCode(view.getUint8(at), view.getUint8(at + 1), view.getUint8(at + 2), view.getUint8(at + 3));
}

// True when the bytes start like a WAV file (so a caller can pick this decoder or another).
export function isWav(bytes) {
  const b = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  if (b.length < 12) return false;
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  return fourcc(v, 0) === 'RIFF' && fourcc(v, 8) === 'WAVE';
}

// Reads one sample of the given width (bits) and format at a byte offset, as a float in
// [-1, 1): integers are divided by 2^(bits-1), 8-bit PCM is unsigned (offset 128).
function sampleReader(view, format, bits) {
  if (format === FORMAT_FLOAT) {
    if (bits === 32) return (at) => view.getFloat32(at, true);
    if (bits === 64) return (at) => view.getFloat64(at, true);
    fail(`${bits}-bit float samples are not supported (32 or 64)`);
  }
  if (bits === 8) return (at) => (view.getUint8(at) - 128) / 128;
  if (bits === 16) return (at) => view.getInt16(at, true) / 32768;
  if (bits === 24) {
    return (at) => {
      const u = view.getUint8(at) | (view.getUint8(at + 1) << 8) | (view.getInt8(at + 2) << 16);
      return u / 8388608;
    };
  }
  if (bits === 32) return (at) => view.getInt32(at, true) / 2147483648;
  return fail(`${bits}-bit integer samples are not supported (8, 16, 24 or 32)`);
}

// bytes: ArrayBuffer or Uint8Array of a whole .wav file. Returns {sampleRate, channels}
// with one Float32Array per channel. Throws an Error naming what is wrong.
export function decodeWav(bytes) {
  const b = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  if (!isWav(b)) fail('not a RIFF/WAVE file (no "RIFF....WAVE" header)');
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let fmt = null, data = null;
  // Chunks: 4-byte id, 4-byte little-endian size, payload padded to an even length.
  for (let at = 12; at + 8 <= b.length;) {
    const id = fourcc(view, at), size = view.getUint32(at + 4, true);
    const body = at + 8;
    if (id === 'fmt ') {
      if (size < 16 || body + 16 > b.length) fail(`"fmt " chunk of ${size} bytes is too short`);
      let format = view.getUint16(body, true);
      const bits = view.getUint16(body + 14, true);
      if (format === FORMAT_EXTENSIBLE) {
        if (size < 40) fail('WAVE_FORMAT_EXTENSIBLE "fmt " chunk without its sub-format');
        format = view.getUint16(body + 24, true);
      }
      fmt = {format, channels: view.getUint16(body + 2, true), sampleRate: view.getUint32(body + 4, true),
             blockAlign: view.getUint16(body + 12, true), bits};
    } else if (id === 'data') {
      // A streamed file may give a size past the end (or 0xFFFFFFFF): take what is there.
      data = {offset: body, size: Math.min(size, b.length - body)};
      if (fmt) break;
    }
    at = body + size + (size & 1);
  }
  if (!fmt) fail('no "fmt " chunk');
  if (!data) fail('no "data" chunk');
  if (fmt.format !== FORMAT_PCM && fmt.format !== FORMAT_FLOAT) {
    fail(`sample format ${fmt.format} is not supported (1: PCM, 3: IEEE float)`);
  }
  if (fmt.channels < 1) fail('0 channels');
  if (fmt.sampleRate < 1) fail('sample rate 0');
  const width = fmt.bits / 8;
  if (!Number.isInteger(width) || fmt.blockAlign !== width * fmt.channels) {
    fail(`block align ${fmt.blockAlign} does not match ${fmt.channels} channel(s) of ${fmt.bits} bits`);
  }
  const read = sampleReader(view, fmt.format, fmt.bits);
  const frames = Math.floor(data.size / fmt.blockAlign);
  const channels = [];
  for (let c = 0; c < fmt.channels; c++) {
    const x = new Float32Array(frames);
    for (let i = 0, at = data.offset + c * width; i < frames; i++, at += fmt.blockAlign) x[i] = read(at);
    channels.push(x);
  }
  return {sampleRate: fmt.sampleRate, channels};
}

// A 16-bit PCM WAV file of one or more channels (Float32Arrays of equal length, clipped
// to [-1, 1]): for saving a microphone recording, and for tests.
export function encodeWav16(channels, sampleRate) {
  const n = channels[0].length, k = channels.length;
  const out = new DataView(new ArrayBuffer(44 + 2 * n * k));
  const text = (at, s) => { for (let i = 0; i < 4; i++) out.setUint8(at + i, s.charCodeAt(i)); };
  text(0, 'RIFF'); out.setUint32(4, 36 + 2 * n * k, true); text(8, 'WAVE');
  text(12, 'fmt '); out.setUint32(16, 16, true); out.setUint16(20, FORMAT_PCM, true); out.setUint16(22, k, true);
  out.setUint32(24, sampleRate, true); out.setUint32(28, sampleRate * 2 * k, true);
  out.setUint16(32, 2 * k, true); out.setUint16(34, 16, true);
  text(36, 'data'); out.setUint32(40, 2 * n * k, true);
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < k; c++) {
      const v = Math.max(-1, Math.min(1, channels[c][i]));
      out.setInt16(44 + 2 * (i * k + c), Math.min(32767, Math.round(v * 32768)), true);
    }
  }
  return new Uint8Array(out.buffer);
}
