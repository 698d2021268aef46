/**
 * SHA-256 (FIPS 180-4) in plain JavaScript, synchronous. For short inputs such as chunk texts:
 * `crypto.subtle.digest` hands every input to another thread and back, which for a chunk of a few KB
 * costs far more than the hashing (in Node ~20 µs of main-thread work per call, and up to ~100 µs of
 * waiting when the thread pool has gone idle; SciFact's 7,283 chunks waited 0.6 s in all). Large inputs
 * (whole files) still go to `crypto.subtle`, which is faster per byte (see `hash.ts`). Same digests as
 * `crypto.subtle`: `tests/unit/fast-paths.test.ts` checks the FIPS 180-4 examples, every length around the
 * block boundaries and random strings against it.
 */

/** Round constants and initial hash value: the first 32 bits of the fractional parts of the cube roots
 * (K) and square roots (H0) of the first 64 (8) primes, as the standard defines them. */
const K = new Int32Array(64);
const H0 = new Int32Array(8);
{
  const primes: number[] = [];
  for (let n = 2; primes.length < 64; n++) if (primes.every((p) => n % p !== 0)) primes.push(n);
  const fraction32 = (x: number) => ((x - Math.floor(x)) * 2 ** 32) | 0;
  primes.forEach((p, i) => {
    K[i] = fraction32(Math.cbrt(p));
    if (i < 8) H0[i] = fraction32(Math.sqrt(p));
  });
}

const W = new Int32Array(64);
const H = new Int32Array(8);

/** One 64-byte block of `m` at `at` into the state {@link H}. */
function compress(m: Uint8Array, at: number): void {
  for (let t = 0; t < 16; t++, at += 4) W[t] = (m[at]! << 24) | (m[at + 1]! << 16) | (m[at + 2]! << 8) | m[at + 3]!;
  for (let t = 16; t < 64; t++) {
    const x = W[t - 15]!;
    const y = W[t - 2]!;
    const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
    const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
    W[t] = (W[t - 16]! + s0 + W[t - 7]! + s1) | 0;
  }
  let a = H[0]!;
  let b = H[1]!;
  let c = H[2]!;
  let d = H[3]!;
  let e = H[4]!;
  let f = H[5]!;
  let g = H[6]!;
  let h = H[7]!;
  for (let t = 0; t < 64; t++) {
    const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (h + s1 + ((e & f) ^ (~e & g)) + K[t]! + W[t]!) | 0;
    const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (s0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  H[0] = (H[0]! + a) | 0;
  H[1] = (H[1]! + b) | 0;
  H[2] = (H[2]! + c) | 0;
  H[3] = (H[3]! + d) | 0;
  H[4] = (H[4]! + e) | 0;
  H[5] = (H[5]! + f) | 0;
  H[6] = (H[6]! + g) | 0;
  H[7] = (H[7]! + h) | 0;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** Message and padding, reused from call to call (grown when a longer input comes). */
let buffer = new Uint8Array(4096);
const encoder = new TextEncoder();

/**
 * SHA-256 of the first `length` bytes of {@link buffer}, as lower-case hex. Pads in place: the buffer
 * must have room for the padding (up to 72 bytes after the message).
 */
function digestBuffer(length: number): string {
  const blocks = Math.ceil((length + 9) / 64);
  const end = blocks * 64;
  buffer[length] = 0x80;
  buffer.fill(0, length + 1, end - 8);
  // Message length in bits, big-endian over 64 bits (exact in a double up to 2^53).
  const bits = length * 8;
  const high = Math.floor(bits / 2 ** 32);
  const low = bits >>> 0;
  for (let i = 0; i < 4; i++) {
    buffer[end - 8 + i] = (high >>> (24 - 8 * i)) & 0xff;
    buffer[end - 4 + i] = (low >>> (24 - 8 * i)) & 0xff;
  }
  H.set(H0);
  for (let at = 0; at < end; at += 64) compress(buffer, at);
  let out = '';
  for (let i = 0; i < 8; i++) {
    const v = H[i]!;
    out += HEX[(v >>> 24) & 0xff]! + HEX[(v >>> 16) & 0xff]! + HEX[(v >>> 8) & 0xff]! + HEX[v & 0xff]!;
  }
  return out;
}

function reserve(bytes: number): void {
  const needed = bytes + 72;
  if (buffer.length < needed) buffer = new Uint8Array(Math.max(needed, buffer.length * 2));
}

/** SHA-256 of a string's UTF-8 encoding, as lower-case hex (what `crypto.subtle` gives for the same bytes). */
export function sha256HexOfText(text: string): string {
  // UTF-8 takes at most 3 bytes per UTF-16 code unit (a surrogate pair: 4 bytes for 2 units).
  reserve(text.length * 3);
  const { written } = encoder.encodeInto(text, buffer);
  return digestBuffer(written);
}

/** SHA-256 of bytes, as lower-case hex. */
export function sha256HexOfBytes(bytes: Uint8Array): string {
  reserve(bytes.byteLength);
  buffer.set(bytes);
  return digestBuffer(bytes.byteLength);
}
