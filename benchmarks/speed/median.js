// The median of a list of numbers (NaN for none), for compare.js and
// ort_layers.js.
'use strict';
module.exports = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n === 0 ? NaN : n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};
