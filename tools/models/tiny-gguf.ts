/**
 * The tiny random-weight decoder as one GGUF file (llama.cpp's format), for tests of the GGUF engine
 * (`src/models/gguf/`): the same Llama shape and seeded weights as the ONNX tiny decoder
 * (`tiny-decoder.ts`), stored as F32 tensors under llama.cpp's names, with a byte-level BPE vocabulary
 * (GPT-2's byte-to-character map: any text tokenizes, none is unknown), a few merges, the ChatML markers
 * as control tokens and a ChatML chat template. Pure and deterministic. Its text means nothing; it is
 * good for loading, streaming, stopping, budgets, the JSON grammar and the checks on a file.
 *
 * Writer for GGUF version 3 (ggml/docs/gguf.md): header, metadata, tensor infos, then the tensor data,
 * each tensor aligned to 32 bytes.
 */
import { llamaWeights, type WeightTensor } from './llama-graph.ts';
import { TINY_DECODER_SEED, TINY_DECODER_SPEC } from './tiny-decoder.ts';
import { CHAT_TEMPLATE } from './tokenizer-files.ts';

/** The file's name inside the `tiny-gguf` folder. */
export const TINY_GGUF_FILE = 'tiny-decoder.gguf';

const ALIGNMENT = 32;

/** The context window the tiny GGUF says it was trained for. */
export const TINY_GGUF_CONTEXT = 4096;

type MetaValue =
  | { type: 'u32'; value: number }
  | { type: 'f32'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'string'; value: string }
  | { type: 'strings'; value: readonly string[] }
  | { type: 'i32s'; value: readonly number[] };

/** GPT-2's byte-to-character map: printable bytes stand for themselves, the others for code points from 256. */
export function byteCharacters(): string[] {
  const printable = (b: number) => (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
  const chars: string[] = [];
  let next = 256;
  for (let b = 0; b < 256; b++) chars.push(String.fromCodePoint(printable(b) ? b : next++));
  return chars;
}

/** Merges into frequent English pieces (`Ġ` is the space): shorter prompts, and merges exercised. */
const MERGES = ['Ġ t', 'h e', 'Ġt he', 'i n', 'e r', 'a n', 'r e', 'o n', 'Ġ a', 'e n', 'a t', 'Ġ s', 'Ġ w', 'o r', 'Ġ o', 'e s', 'Ġ c', 'i s', 'i t', 'Ġ p'];

/** The vocabulary: 256 byte characters, the merged pieces, then the chat markers (control tokens). */
export function tinyGgufVocabulary(): { tokens: string[]; types: number[]; imStart: number; imEnd: number } {
  const tokens = [...byteCharacters(), ...MERGES.map((m) => m.replace(' ', ''))];
  const types = tokens.map(() => 1); // normal
  const imStart = tokens.push('<|im_start|>') - 1;
  const imEnd = tokens.push('<|im_end|>') - 1;
  types.push(3, 3); // control
  return { tokens, types, imStart, imEnd };
}

class Bytes {
  private readonly chunks: Uint8Array[] = [];
  length = 0;

  push(bytes: Uint8Array): void {
    this.chunks.push(bytes);
    this.length += bytes.byteLength;
  }

  private fixed(size: number, write: (view: DataView) => void): void {
    const b = new Uint8Array(size);
    write(new DataView(b.buffer));
    this.push(b);
  }

  u32 = (v: number) => this.fixed(4, (d) => d.setUint32(0, v, true));
  i32 = (v: number) => this.fixed(4, (d) => d.setInt32(0, v, true));
  u64 = (v: number) => this.fixed(8, (d) => d.setBigUint64(0, BigInt(v), true));
  f32 = (v: number) => this.fixed(4, (d) => d.setFloat32(0, v, true));
  u8 = (v: number) => this.fixed(1, (d) => d.setUint8(0, v));

  string(s: string): void {
    const encoded = new TextEncoder().encode(s);
    this.u64(encoded.byteLength);
    this.push(encoded);
  }

  pad(): void {
    const extra = (ALIGNMENT - (this.length % ALIGNMENT)) % ALIGNMENT;
    if (extra) this.push(new Uint8Array(extra));
  }

  bytes(): Uint8Array<ArrayBuffer> {
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const c of this.chunks) {
      out.set(c, at);
      at += c.byteLength;
    }
    return out;
  }
}

function writeMeta(out: Bytes, key: string, meta: MetaValue): void {
  out.string(key);
  switch (meta.type) {
    case 'u32': out.u32(4); out.u32(meta.value); break;
    case 'f32': out.u32(6); out.f32(meta.value); break;
    case 'bool': out.u32(7); out.u8(meta.value ? 1 : 0); break;
    case 'string': out.u32(8); out.string(meta.value); break;
    case 'strings': out.u32(9); out.u32(8); out.u64(meta.value.length); for (const s of meta.value) out.string(s); break;
    case 'i32s': out.u32(9); out.u32(5); out.u64(meta.value.length); for (const v of meta.value) out.i32(v); break;
  }
}

/** A [rows, cols] row-major matrix as [cols, rows] (GGUF keeps a linear layer as [inputs fastest, outputs]). */
function transpose(t: WeightTensor): WeightTensor {
  const [rows, cols] = t.dims as [number, number];
  const values = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) values[c * rows + r] = t.values[r * cols + c]!;
  return { dims: [cols, rows], values };
}

/** The weights under llama.cpp's names, each with its ggml shape (`ne`, fastest dimension first). */
function ggufTensors(weights: Map<string, WeightTensor>, layers: number): Array<{ name: string; ne: number[]; values: Float32Array }> {
  const get = (name: string) => weights.get(name)!;
  // HF [inputs, outputs] → rows of outputs, inputs fastest: ne = [inputs, outputs].
  const linear = (name: string) => {
    const t = transpose(get(name));
    return { ne: [t.dims[1]!, t.dims[0]!], values: t.values };
  };
  const vector = (name: string) => ({ ne: [get(name).values.length], values: get(name).values });
  const embed = get('model.embed_tokens.weight'); // [vocab, hidden], hidden fastest
  const tensors = [{ name: 'token_embd.weight', ne: [embed.dims[1]!, embed.dims[0]!], values: embed.values }];
  for (let i = 0; i < layers; i++) {
    const p = `model.layers.${i}`;
    tensors.push(
      { name: `blk.${i}.attn_norm.weight`, ...vector(`${p}.input_layernorm.weight`) },
      { name: `blk.${i}.attn_q.weight`, ...linear(`${p}.self_attn.q_proj.weight`) },
      { name: `blk.${i}.attn_k.weight`, ...linear(`${p}.self_attn.k_proj.weight`) },
      { name: `blk.${i}.attn_v.weight`, ...linear(`${p}.self_attn.v_proj.weight`) },
      { name: `blk.${i}.attn_output.weight`, ...linear(`${p}.self_attn.o_proj.weight`) },
      { name: `blk.${i}.ffn_norm.weight`, ...vector(`${p}.post_attention_layernorm.weight`) },
      { name: `blk.${i}.ffn_gate.weight`, ...linear(`${p}.mlp.gate_proj.weight`) },
      { name: `blk.${i}.ffn_up.weight`, ...linear(`${p}.mlp.up_proj.weight`) },
      { name: `blk.${i}.ffn_down.weight`, ...linear(`${p}.mlp.down_proj.weight`) },
    );
  }
  tensors.push({ name: 'output_norm.weight', ...vector('model.norm.weight') }, { name: 'output.weight', ...linear('lm_head.weight') });
  return tensors;
}

export interface TinyGgufOptions {
  /** Leave out the chat template (a base model, which the engine refuses). */
  withoutChatTemplate?: boolean;
}

/** The tiny decoder as GGUF bytes. */
export function generateTinyGguf(options: TinyGgufOptions = {}): Uint8Array<ArrayBuffer> {
  const { tokens, types, imEnd } = tinyGgufVocabulary();
  const spec = { ...TINY_DECODER_SPEC, vocabSize: tokens.length };
  const headSize = spec.hidden / spec.heads;
  const meta: Array<[string, MetaValue]> = [
    ['general.architecture', { type: 'string', value: 'llama' }],
    ['general.name', { type: 'string', value: 'docqa tiny decoder' }],
    ['general.file_type', { type: 'u32', value: 0 }], // all F32
    // 4,096 (the ONNX decoder's position table stops at 512; llama.cpp's rotary positions have no table):
    // room for the app's answer prompt, which this byte-level vocabulary spells out nearly byte by byte.
    ['llama.context_length', { type: 'u32', value: TINY_GGUF_CONTEXT }],
    ['llama.embedding_length', { type: 'u32', value: spec.hidden }],
    ['llama.block_count', { type: 'u32', value: spec.layers }],
    ['llama.feed_forward_length', { type: 'u32', value: spec.intermediate }],
    ['llama.attention.head_count', { type: 'u32', value: spec.heads }],
    ['llama.attention.head_count_kv', { type: 'u32', value: spec.kvHeads }],
    ['llama.attention.layer_norm_rms_epsilon', { type: 'f32', value: spec.rmsNormEps }],
    ['llama.rope.freq_base', { type: 'f32', value: spec.ropeTheta }],
    ['llama.rope.dimension_count', { type: 'u32', value: headSize }],
    ['llama.vocab_size', { type: 'u32', value: spec.vocabSize }],
    ['tokenizer.ggml.model', { type: 'string', value: 'gpt2' }],
    ['tokenizer.ggml.pre', { type: 'string', value: 'gpt-2' }],
    ['tokenizer.ggml.tokens', { type: 'strings', value: tokens }],
    ['tokenizer.ggml.token_type', { type: 'i32s', value: types }],
    ['tokenizer.ggml.merges', { type: 'strings', value: MERGES }],
    ['tokenizer.ggml.bos_token_id', { type: 'u32', value: imEnd }],
    ['tokenizer.ggml.eos_token_id', { type: 'u32', value: imEnd }],
    ['tokenizer.ggml.add_bos_token', { type: 'bool', value: false }],
    ...(options.withoutChatTemplate ? [] : ([['tokenizer.chat_template', { type: 'string', value: CHAT_TEMPLATE }]] as Array<[string, MetaValue]>)),
  ];
  const tensors = ggufTensors(llamaWeights(spec, TINY_DECODER_SEED), spec.layers);
  const out = new Bytes();
  out.push(new TextEncoder().encode('GGUF'));
  out.u32(3);
  out.u64(tensors.length);
  out.u64(meta.length);
  for (const [key, value] of meta) writeMeta(out, key, value);
  let offset = 0;
  for (const t of tensors) {
    out.string(t.name);
    out.u32(t.ne.length);
    for (const n of t.ne) out.u64(n);
    out.u32(0); // GGML_TYPE_F32
    out.u64(offset);
    offset += t.values.byteLength;
    offset += (ALIGNMENT - (offset % ALIGNMENT)) % ALIGNMENT;
  }
  out.pad();
  for (const t of tensors) {
    out.push(new Uint8Array(t.values.buffer, t.values.byteOffset, t.values.byteLength));
    out.pad();
  }
  return out.bytes();
}
