// Where the Whisper demo's audio comes from: a file (WAV read exactly by lib/wav.mjs, any
// other format through the browser's decodeAudioData), or the microphone (getUserMedia +
// an AudioWorklet that hands over raw samples). Everything ends as 16 kHz mono, the
// resampling done by lib/resample.mjs in the features worker.
import {decodeWav, isWav} from '../../lib/wav.mjs';

export const MAX_SECONDS = 30;

// bytes of an audio file -> {sampleRate, channels: [Float32Array...]}.
export async function decodeAudioFile(bytes, name = 'the file') {
  if (isWav(bytes)) return decodeWav(bytes);
  const Context = globalThis.OfflineAudioContext || globalThis.webkitOfflineAudioContext;
  if (!Context) throw new Error(`${name}: not a WAV file, and this browser has no Web Audio to decode other formats`);
  // decodeAudioData returns the audio at its context's rate: ask for 16 kHz directly.
  const context = new Context(1, 1, 16000);
  let buffer;
  try {
    buffer = await context.decodeAudioData(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  } catch (e) {
    throw new Error(`${name}: the browser cannot decode it as audio (${e.message || e.name})`);
  }
  const channels = [];
  for (let c = 0; c < buffer.numberOfChannels; c++) channels.push(buffer.getChannelData(c).slice());
  return {sampleRate: buffer.sampleRate, channels};
}

// Starts recording. onLevel(rms, seconds) as blocks arrive; stops by itself at
// MAX_SECONDS (onAutoStop). Resolves to {stop(): Promise<{sampleRate, channels}>}.
export async function startMicrophone({onLevel = () => {}, onAutoStop = () => {}} = {}) {
  if (!navigator.mediaDevices?.getUserMedia) {
    throw new Error('this browser gives the page no microphone (navigator.mediaDevices.getUserMedia is missing; it needs https or localhost)');
  }
  let stream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({
      audio: {channelCount: 1, echoCancellation: false, noiseSuppression: false, autoGainControl: false}});
  } catch (e) {
    throw new Error(`the microphone could not be opened: ${e.message || e.name}`);
  }
  const context = new AudioContext();
  await context.audioWorklet.addModule(new URL('./capture_worklet.js', import.meta.url));
  const source = context.createMediaStreamSource(stream);
  const node = new AudioWorkletNode(context, 'wick-capture');
  // A silent path to the output keeps the graph pulled without playing the voice back.
  const mute = context.createGain();
  mute.gain.value = 0;
  source.connect(node).connect(mute).connect(context.destination);
  const blocks = [];
  let count = 0, stopped = null;
  const stop = async () => {
    if (stopped) return stopped;
    stopped = (async () => {
      node.port.onmessage = null;
      source.disconnect();
      stream.getTracks().forEach((t) => t.stop());
      const sampleRate = context.sampleRate;
      await context.close();
      const samples = new Float32Array(count);
      let at = 0;
      for (const b of blocks) { samples.set(b, at); at += b.length; }
      return {sampleRate, channels: [samples]};
    })();
    return stopped;
  };
  node.port.onmessage = (e) => {
    const b = e.data;
    blocks.push(b);
    count += b.length;
    let s = 0;
    for (let i = 0; i < b.length; i++) s += b[i] * b[i];
    const seconds = count / context.sampleRate;
    onLevel(Math.sqrt(s / b.length), seconds);
    if (seconds >= MAX_SECONDS) stop().then(onAutoStop);
  };
  return {stop, sampleRate: context.sampleRate};
}
