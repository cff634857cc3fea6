'use strict';
// The benchmarks' deterministic random numbers: a 32-bit linear congruential generator (Numerical
// Recipes' constants), so a seed gives the same corpus, queries and load on every machine.

/** A function returning the next number in [0, 1) of the sequence `seed` starts. */
function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

module.exports = { rng };
