/**
 * The inner loop of the in-process vector index: scores[i] = dot(query, vectors[i]) for every row,
 * in WebAssembly SIMD (f32x4, four accumulators), about five times faster than the same loop in
 * plain JavaScript (100,000 x 384 in ~7.5 ms instead of ~39 ms on the 2-core dev VM).
 *
 * The module is dot-kernel.wat beside this file, assembled with `wat2wasm dot-kernel.wat`
 * (wabt) and embedded here as base64. It imports its memory, so every index owns its memory and
 * frees it when dropped. Layout contract: rows are `stride` floats apart, stride % 16 == 0 (the
 * index pads with zeros), all offsets in bytes, 16-byte aligned.
 */
const WASM_BASE64 =
  'AGFzbQEAAAABCQFgBX9/f39/AAIPAQNlbnYGbWVtb3J5AgABAwIBAAcKAQZzY29yZXMAAAq0AgGxAgIGfwR7IANBAnQhCiABIQUCQANAIAkgAk8NAf0MAAAAAAAAAAAAAAAAAAAAACEL/QwAAAAAAAAAAAAAAAAAAAAAIQz9DAAAAAAAAAAAAAAAAAAAAAAhDf0MAAAAAAAAAAAAAAAAAAAAACEOIAUhByAAIQggBSAKaiEGA0AgCyAH/QAEACAI/QAEAP3mAf3kASELIAwgB/0ABBAgCP0ABBD95gH95AEhDCANIAf9AAQgIAj9AAQg/eYB/eQBIQ0gDiAH/QAEMCAI/QAEMP3mAf3kASEOIAdBwABqIQcgCEHAAGohCCAHIAZJDQALIAsgDP3kASANIA795AH95AEhCyAEIAlBAnRqIAv9HwAgC/0fAZIgC/0fAiAL/R8DkpI4AgAgBiEFIAlBAWohCQwACwsL';

// The project compiles without lib.dom, which is where TypeScript declares WebAssembly: the few
// parts used here, declared by hand.
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Memory: new (descriptor: { initial: number }) => WasmMemory;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
  validate(bytes: Uint8Array): boolean;
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** A WebAssembly memory of `pages` 64 KiB pages. */
export function wasmMemory(pages: number): WasmMemory {
  return new wasm.Memory({ initial: pages });
}

/** (queryOffset, vectorsOffset, rows, stride, scoresOffset): byte offsets into the memory. */
export type DotKernel = (queryOffset: number, vectorsOffset: number, rows: number, stride: number, scoresOffset: number) => void;

let compiled: object | null | undefined;

function wasmModule(): object | null {
  if (compiled !== undefined) return compiled;
  try {
    const bytes = Buffer.from(WASM_BASE64, 'base64');
    compiled = wasm.validate(bytes) ? new wasm.Module(bytes) : null;
  } catch {
    compiled = null;
  }
  return compiled;
}

/** Whether the SIMD kernel runs here (else the plain JavaScript loop is used). */
export function simdAvailable(): boolean {
  return wasmModule() !== null;
}

/** The same computation in plain JavaScript (fallback, and the reference in tests). */
export function jsDotKernel(memory: WasmMemory): DotKernel {
  return (q, base, rows, stride, out) => {
    const f = new Float32Array(memory.buffer);
    const qi = q >> 2;
    const scores = out >> 2;
    for (let r = 0, b = base >> 2; r < rows; r++, b += stride) {
      let a0 = 0;
      let a1 = 0;
      let a2 = 0;
      let a3 = 0;
      for (let j = 0; j < stride; j += 4) {
        a0 += f[b + j] * f[qi + j];
        a1 += f[b + j + 1] * f[qi + j + 1];
        a2 += f[b + j + 2] * f[qi + j + 2];
        a3 += f[b + j + 3] * f[qi + j + 3];
      }
      f[scores + r] = a0 + a1 + a2 + a3;
    }
  };
}

/** A kernel bound to `memory`: WebAssembly SIMD when available, else plain JavaScript. */
export function dotKernel(memory: WasmMemory, prefer: 'simd' | 'js' = 'simd'): DotKernel {
  const mod = prefer === 'simd' ? wasmModule() : null;
  if (!mod) return jsDotKernel(memory);
  const instance = new wasm.Instance(mod, { env: { memory } });
  return instance.exports['scores'] as DotKernel;
}
