// The model files cache's pure parts on a Map-backed Cache: key scheme, listing with bytes, delete,
// folder import (path mapping, refusals, all-or-nothing), the transformers.js binding (only this model's
// URLs, short bodies refused), and the download guard on bodies that break off or end short.
import { describe, expect, it } from 'vitest';
import { EXPECTED_BYTES_HEADER, guardDownloads } from '../../src/models/download-guard.ts';
import { bindCache, deleteCachedModel, importModelFiles, listCachedModels, modelFileKey, modelFolderPaths, parseModelFileKey } from '../../src/models/model-cache.ts';
import { FakeCache } from '../support/fake-cache.ts';
import { refusal } from '../support/model-assertions.ts';

const BGE = { repo: 'Xenova/bge-small-en-v1.5', revision: 'main' };
const REQUIRED = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx'];
const file = (path: string, bytes: number) => ({ path, blob: new Blob([new Uint8Array(bytes).fill(7)]) });
const folder = (top: string) => [
  file(`${top}/config.json`, 700),
  file(`${top}/tokenizer.json`, 5_000),
  file(`${top}/tokenizer_config.json`, 300),
  file(`${top}/onnx/model_quantized.onnx`, 40_000),
  file(`${top}/onnx/model_fp16.onnx`, 80_000),
  file(`${top}/README.md`, 100),
];

describe('keys', () => {
  it('name a file by repo, revision and path, on a reserved domain, and parse back', () => {
    const key = modelFileKey({ ...BGE, path: 'onnx/model_quantized.onnx' });
    expect(key).toBe('https://model-files.invalid/Xenova/bge-small-en-v1.5/resolve/main/onnx/model_quantized.onnx');
    expect(parseModelFileKey(key)).toEqual({ ...BGE, path: 'onnx/model_quantized.onnx' });
    const local = { repo: 'tiny-encoder', revision: 'v 2', path: 'onnx/my model.onnx' };
    expect(parseModelFileKey(new URL(modelFileKey(local)).href)).toEqual(local);
    expect(parseModelFileKey('https://huggingface.co/Xenova/bge-small-en-v1.5/resolve/main/config.json')).toBeUndefined();
  });

  it('strip the chosen folder (and a parent) from relative paths, until config.json is at the top', () => {
    expect(modelFolderPaths(['bge/config.json', 'bge/onnx/model.onnx'])).toEqual(['config.json', 'onnx/model.onnx']);
    expect(modelFolderPaths(['Xenova/bge/config.json', 'Xenova/bge/onnx/model.onnx'])).toEqual(['config.json', 'onnx/model.onnx']);
    expect(modelFolderPaths(['config.json', './onnx\\model.onnx'])).toEqual(['config.json', 'onnx/model.onnx']);
    expect(modelFolderPaths(['onnx/model.onnx'])).toEqual(['onnx/model.onnx']); // a lone subfolder is not stripped into nothing
  });
});

describe('import, list, delete', () => {
  it('keeps the files the model needs under its keys, lists their bytes, and delete frees them', async () => {
    const cache = new FakeCache();
    const result = await importModelFiles(cache, BGE, folder('bge-small-en-v1.5'), REQUIRED);
    expect(result.bytes).toBe(700 + 5_000 + 300 + 40_000);
    expect(result.skipped.sort()).toEqual(['README.md', 'onnx/model_fp16.onnx']);
    await importModelFiles(cache, { repo: 'tiny-encoder', revision: 'main' }, [file('t/config.json', 10), file('t/onnx/model.onnx', 20)], ['config.json', 'onnx/model.onnx']);
    const listed = await listCachedModels(cache);
    expect(listed.map((m) => [m.repo, m.bytes])).toEqual([
      ['tiny-encoder', 30],
      ['Xenova/bge-small-en-v1.5', 46_000],
    ]);
    expect(listed[1]!.files).toContainEqual({ path: 'onnx/model_quantized.onnx', bytes: 40_000 });
    const stored = await cache.match(modelFileKey({ ...BGE, path: 'onnx/model_quantized.onnx' }));
    expect((await stored!.arrayBuffer()).byteLength).toBe(40_000);
    expect(await deleteCachedModel(cache, BGE.repo)).toBe(46_000);
    expect((await listCachedModels(cache)).map((m) => m.repo)).toEqual(['tiny-encoder']);
  });

  it('refuses a folder without a required file before writing anything, naming the file', async () => {
    const cache = new FakeCache();
    const err = await refusal(importModelFiles(cache, BGE, folder('x').filter((f) => !f.path.endsWith('tokenizer.json')), REQUIRED));
    expect(err.code).toBe('model-files-missing');
    expect(err.message).toContain('no tokenizer.json');
    expect(cache.entries.size).toBe(0);
  });

  it('is all or nothing: storage full midway deletes what was written and says storage full', async () => {
    const cache = new FakeCache();
    cache.failPutsAfter(2);
    const err = await refusal(importModelFiles(cache, BGE, folder('x'), REQUIRED));
    expect(err.code).toBe('storage-full');
    expect(cache.entries.size).toBe(0);
  });
});

describe('the binding transformers.js sees', () => {
  const prefix = 'http://mirror.test/Xenova/bge-small-en-v1.5/resolve/main/';
  it('maps this model’s remote URLs to the shared keys, and nothing else', async () => {
    const cache = new FakeCache();
    const bound = bindCache(cache, { ...BGE, remotePrefix: prefix });
    await bound.put(`${prefix}onnx/model_quantized.onnx`, new Response(new Uint8Array(10), { headers: { [EXPECTED_BYTES_HEADER]: '10' } }));
    await bound.put('http://mirror.test/other/model/resolve/main/config.json', new Response('{}'));
    expect([...cache.entries.keys()]).toEqual([modelFileKey({ ...BGE, path: 'onnx/model_quantized.onnx' })]);
    expect(bound.stored).toEqual(['onnx/model_quantized.onnx']);
    // Another source of the same model (the hub) finds the file; the local-path lookup misses.
    const fromHub = bindCache(cache, { ...BGE, remotePrefix: 'https://huggingface.co/Xenova/bge-small-en-v1.5/resolve/main/' });
    expect(await fromHub.match('https://huggingface.co/Xenova/bge-small-en-v1.5/resolve/main/onnx/model_quantized.onnx')).toBeDefined();
    expect(await fromHub.match('/models/Xenova/bge-small-en-v1.5/onnx/model_quantized.onnx')).toBeUndefined();
  });

  it('refuses a body shorter than the length the download announced', async () => {
    const cache = new FakeCache();
    const bound = bindCache(cache, { ...BGE, remotePrefix: prefix });
    const err = await refusal(bound.put(`${prefix}config.json`, new Response(new Uint8Array(5), { headers: { [EXPECTED_BYTES_HEADER]: '9' } })));
    expect(err.code).toBe('model-download-failed');
    expect(cache.entries.size).toBe(0);
    expect(bound.putErrors).toEqual([err]);
  });
});

describe('the download guard', () => {
  const URL_ = 'http://mirror.test/Xenova/bge-small-en-v1.5/resolve/main/onnx/model_quantized.onnx';
  /** A 200 response announcing `announced` bytes whose body gives `sent` bytes, then errors or ends. */
  const serve = (announced: number, sent: number, end: 'error' | 'close') => async () => {
    let done = false;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        if (!done) {
          done = true;
          c.enqueue(new Uint8Array(sent));
        } else if (end === 'error') c.error(new TypeError('network error'));
        else c.close();
      },
    });
    return new Response(body, { status: 200, headers: { 'content-length': String(announced) } });
  };

  it('errors a body that breaks off, naming the file and the bytes received', async () => {
    const response = await guardDownloads(serve(1000, 500, 'error'))(URL_);
    const err = await refusal(response.arrayBuffer());
    expect(err.code).toBe('model-download-failed');
    expect(err.message).toContain('onnx/model_quantized.onnx stopped after 500 of 1,000 bytes');
  });

  it('errors a body that stalls (a proxy holding a broken download open) once nothing arrives for the stall time', async () => {
    const stalling = async () => {
      let sent = false;
      const body = new ReadableStream<Uint8Array>({
        pull(c) {
          if (sent) return new Promise<void>(() => {});
          sent = true;
          c.enqueue(new Uint8Array(300));
        },
      });
      return new Response(body, { status: 200, headers: { 'content-length': '1000' } });
    };
    const err = await refusal((await guardDownloads(stalling, { stallMs: 50 })(URL_)).arrayBuffer());
    expect(err.code).toBe('model-download-failed');
    expect(err.message).toContain('stopped after 300 of 1,000 bytes (nothing arrived for 0 s)');
  });

  it('errors a body that ends cleanly short of its Content-Length', async () => {
    const err = await refusal((await guardDownloads(serve(1000, 500, 'close'))(URL_)).arrayBuffer());
    expect(err.message).toContain('connection closed early');
  });

  it('passes a whole body with the announced length in a header, and other statuses untouched', async () => {
    const response = await guardDownloads(serve(500, 500, 'close'))(URL_);
    expect((await response.arrayBuffer()).byteLength).toBe(500);
    expect(response.headers.get(EXPECTED_BYTES_HEADER)).toBe('500');
    const missing = await guardDownloads(async () => new Response('no', { status: 404 }))(URL_);
    expect(missing.status).toBe(404);
  });

  it('turns an unreachable host into an error that says what to do', async () => {
    const err = await refusal(
      guardDownloads(async () => {
        throw new TypeError('fetch failed');
      })(URL_),
    );
    expect(err.message).toMatch(/could not reach mirror\.test for onnx\/model_quantized\.onnx \(fetch failed\): check the connection/);
  });
});
