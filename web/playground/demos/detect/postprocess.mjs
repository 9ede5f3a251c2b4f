// Detections from a DETR-family head (D-FINE, DETR): logits [1, Q, C] and boxes [1, Q, 4]
// as (cx, cy, w, h) in 0..1. As transformers' D-FINE post-processing does: sigmoid of every
// query x class logit, the top `topK` of all Q*C scores (a query may name several classes),
// then those at or above the threshold, boxes turned into corners. Pure, so the tests run
// it on the PyTorch reference outputs in Node.

export const COCO_LABELS = [
  'person', 'bicycle', 'car', 'motorcycle', 'airplane', 'bus', 'train', 'truck', 'boat', 'traffic light',
  'fire hydrant', 'stop sign', 'parking meter', 'bench', 'bird', 'cat', 'dog', 'horse', 'sheep', 'cow',
  'elephant', 'bear', 'zebra', 'giraffe', 'backpack', 'umbrella', 'handbag', 'tie', 'suitcase', 'frisbee',
  'skis', 'snowboard', 'sports ball', 'kite', 'baseball bat', 'baseball glove', 'skateboard', 'surfboard',
  'tennis racket', 'bottle', 'wine glass', 'cup', 'fork', 'knife', 'spoon', 'bowl', 'banana', 'apple',
  'sandwich', 'orange', 'broccoli', 'carrot', 'hot dog', 'pizza', 'donut', 'cake', 'chair', 'couch',
  'potted plant', 'bed', 'dining table', 'toilet', 'tv', 'laptop', 'mouse', 'remote', 'keyboard',
  'cell phone', 'microwave', 'oven', 'toaster', 'sink', 'refrigerator', 'book', 'clock', 'vase',
  'scissors', 'teddy bear', 'hair drier', 'toothbrush'];

// [{score, label, name, query, box: [x0, y0, x1, y1] in 0..1}], best first.
export function detections(logits, boxes, {queries, classes, topK = queries, threshold = 0.5}) {
  const n = queries * classes;
  if (logits.length !== n) throw new Error(`detections: logits have ${logits.length} values, expected ${queries}x${classes}`);
  if (boxes.length !== queries * 4) throw new Error(`detections: boxes have ${boxes.length} values, expected ${queries}x4`);
  const order = new Uint32Array(n);
  const scores = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    order[i] = i;
    scores[i] = 1 / (1 + Math.exp(-logits[i]));
  }
  // Sorted by score, ties by index (as a stable top-k).
  order.sort((a, b) => scores[b] - scores[a] || a - b);
  const out = [];
  for (let k = 0; k < Math.min(topK, n); k++) {
    const i = order[k], score = scores[i];
    if (score < threshold) break;
    const q = Math.floor(i / classes), label = i % classes;
    const [cx, cy, w, h] = boxes.subarray ? boxes.subarray(4 * q, 4 * q + 4) : boxes.slice(4 * q, 4 * q + 4);
    out.push({score, label, name: COCO_LABELS[label] || `class ${label}`, query: q,
              box: [cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2]});
  }
  return out;
}
