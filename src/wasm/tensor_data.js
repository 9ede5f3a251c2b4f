// Tensor data for the JavaScript API (src/wasm/api.js): IEEE half-precision conversion,
// and dim orders and strides (validated as ExecuTorch's bindings do, and permuted between
// layouts). Linked with --post-js before api.js, inside the Emscripten factory.

var WickTensorData = (function() {
  'use strict';

  // Rounds v >= 0 to an integer, ties to even (exact for v < 2^53).
  function roundEven(v) {
    var f = Math.floor(v);
    var r = v - f;
    if (r > 0.5 || (r === 0.5 && f % 2 === 1)) f += 1;
    return f;
  }

  // A number as the bits of the nearest IEEE binary16, ties to even, straight from the
  // double (going through float32 first could round twice). Overflow gives infinity.
  function toHalfBits(x) {
    x = Number(x);
    if (x !== x) return 0x7e00;  // NaN
    var sign = x < 0 || (x === 0 && 1 / x < 0) ? 0x8000 : 0;
    var a = Math.abs(x);
    if (a >= 65520) return sign | 0x7c00;  // 65504 + half an ulp rounds (to even) to inf
    if (a < 6.103515625e-05) {  // below 2^-14: subnormal, in units of 2^-24
      return sign | roundEven(a * 16777216);  // 1024 becomes the smallest normal: right
    }
    var e = Math.floor(Math.log2(a));
    if (Math.pow(2, e) > a) e -= 1;  // log2 may be off by one near powers of two
    if (Math.pow(2, e + 1) <= a) e += 1;
    var m = roundEven(a / Math.pow(2, e) * 1024) - 1024;  // scaling by 2^k is exact
    if (m === 1024) {
      m = 0;
      e += 1;
    }
    if (e > 15) return sign | 0x7c00;
    return sign | ((e + 15) << 10) | m;
  }

  function fromHalfBits(h) {
    var s = h & 0x8000 ? -1 : 1;
    var e = (h >> 10) & 0x1f;
    var m = h & 0x3ff;
    if (e === 0) return s * m * 5.960464477539063e-08;  // 2^-24
    if (e === 31) return m ? NaN : s * Infinity;
    return s * (1024 + m) * Math.pow(2, e - 25);
  }

  function identity(rank) {
    var order = [];
    for (var i = 0; i < rank; i++) order.push(i);
    return order;
  }

  // Strides (in elements) of a dense tensor of `sizes` laid out in `order` (outermost
  // dimension first), as ExecuTorch computes them.
  function stridesOf(sizes, order) {
    var strides = new Array(sizes.length);
    var stride = 1;
    for (var k = order.length - 1; k >= 0; k--) {
      strides[order[k]] = stride;
      stride *= sizes[order[k]];
    }
    return strides;
  }

  function listOf(value, what, where) {
    if (value === undefined || value === null) return [];
    if (typeof value.length !== 'number' || typeof value === 'string') {
      throw new TypeError(where + ': ' + what + ' must be an array of integers');
    }
    var out = Array.from(value, Number);
    out.forEach(function(v, i) {
      if (!Number.isInteger(v)) throw new TypeError(where + ': ' + what + '[' + i + '] = ' + String(value[i]) + ' is not an integer');
    });
    return out;
  }

  // The dim order of a tensor of `sizes` given ExecuTorch's optional dimOrder and
  // strides: empty means contiguous; strides alone give the order of descending stride;
  // both must agree. Throws on a wrong length, a non-permutation or inconsistent strides.
  function dimOrderOf(sizes, dimOrder, strides, where) {
    var rank = sizes.length;
    var order = listOf(dimOrder, 'dimOrder', where);
    var given = listOf(strides, 'strides', where);
    if (order.length && order.length !== rank) {
      throw new Error(where + ': dim_order size must match sizes or be empty (sizes has ' + rank +
                      ' dimensions, dimOrder ' + order.length + ')');
    }
    if (given.length && given.length !== rank) {
      throw new Error(where + ': strides size must match sizes or be empty (sizes has ' + rank +
                      ' dimensions, strides ' + given.length + ')');
    }
    if (order.length) {
      var seen = {};
      order.forEach(function(d) {
        if (d < 0 || d >= rank || seen[d]) {
          throw new Error(where + ': dimOrder [' + order.join(', ') + '] is not a permutation of 0..' + (rank - 1));
        }
        seen[d] = true;
      });
    } else if (given.length) {
      order = identity(rank).sort(function(a, b) { return given[b] - given[a] || a - b; });
    } else {
      order = identity(rank);
    }
    if (given.length) {
      var want = stridesOf(sizes, order);
      for (var d = 0; d < rank; d++) {
        if (sizes[d] !== 1 && given[d] !== want[d]) {
          throw new Error(where + ': invalid strides for dim ' + d + ': sizes [' + sizes.join(', ') +
                          '] in dim order [' + order.join(', ') + '] need strides [' + want.join(', ') +
                          '], given [' + given.join(', ') + ']');
        }
      }
    }
    return order;
  }

  function sameOrder(a, b) {
    if (a.length !== b.length) return false;
    for (var i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }

  // The elements of `data` (dense, laid out in dim order `from`) rearranged into dim
  // order `to`: a new typed array of the same type.
  function permute(data, sizes, from, to) {
    var n = sizes.reduce(function(a, b) { return a * b; }, 1);
    var out = new data.constructor(n);
    var src = stridesOf(sizes, from);
    var rank = sizes.length;
    var index = new Array(rank).fill(0);  // logical index, advanced in `to` order
    var offset = 0;                       // of `index` in `data`
    for (var i = 0; i < n; i++) {
      out[i] = data[offset];
      for (var k = rank - 1; k >= 0; k--) {
        var d = to[k];
        index[d] += 1;
        offset += src[d];
        if (index[d] < sizes[d]) break;
        offset -= index[d] * src[d];
        index[d] = 0;
      }
    }
    return out;
  }

  return {toHalfBits: toHalfBits, fromHalfBits: fromHalfBits, identity: identity,
          stridesOf: stridesOf, dimOrderOf: dimOrderOf, sameOrder: sameOrder, permute: permute};
})();
