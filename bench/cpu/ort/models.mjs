// The models of the CPU benchmark against onnxruntime: Wick runs the fixture program
// (../shared/fixtures/<pte>), onnxruntime its ONNX twin from export_onnx.py (same
// architecture and shapes, random weights).
export const MODELS = [
  {name: 'mobilenet_v3_small', pte: 'models/mobilenet_v3_small', onnx: 'mobilenet_v3_small.onnx', warmup: 2, runs: 20},
  {name: 'esrgan_slim_x4_64', pte: 'pretrained/esrgan_slim_x4', onnx: 'esrgan_slim_x4.onnx', warmup: 1, runs: 5},
  {name: 'llama_tiny_decode_q4', pte: 'demos/llama_q4gsw_kv', onnx: 'llama_tiny_decode_q4.onnx', warmup: 5, runs: 100},
  {name: 'llama_tiny_decode_fp32', pte: 'models/llama_et_kv_sdpa', onnx: 'llama_tiny_decode.onnx', warmup: 5, runs: 100},
];
