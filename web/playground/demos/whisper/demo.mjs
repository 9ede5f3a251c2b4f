// Whisper speech to text: audio from a file, the sample clip or the microphone -> 16 kHz
// mono -> log-mel features (features_worker.mjs) -> the encoder once -> greedy decoding
// with the decoder, token by token, the transcript growing as it goes.
import {el, useStyles} from '../../lib/dom.mjs';
import {N_FRAMES, N_MELS} from '../../lib/logmel.mjs';
import {compare, copyTensor, describe, fetchTensor} from '../../lib/reference_check.mjs';
import {decodeAudioFile, MAX_SECONDS, startMicrophone} from './audio_source.mjs';
import {greedyDecode} from './greedy.mjs';

useStyles(new URL('./whisper.css', import.meta.url));

// Features worker: one request at a time, answered in order.
let featuresWorker = null, nextId = 0;
function computeFeatures(audio) {
  featuresWorker ||= new Worker(new URL('./features_worker.mjs', import.meta.url), {type: 'module'});
  const id = ++nextId;
  return new Promise((resolve, reject) => {
    featuresWorker.onmessage = ({data}) => {
      if (data.id !== id) return;
      if (data.error) reject(new Error(`audio features: ${data.error}`));
      else resolve(data);
    };
    featuresWorker.onerror = (e) => reject(new Error(`audio features worker: ${e.message}`));
    featuresWorker.postMessage({id, ...audio});
  });
}

function drawWaveform(canvas, samples) {
  const ctx = canvas.getContext('2d'), {width, height} = canvas;
  ctx.clearRect(0, 0, width, height);
  ctx.fillStyle = '#f4f6fb';
  ctx.fillRect(0, 0, width, height);
  const span = 16000 * MAX_SECONDS;
  ctx.fillStyle = '#3b6fd8';
  for (let x = 0; x < width; x++) {
    const a = Math.floor((x * span) / width), b = Math.min(samples.length, Math.floor(((x + 1) * span) / width));
    let lo = 0, hi = 0;
    for (let i = a; i < b; i++) { lo = Math.min(lo, samples[i]); hi = Math.max(hi, samples[i]); }
    if (b > a) ctx.fillRect(x, height / 2 - hi * height / 2, 1, Math.max(1, (hi - lo) * height / 2));
  }
  ctx.fillStyle = '#8a93a6';
  ctx.font = '11px system-ui, sans-serif';
  for (let s = 0; s <= MAX_SECONDS; s += 5) ctx.fillText(`${s}s`, Math.min(width - 18, (s / MAX_SECONDS) * width + 2), height - 3);
}

// The features as a picture: time left to right, low bands at the bottom, a dark-to-warm ramp.
function drawFeatures(canvas, features) {
  const ctx = canvas.getContext('2d');
  const image = ctx.createImageData(N_FRAMES, N_MELS);
  let lo = Infinity, hi = -Infinity;
  for (const v of features) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  const stops = [[0, 0, 4], [80, 18, 123], [182, 54, 121], [251, 136, 97], [252, 253, 191]];
  for (let m = 0; m < N_MELS; m++) {
    for (let t = 0; t < N_FRAMES; t++) {
      const v = (features[m * N_FRAMES + t] - lo) / (hi - lo || 1), f = v * (stops.length - 1);
      const i = Math.min(stops.length - 2, Math.floor(f)), w = f - i;
      const p = 4 * ((N_MELS - 1 - m) * N_FRAMES + t);
      for (let c = 0; c < 3; c++) image.data[p + c] = stops[i][c] + w * (stops[i + 1][c] - stops[i][c]);
      image.data[p + 3] = 255;
    }
  }
  canvas.width = N_FRAMES;
  canvas.height = N_MELS;
  ctx.putImageData(image, 0, 0);
}

export default {
  async mount(ctx) {
    const fileInput = el('input', {type: 'file', accept: 'audio/*,.wav', id: 'whisper-file'});
    const sampleButton = el('button', {id: 'whisper-sample'}, 'Sample: JFK, 11 s');
    const recordButton = el('button', {id: 'whisper-record'}, '\u25cf Record');
    const transcribeButton = el('button', {class: 'primary', id: 'whisper-transcribe', disabled: true}, 'Transcribe');
    const checkButton = el('button', {id: 'whisper-check'}, 'Check against the reference');
    const audioInfo = el('span', {class: 'hint', id: 'whisper-audio-info'}, 'No audio yet: pick a file, the sample, or record up to 30 s.');
    const player = el('audio', {controls: true, id: 'whisper-player', hidden: true});
    const wave = el('canvas', {width: 900, height: 90, class: 'whisper-wave'});
    const mel = el('canvas', {width: N_FRAMES, height: N_MELS, class: 'whisper-mel'});
    const transcript = el('div', {class: 'whisper-transcript', id: 'whisper-transcript'}, el('span', {class: 'hint'}, 'The transcript appears here.'));
    const tokenList = el('div', {class: 'whisper-tokens', id: 'whisper-tokens'});
    const stats = el('div', {class: 'hint', id: 'whisper-stats'});
    const known = el('div', {class: 'hint whisper-known', id: 'whisper-known'});
    const checkOut = el('pre', {class: 'whisper-check', id: 'whisper-check-result', hidden: true});
    const note = el('p', {class: 'hint', id: 'whisper-note'});
    ctx.root.append(
      el('div', {class: 'row'}, sampleButton, el('label', {class: 'file'}, 'Audio file ', fileInput), recordButton,
         transcribeButton, checkButton),
      el('div', {class: 'row'}, audioInfo, player),
      el('div', {class: 'figures whisper-figures'},
         el('figure', {}, wave, el('figcaption', {}, 'Waveform, 16 kHz mono, in Whisper\'s 30 s window')),
         el('figure', {}, mel, el('figcaption', {}, 'Log-mel features: 80 bands x 3000 frames (10 ms each)'))),
      el('div', {class: 'panel'}, el('h3', {}, 'Transcript'), transcript, tokenList, stats, known),
      note, checkOut);

    let audio = null;  // {samples, features, seconds, label}
    const optionNote = () => {
      const option = ctx.option();
      note.textContent = option.tokenizer
        ? ''
        : `${option.label}: this program has random weights and no vocabulary, so what it "hears" is a ` +
          'sequence of token ids, not words. The pipeline (features, encoder, greedy decoding) is the real one; ' +
          'a Whisper program with real weights and its tokenizer gives text.';
    };
    optionNote();

    async function useAudio(decoded, label, blob) {
      const seconds = decoded.channels[0].length / decoded.sampleRate;
      audioInfo.textContent = `${label}: ${decoded.sampleRate} Hz, ${decoded.channels.length} channel(s), ${seconds.toFixed(1)} s` +
        (seconds > MAX_SECONDS ? ` (the first ${MAX_SECONDS} s are used)` : '') + '. Computing features...';
      const f = await computeFeatures(decoded);
      audio = {samples: f.samples, features: f.features, seconds, label};
      drawWaveform(wave, f.samples);
      drawFeatures(mel, f.features);
      audioInfo.textContent = `${label}: ${seconds.toFixed(1)} s at ${decoded.sampleRate} Hz` +
        (decoded.sampleRate === 16000 ? '' : ' (resampled to 16 kHz)') +
        `; log-mel in ${f.featuresMs.toFixed(0)} ms.`;
      if (blob) {
        if (player.src) URL.revokeObjectURL(player.src);
        player.src = URL.createObjectURL(blob);
        player.hidden = false;
      }
      transcribeButton.disabled = false;
      known.textContent = label === ctx.entry.sample.name ? `What the clip says: “${ctx.entry.sample.transcript}”` : '';
      ctx.publish({audio: {label, sampleRate: decoded.sampleRate, seconds, samples: f.samples.length},
                   features: f.features, featuresMs: f.featuresMs, transcript: null});
    }

    const guarded = (fn) => async (...args) => {
      try {
        await fn(...args);
      } catch (e) {
        ctx.message(e.message, 'error');
        ctx.publish({error: e.message});
      }
    };

    fileInput.addEventListener('change', guarded(async () => {
      const file = fileInput.files[0];
      if (!file) return;
      const bytes = new Uint8Array(await file.arrayBuffer());
      await useAudio(await decodeAudioFile(bytes, file.name), file.name, file);
    }));

    sampleButton.addEventListener('click', guarded(async () => {
      const sample = ctx.entry.sample;
      const bytes = await ctx.fetchAsset(sample.url, {sha256: sample.sha256});
      if (!bytes) return;
      await useAudio(await decodeAudioFile(bytes, sample.name), sample.name, new Blob([bytes], {type: 'audio/wav'}));
    }));

    let recording = null;
    recordButton.addEventListener('click', guarded(async () => {
      if (recording) {
        const r = recording;
        recording = null;
        recordButton.textContent = '\u25cf Record';
        recordButton.classList.remove('recording');
        const decoded = await r.stop();
        await useAudio(decoded, 'Microphone recording', null);
        return;
      }
      recording = await startMicrophone({
        onLevel: (rms, seconds) => {
          audioInfo.textContent = `Recording: ${seconds.toFixed(1)} s of ${MAX_SECONDS} (level ${(20 * Math.log10(rms + 1e-9)).toFixed(0)} dB). Press Stop when done.`;
        },
        onAutoStop: () => recordButton.click(),
      });
      recordButton.textContent = '\u25a0 Stop';
      recordButton.classList.add('recording');
    }));

    transcribeButton.addEventListener('click', () => transcribe());

    async function loadBoth(step, signal) {
      const encoder = await ctx.load('encoder', step, signal);
      const decoder = await ctx.load('decoder', step, signal);
      return {encoder, decoder};
    }

    async function transcribe() {
      if (!audio) return;
      const option = ctx.option(), d = option.decoding;
      transcript.replaceChildren();
      tokenList.replaceChildren();
      stats.textContent = '';
      const result = await ctx.task('Transcribing', async (step, signal) => {
        const {encoder, decoder} = await loadBoth(step, signal);
        step('Encoder: 30 s of features');
        const t0 = performance.now();
        const [hidden] = await encoder.run([{dtype: 'float32', shape: [1, N_MELS, N_FRAMES], data: audio.features.slice()}], {signal});
        const encoderMs = performance.now() - t0;
        const positions = decoder.meta?.inputs?.[0]?.shape?.[1] || d.positions;
        const t1 = performance.now();
        const out = await greedyDecode({
          prompt: d.prompt, eos: d.eos, pad: d.pad, positions, vocab: d.vocab, signal,
          maxTokens: d.maxTokens ?? Infinity,
          runDecoder: async (ids) => {
            const [logits] = await decoder.run([{dtype: 'int64', shape: [1, positions], data: ids}, copyTensor(hidden)], {signal});
            return logits.data;
          },
          onToken: (id, n) => {
            step(`Decoding: token ${n}`, n / (positions - d.prompt.length));
            tokenList.append(el('span', {class: id === d.eos ? 'tok eos' : 'tok'}, String(id)));
            transcript.textContent = option.tokenizer ? '' : `${tokenList.childElementCount} token(s): ` +
              [...tokenList.children].map((c) => c.textContent).join(' ');
          },
        });
        const decoderMs = performance.now() - t1;
        return {tokens: out.tokens, stopped: out.stopped, encoderMs, decoderMs};
      });
      if (!result) return;
      const why = {eos: 'end of text', length: 'the decoder\'s positions are full', 'max-tokens': 'the token limit'}[result.stopped];
      stats.textContent = `Encoder ${result.encoderMs.toFixed(0)} ms; ${result.tokens.length} token(s) in ` +
        `${result.decoderMs.toFixed(0)} ms (${(result.decoderMs / result.tokens.length).toFixed(0)} ms each); stopped at ${why}.`;
      if (!option.tokenizer) {
        transcript.textContent = `Token ids (random weights, no vocabulary): ${result.tokens.join(' ')}`;
      }
      ctx.publish({transcript: {tokens: result.tokens, stopped: result.stopped, text: transcript.textContent,
                                encoderMs: result.encoderMs, decoderMs: result.decoderMs}});
    }

    // The encoder on the fixture's features and the decoder on its ids and hidden states,
    // compared with the PyTorch references.
    checkButton.addEventListener('click', async () => {
      const option = ctx.option(), ref = option.reference, tol = option.tolerance;
      if (!ref) {
        ctx.message(`${option.label} has no reference case to check against.`, 'warn');
        return;
      }
      const lines = await ctx.task('Checking against the reference', async (step, signal) => {
        const {encoder, decoder} = await loadBoth(step, signal);
        step('Reference inputs');
        const [features] = await Promise.all(ref.inputs.map((t) => fetchTensor(t, signal)));
        const [wantHidden] = await Promise.all(ref.outputs.map((t) => fetchTensor(t, signal)));
        const [ids, hiddenIn] = await Promise.all(ref.decoder.inputs.map((t) => fetchTensor(t, signal)));
        const [wantLogits] = await Promise.all(ref.decoder.outputs.map((t) => fetchTensor(t, signal)));
        step('Encoder on the reference features');
        const [hidden] = await encoder.run([features], {signal});
        step('Decoder on the reference ids');
        const [logits] = await decoder.run([ids, hiddenIn], {signal});
        const e = compare(hidden.data, wantHidden.data, tol), dd = compare(logits.data, wantLogits.data, tol);
        ctx.publish({check: {encoder: e, decoder: dd}, checkOutputs: {hidden, logits}});
        return [describe('encoder_hidden_states [1,1500,64]', e, tol), describe('logits [1,8,512]', dd, tol)];
      });
      if (!lines) return;
      checkOut.hidden = false;
      checkOut.textContent = lines.join('\n');
    });

    ctx.publish({ready: true});
    return {onModelChange: optionNote};
  },
};
