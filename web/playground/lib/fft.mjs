// A complex FFT of any length, by mixed-radix Cooley-Tukey (decimation in time over the
// length's prime factors). Whisper's frame is 400 samples = 2^4 * 5^2, not a power of two,
// so a radix-2 FFT would not do; a plan is made once per length and reused for every frame.

function primeFactors(n) {
  const f = [];
  for (let p = 2; n > 1;) {
    if (n % p === 0) { f.push(p); n /= p; } else p = p === 2 ? 3 : p + 2;
    if (p * p > n && n > 1) { f.push(n); break; }
  }
  return f;
}

export class FFT {
  constructor(n) {
    if (!Number.isInteger(n) || n < 1) throw new Error(`FFT: bad length ${n}`);
    this.n = n;
    this.factors = primeFactors(n);
    // exp(-2 pi i k / n) for k < n: every twiddle of every stage is one of these.
    this.cos = new Float64Array(n);
    this.sin = new Float64Array(n);
    for (let k = 0; k < n; k++) {
      this.cos[k] = Math.cos((2 * Math.PI * k) / n);
      this.sin[k] = -Math.sin((2 * Math.PI * k) / n);
    }
    const pmax = Math.max(1, ...this.factors);
    this.tre = new Float64Array(pmax);
    this.tim = new Float64Array(pmax);
  }

  // (inRe, inIm) -> (outRe, outIm), all of length n; the inputs are not changed.
  // X[k] = sum_j x[j] exp(-2 pi i j k / n).
  transform(inRe, inIm, outRe, outIm) {
    this.#step(0, this.n, 1, inRe, inIm, 0, outRe, outIm, 0);
  }

  // The DFT of the m = len elements in[inOff + j*stride] into out[outOff ..].
  #step(level, len, stride, inRe, inIm, inOff, outRe, outIm, outOff) {
    if (len === 1) {
      outRe[outOff] = inRe[inOff];
      outIm[outOff] = inIm[inOff];
      return;
    }
    const p = this.factors[level], m = len / p;
    for (let r = 0; r < p; r++) {
      this.#step(level + 1, m, stride * p, inRe, inIm, inOff + r * stride, outRe, outIm, outOff + r * m);
    }
    // Butterflies: X[k + q m] = sum_r W_len^(r (k + q m)) Y_r[k], W_len^j = W_n^(j * stride).
    const {cos, sin, tre, tim, n} = this;
    for (let k = 0; k < m; k++) {
      for (let q = 0; q < p; q++) {
        let re = 0, im = 0;
        const kk = k + q * m;
        for (let r = 0; r < p; r++) {
          const w = ((r * kk) % len) * stride % n;
          const yr = outRe[outOff + r * m + k], yi = outIm[outOff + r * m + k];
          re += yr * cos[w] - yi * sin[w];
          im += yr * sin[w] + yi * cos[w];
        }
        tre[q] = re;
        tim[q] = im;
      }
      for (let q = 0; q < p; q++) {
        outRe[outOff + q * m + k] = tre[q];
        outIm[outOff + q * m + k] = tim[q];
      }
    }
  }
}
