// Audio to what Whisper takes: one channel at 16 kHz. The resampler is a Kaiser-windowed
// sinc interpolator (band-limited at 97% of the lower Nyquist frequency, 32 zero crossings
// each side, beta 9: close to what ffmpeg's resampler does by default, which is how
// Whisper's own audio loading gets to 16 kHz). It runs anywhere, so the worker and Node
// tests see the same samples. (WAV files and the microphone come through here; other file
// formats are decoded by the browser, whose decodeAudioData resamples them itself.)

export const WHISPER_RATE = 16000;
const ZERO_CROSSINGS = 32, BETA = 9, CUTOFF = 0.97;

// Mean of the channels (Float32Arrays of one length).
export function toMono(channels) {
  if (!channels.length) throw new Error('audio: no channels');
  if (channels.length === 1) return channels[0];
  const n = channels[0].length, out = new Float32Array(n);
  for (const c of channels) {
    if (c.length !== n) throw new Error('audio: channels of different lengths');
    for (let i = 0; i < n; i++) out[i] += c[i];
  }
  for (let i = 0; i < n; i++) out[i] /= channels.length;
  return out;
}

// Modified Bessel function of the first kind, order 0 (its power series converges fast
// for the arguments a Kaiser window uses).
function besselI0(x) {
  let sum = 1, term = 1;
  for (let k = 1; k < 50; k++) {
    term *= (x / (2 * k)) ** 2;
    sum += term;
    if (term < 1e-12 * sum) break;
  }
  return sum;
}

// The windowed-sinc kernel h(d), d in input samples, tabulated for |d| in [0, half] at
// STEPS points per input sample and read with linear interpolation (a direct evaluation
// would take a Bessel series per tap; the table's error is below 1e-6 of the peak).
const STEPS = 512;
function kernelTable(fc, half) {
  const n = Math.ceil(half * STEPS) + 2, table = new Float32Array(n), i0beta = besselI0(BETA);
  for (let k = 0; k < n; k++) {
    const d = k / STEPS, t = Math.min(1, d / half);
    const a = 2 * Math.PI * fc * d;
    table[k] = (besselI0(BETA * Math.sqrt(1 - t * t)) / i0beta) * (k === 0 ? 2 * fc : (2 * fc * Math.sin(a)) / a);
  }
  return table;
}

// x (Float32Array at fromRate Hz) -> Float32Array at toRate Hz, output sample j at time
// j / toRate. Samples outside x count as 0.
export function resample(x, fromRate, toRate) {
  if (!(fromRate > 0) || !(toRate > 0)) throw new Error(`resample: bad rates ${fromRate} -> ${toRate}`);
  if (fromRate === toRate) return x;
  const ratio = toRate / fromRate;
  // The cutoff as a fraction of the input rate, and the kernel's half width in input samples.
  const fc = 0.5 * Math.min(1, ratio) * CUTOFF;
  const half = ZERO_CROSSINGS / (2 * fc);
  const table = kernelTable(fc, half);
  const n = Math.floor(x.length * ratio);
  const out = new Float32Array(n);
  for (let j = 0; j < n; j++) {
    const p = j / ratio;
    const lo = Math.max(0, Math.ceil(p - half)), hi = Math.min(x.length - 1, Math.floor(p + half));
    let acc = 0;
    for (let i = lo; i <= hi; i++) {
      const u = Math.abs(i - p) * STEPS, k = Math.floor(u), f = u - k;
      acc += x[i] * (table[k] + f * (table[k + 1] - table[k]));
    }
    out[j] = acc;
  }
  return out;
}
