/**
 * SHA-256, synchronous, for short inputs such as chunk texts: `crypto.subtle.digest` hands every input to
 * another thread and back, which for a chunk of a few KB costs far more than the hashing (in Node ~20 µs
 * of main-thread work per call, and up to ~100 µs of waiting when the thread pool has gone idle; SciFact's
 * 7,283 chunks waited 0.6 s in all). Large inputs (whole files) still go to `crypto.subtle`, which is
 * faster per byte. The hashing is @noble/hashes' (audited, no dependencies); the same digests as
 * `crypto.subtle`: `tests/unit/fast-paths.test.ts` checks the FIPS examples and random inputs against it.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/** SHA-256 of a string's UTF-8 encoding (lone surrogates as U+FFFD, as TextEncoder), as lower-case hex. */
export function sha256HexOfText(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text)));
}

/** SHA-256 of bytes, as lower-case hex. */
export function sha256HexOfBytes(bytes: Uint8Array): string {
  return bytesToHex(sha256(bytes));
}
