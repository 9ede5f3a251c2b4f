// The Whisper demo's feature worker: mono, 16 kHz, log-mel, off the page's thread (a 30 s
// window takes a few hundred ms). Message in: {id, sampleRate, channels}; out: {id,
// samples (16 kHz mono), features (Float32Array [80 * 3000]), ms} or {id, error}.
import {logMelSpectrogram} from '../../lib/logmel.mjs';
import {resample, toMono, WHISPER_RATE} from '../../lib/resample.mjs';

self.onmessage = ({data: {id, sampleRate, channels}}) => {
  try {
    const t0 = performance.now();
    const samples = resample(toMono(channels), sampleRate, WHISPER_RATE);
    const t1 = performance.now();
    const features = logMelSpectrogram(samples);
    const copy = samples === channels[0] ? samples.slice() : samples;
    self.postMessage({id, samples: copy, features, resampleMs: t1 - t0, featuresMs: performance.now() - t1},
                     [copy.buffer, features.buffer]);
  } catch (e) {
    self.postMessage({id, error: e.message});
  }
};
