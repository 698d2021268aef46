/**
 * Reads a GGUF file's header (llama.cpp's format, spec: ggml/docs/gguf.md) without loading the model:
 * what the answer-model manager checks before it keeps a `.gguf` file a person brings, and the engine
 * before it loads one, with the checks both make ({@link checkGgufFits}). Pure: bytes in, facts out; runs in Node, workers and tests. A file that is not
 * GGUF, is cut short or states absurd sizes is refused with a message that says which.
 *
 * Layout (little-endian): magic `GGUF`, version u32 (2 or 3), tensor count u64, metadata count u64,
 * then each metadata pair: key (u64 length + UTF-8), value type u32, value. Arrays are type u32,
 * count u64, then the values. Tensor infos follow the metadata; they are not read here.
 */
import { DocQaError } from '../../core/errors.ts';

/** What the app needs to know of a GGUF model before loading it. */
export interface GgufFacts {
  version: number;
  /** `general.architecture`: `llama`, `qwen2`, `phi3`, … */
  architecture: string;
  /** `general.name`, when the file has one. */
  name?: string;
  /** The context window the model was trained for (`<arch>.context_length`). */
  contextLength?: number;
  /** Layers (`<arch>.block_count`). */
  layers?: number;
  /** Hidden size (`<arch>.embedding_length`). */
  embedding?: number;
  /** Attention heads and key/value heads (grouped-query attention). */
  heads?: number;
  kvHeads?: number;
  /** Tokens in the vocabulary (`tokenizer.ggml.tokens`). */
  vocabulary?: number;
  /** True when the file carries a chat template (`tokenizer.chat_template`): an instruct model. */
  hasChatTemplate: boolean;
  tensorCount: number;
}

/** Bytes read for the header: enough for any real tokenizer (SmolLM2's 49k tokens take ~1 MB). */
export const GGUF_HEADER_BYTES = 32 * 1024 * 1024;

/** A file must be at least this long to hold any model. */
const MIN_FILE_BYTES = 64;

/** Longest string the reader accepts (a chat template is a few kB; some carry several). */
const MAX_STRING_BYTES = 4 * 1024 * 1024;

const MAX_ENTRIES = 1_000_000;

class Truncated extends Error {}

class Reader {
  private at = 0;
  private readonly view: DataView;
  private readonly decoder = new TextDecoder('utf-8', { fatal: false });

  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  private need(n: number): number {
    if (this.at + n > this.bytes.byteLength) throw new Truncated();
    const start = this.at;
    this.at += n;
    return start;
  }

  u32(): number {
    return this.view.getUint32(this.need(4), true);
  }

  /** A u64 count or length, refused past `limit`. */
  count(limit: number, what: string): number {
    const value = this.view.getBigUint64(this.need(8), true);
    if (value > BigInt(limit)) throw new DocQaError('model-unsupported', `GGUF header: ${what} of ${value} is not believable: the file is damaged`);
    return Number(value);
  }

  string(): string {
    const length = this.count(MAX_STRING_BYTES, 'a string length');
    const start = this.need(length);
    return this.decoder.decode(this.bytes.subarray(start, start + length));
  }

  skip(n: number): void {
    this.need(n);
  }

  scalar(type: number): number | bigint | boolean | undefined {
    switch (type) {
      case 0: return this.view.getUint8(this.need(1));
      case 1: return this.view.getInt8(this.need(1));
      case 2: return this.view.getUint16(this.need(2), true);
      case 3: return this.view.getInt16(this.need(2), true);
      case 4: return this.view.getUint32(this.need(4), true);
      case 5: return this.view.getInt32(this.need(4), true);
      case 6: return this.view.getFloat32(this.need(4), true);
      case 7: return this.view.getUint8(this.need(1)) !== 0;
      case 10: return this.view.getBigUint64(this.need(8), true);
      case 11: return this.view.getBigInt64(this.need(8), true);
      case 12: return this.view.getFloat64(this.need(8), true);
      default: return undefined;
    }
  }
}

/** Bytes of one value of a fixed-size type; undefined for strings and arrays. */
const SCALAR_BYTES: Record<number, number> = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };

type Value = number | bigint | boolean | string | { arrayOf: number; length: number } | undefined;

function readValue(reader: Reader, type: number, key: string): Value {
  if (type === 8) return reader.string();
  if (type === 9) {
    const inner = reader.u32();
    const length = reader.count(1 << 28, `the length of ${key}`);
    if (inner === 8) for (let i = 0; i < length; i++) reader.string();
    else if (SCALAR_BYTES[inner] !== undefined) reader.skip(SCALAR_BYTES[inner]! * length);
    else throw new DocQaError('model-unsupported', `GGUF header: ${key} is an array of unknown type ${inner}: the file is damaged or of a newer GGUF version`);
    return { arrayOf: inner, length };
  }
  if (SCALAR_BYTES[type] === undefined) throw new DocQaError('model-unsupported', `GGUF header: ${key} has unknown type ${type}: the file is damaged or of a newer GGUF version`);
  return reader.scalar(type);
}

const asNumber = (v: Value): number | undefined => (typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : undefined);

/**
 * The facts of a GGUF header in `bytes` (the file's first bytes: {@link GGUF_HEADER_BYTES}, or all of
 * a smaller file). `name` names the file in messages.
 */
export function parseGgufHeader(bytes: Uint8Array, name: string): GgufFacts {
  const reader = new Reader(bytes);
  const refuse = (why: string) => new DocQaError('model-unsupported', `${name}: ${why}`);
  try {
    if (bytes.byteLength < MIN_FILE_BYTES || bytes[0] !== 0x47 || bytes[1] !== 0x47 || bytes[2] !== 0x55 || bytes[3] !== 0x46) {
      throw refuse('not a GGUF file (it does not start with "GGUF"): choose a .gguf model file, such as one LM Studio, Ollama or GPT4All downloaded');
    }
    reader.skip(4);
    const version = reader.u32();
    if (version !== 2 && version !== 3) throw refuse(`GGUF version ${version} is not supported (2 and 3 are)`);
    const tensorCount = reader.count(MAX_ENTRIES, 'a tensor count');
    const entries = reader.count(MAX_ENTRIES, 'a metadata count');
    const meta = new Map<string, Value>();
    for (let i = 0; i < entries; i++) {
      const key = reader.string();
      const type = reader.u32();
      meta.set(key, readValue(reader, type, key));
    }
    const architecture = meta.get('general.architecture');
    if (typeof architecture !== 'string' || architecture === '') throw refuse('the GGUF header names no architecture (general.architecture): the file is damaged');
    const of = (suffix: string) => asNumber(meta.get(`${architecture}.${suffix}`));
    const tokens = meta.get('tokenizer.ggml.tokens');
    const template = meta.get('tokenizer.chat_template');
    const facts: GgufFacts = { version, architecture, hasChatTemplate: typeof template === 'string' && template.length > 0, tensorCount };
    const generalName = meta.get('general.name');
    if (typeof generalName === 'string') facts.name = generalName;
    const set = <K extends keyof GgufFacts>(key: K, value: GgufFacts[K] | undefined) => {
      if (value !== undefined) facts[key] = value;
    };
    set('contextLength', of('context_length'));
    set('layers', of('block_count'));
    set('embedding', of('embedding_length'));
    set('heads', of('attention.head_count'));
    set('kvHeads', of('attention.head_count_kv') ?? of('attention.head_count'));
    set('vocabulary', typeof tokens === 'object' ? tokens.length : undefined);
    return facts;
  } catch (err) {
    if (err instanceof Truncated) {
      throw refuse(
        bytes.byteLength >= GGUF_HEADER_BYTES
          ? `its GGUF header is longer than ${GGUF_HEADER_BYTES / 1024 / 1024} MB: the file is damaged or not a model`
          : 'the file ends inside its GGUF header: it is cut short (an unfinished download?); download it again',
      );
    }
    throw err;
  }
}

/** The facts of the GGUF file `blob`, reading only its header. */
export async function readGgufFacts(blob: Blob, name: string): Promise<GgufFacts> {
  return parseGgufHeader(new Uint8Array(await blob.slice(0, GGUF_HEADER_BYTES).arrayBuffer()), name);
}

/** llama.cpp's compute buffers for a small model's batch, rounded up (SmolLM2-135M's are ~70 MB). */
const GGUF_COMPUTE_BYTES = 96 * 1024 * 1024;

/** Bytes a model needs beyond its file with `contextTokens` of context: the KV cache (f16), plus the compute buffers. */
export function ggufWorkingBytes(facts: GgufFacts, contextTokens: number): number {
  const layers = facts.layers ?? 32;
  const embedding = facts.embedding ?? 4096;
  const heads = facts.heads ?? 32;
  const kvHeads = facts.kvHeads ?? heads;
  const kvPerToken = layers * 2 * (embedding / heads) * kvHeads * 2;
  return Math.round(kvPerToken * contextTokens + GGUF_COMPUTE_BYTES);
}

/** A single ArrayBuffer's limit, which wllama holds a file in. */
export const GGUF_MAX_FILE_BYTES = 2 * 1024 ** 3;

/** WebAssembly's 32-bit memory: file, KV cache and compute buffers must fit in it. */
const WASM_MEMORY_BYTES = 4 * 1024 ** 3;

const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024).toLocaleString('en')} MB`;

/**
 * Refuses a GGUF file the engine cannot run, before anything is loaded: too large for one ArrayBuffer,
 * not an instruct model, or needing more memory than WebAssembly (4 GB) or, by half, the device has.
 */
export function checkGgufFits(facts: GgufFacts, fileBytes: number, contextTokens: number, device: { deviceMemoryGiB?: number }, name: string): void {
  if (fileBytes > GGUF_MAX_FILE_BYTES) {
    throw new DocQaError('model-unsupported', `${name} is ${mb(fileBytes)}: the browser holds at most 2 GB in one file; choose a smaller quantisation (Q4 of a model up to 3B parameters)`);
  }
  if (!facts.hasChatTemplate) {
    throw new DocQaError('model-unsupported', `${name} has no chat template: it is a base model, which only continues text; choose an instruct (chat) model`);
  }
  const needed = fileBytes + ggufWorkingBytes(facts, contextTokens);
  if (needed > WASM_MEMORY_BYTES) {
    throw new DocQaError('model-out-of-memory', `${name} needs about ${mb(needed)} with a ${contextTokens}-token context, more than the 4 GB a web page's WebAssembly can use: choose a smaller model`);
  }
  if (device.deviceMemoryGiB !== undefined && needed > (device.deviceMemoryGiB * 1024 ** 3) / 2) {
    throw new DocQaError(
      'model-out-of-memory',
      `${name} needs about ${mb(needed)}, more than half of this device's ${device.deviceMemoryGiB} GB of memory: choose a smaller model, or use the extractive answer`,
    );
  }
}

