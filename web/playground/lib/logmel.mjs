// Whisper's log-mel spectrogram, computed as openai/whisper's log_mel_spectrogram and
// transformers' WhisperFeatureExtractor do: 16 kHz mono padded with zeros (or cut) to a 30 s
// window, a 400-point STFT (periodic Hann window, hop 160, the signal reflected by 200
// samples at both ends as torch.stft(center=True) does, the last frame dropped), power
// spectrum, 80 mel bands of librosa's Slaney filterbank (0-8 kHz, area-normalised),
// log10 (floor 1e-10), clamped to 8 below the window's maximum, then (x + 4) / 4.
import {FFT} from './fft.mjs';

export const SAMPLE_RATE = 16000, N_FFT = 400, HOP = 160, N_MELS = 80, CHUNK_SECONDS = 30;
export const N_SAMPLES = SAMPLE_RATE * CHUNK_SECONDS;  // 480000
export const N_FRAMES = N_SAMPLES / HOP;                // 3000

// Slaney's mel scale (librosa's default, htk=False): linear below 1 kHz, logarithmic above.
const F_SP = 200 / 3, MIN_LOG_HZ = 1000, MIN_LOG_MEL = MIN_LOG_HZ / F_SP, LOG_STEP = Math.log(6.4) / 27;
export function hzToMel(f) {
  return f < MIN_LOG_HZ ? f / F_SP : MIN_LOG_MEL + Math.log(f / MIN_LOG_HZ) / LOG_STEP;
}
export function melToHz(m) {
  return m < MIN_LOG_MEL ? m * F_SP : MIN_LOG_HZ * Math.exp(LOG_STEP * (m - MIN_LOG_MEL));
}

// Filterbank [nMels][nFft/2+1] (as librosa.filters.mel(sr, n_fft, n_mels) with
// norm='slaney'): triangles between mel-spaced edges, each scaled by 2 / (its width in Hz).
export function melFilterbank(sampleRate = SAMPLE_RATE, nFft = N_FFT, nMels = N_MELS, fMin = 0, fMax = sampleRate / 2) {
  const nFreqs = Math.floor(nFft / 2) + 1;
  const lo = hzToMel(fMin), hi = hzToMel(fMax);
  const edges = Array.from({length: nMels + 2}, (_, i) => melToHz(lo + ((hi - lo) * i) / (nMels + 1)));
  const filters = [];
  for (let m = 0; m < nMels; m++) {
    const w = new Float64Array(nFreqs), enorm = 2 / (edges[m + 2] - edges[m]);
    for (let k = 0; k < nFreqs; k++) {
      const f = (k * sampleRate) / nFft;
      const rise = (f - edges[m]) / (edges[m + 1] - edges[m]);
      const fall = (edges[m + 2] - f) / (edges[m + 2] - edges[m + 1]);
      w[k] = Math.max(0, Math.min(rise, fall)) * enorm;
    }
    filters.push(w);
  }
  return filters;
}

let cached = null;
function plan() {
  if (!cached) {
    const window = new Float64Array(N_FFT);
    for (let i = 0; i < N_FFT; i++) window[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / N_FFT);  // periodic Hann
    const filters = melFilterbank();
    // Each filter's nonzero range, so the mel product skips the zeros.
    const ranges = filters.map((w) => {
      let a = 0, b = w.length - 1;
      while (a < w.length && w[a] === 0) a++;
      while (b > a && w[b] === 0) b--;
      return [a, b];
    });
    cached = {window, filters, ranges, fft: new FFT(N_FFT)};
  }
  return cached;
}

// samples: Float32Array of 16 kHz mono audio (at most 30 s are used). Returns the
// features as a Float32Array [80, 3000] (row-major: mel band, then frame), ready to be
// the input_features [1, 80, 3000] of a Whisper encoder.
export function logMelSpectrogram(samples) {
  if (!(samples instanceof Float32Array)) throw new Error('logMelSpectrogram: samples must be a Float32Array');
  const {window, filters, ranges, fft} = plan();
  const x = new Float32Array(N_SAMPLES);
  x.set(samples.length > N_SAMPLES ? samples.subarray(0, N_SAMPLES) : samples);
  const pad = N_FFT / 2, L = N_SAMPLES, nFreqs = N_FFT / 2 + 1;
  // Index into the reflect-padded signal: position i of the padded signal is x[i - pad].
  const at = (i) => {
    let j = i - pad;
    if (j < 0) j = -j;
    else if (j >= L) j = 2 * (L - 1) - j;
    return x[j];
  };
  const re = new Float64Array(N_FFT), im = new Float64Array(N_FFT);
  const ore = new Float64Array(N_FFT), oim = new Float64Array(N_FFT), power = new Float64Array(nFreqs);
  const out = new Float32Array(N_MELS * N_FRAMES);
  let max = -Infinity;
  for (let t = 0; t < N_FRAMES; t++) {
    const start = t * HOP;
    let silent = true;
    for (let i = 0; i < N_FFT; i++) {
      const v = at(start + i);
      if (v !== 0) silent = false;
      re[i] = v * window[i];
      im[i] = 0;
    }
    if (silent) {
      power.fill(0);
    } else {
      fft.transform(re, im, ore, oim);
      for (let k = 0; k < nFreqs; k++) power[k] = ore[k] * ore[k] + oim[k] * oim[k];
    }
    for (let m = 0; m < N_MELS; m++) {
      const w = filters[m], [a, b] = ranges[m];
      let s = 0;
      for (let k = a; k <= b; k++) s += w[k] * power[k];
      const v = Math.log10(Math.max(s, 1e-10));
      out[m * N_FRAMES + t] = v;
      if (v > max) max = v;
    }
  }
  for (let i = 0; i < out.length; i++) out[i] = (Math.max(out[i], max - 8) + 4) / 4;
  return out;
}
