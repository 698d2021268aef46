// The copy of web-llm's prebuilt records the chooser lists (so listing never loads web-llm itself) is the
// installed web-llm's own; and the space a WebLLM model takes is read from web-llm's caches.
import { prebuiltAppConfig } from '@mlc-ai/web-llm';
import { describe, expect, it } from 'vitest';
import { OFFERED_RECORDS, offeredRecords } from '../../src/models/webllm/webllm-offered.ts';
import { cachedBytesUnder } from '../../src/models/webllm/webllm-caches.ts';

describe('OFFERED_RECORDS', () => {
  it("equals the installed web-llm's records for the offered families (regenerate it when web-llm is upgraded)", () => {
    expect(OFFERED_RECORDS).toEqual(offeredRecords(prebuiltAppConfig.model_list));
    expect(OFFERED_RECORDS.length).toBeGreaterThanOrEqual(6);
  });
});

describe('cachedBytesUnder', () => {
  it("sums the entries of web-llm's caches under the model's address and its library, and nothing else", async () => {
    const stores = new Map<string, Map<string, Response>>([
      [
        'webllm/model',
        new Map([
          ['https://huggingface.co/mlc-ai/Qwen2.5-0.5B-Instruct-q4f16_1-MLC/resolve/main/params_shard_0.bin', new Response('x'.repeat(100), { headers: { 'content-length': '100' } })],
          ['https://huggingface.co/mlc-ai/Qwen2.5-0.5B-Instruct-q4f16_1-MLC/resolve/main/tokenizer.json', new Response('y'.repeat(30))],
          ['https://huggingface.co/mlc-ai/Qwen2.5-0.5B-Instruct-q4f16_1-MLC-1k/resolve/main/params_shard_0.bin', new Response('z'.repeat(999))],
        ]),
      ],
      ['webllm/wasm', new Map([['https://raw.githubusercontent.com/lib/Qwen.wasm', new Response('w'.repeat(7))]])],
    ]);
    const storage = {
      has: async (name: string) => stores.has(name),
      open: async (name: string) => {
        const entries = stores.get(name)!;
        return {
          keys: async () => [...entries.keys()].map((url) => new Request(url)),
          match: async (request: RequestInfo | URL) => entries.get(request instanceof Request ? request.url : String(request))?.clone(),
        } as unknown as Cache;
      },
    };
    const bytes = await cachedBytesUnder(storage, ['https://huggingface.co/mlc-ai/Qwen2.5-0.5B-Instruct-q4f16_1-MLC/', 'https://raw.githubusercontent.com/lib/Qwen.wasm']);
    expect(bytes).toBe(100 + 30 + 7);
  });
});
