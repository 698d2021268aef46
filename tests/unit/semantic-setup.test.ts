// The model manager's logic in the library worker (`models/setup/semantic-setup.ts`), in Node with
// fake-indexeddb and the real transformers.js on generated tiny models. The embed worker is stood in
// for by the same loading code run in-process (models come from a local folder; nothing is fetched).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocQaError } from '../../src/core/errors.ts';
import { asModelId } from '../../src/core/ids.ts';
import type { IncomingFile } from '../../src/core/library-api.ts';
import { chunkEmbedderOf, type ChunkEmbedder } from '../../src/embed/chunk-embedder.ts';
import { loadEmbedder } from '../../src/models/encoder/embedder.ts';
import { createLibrary } from '../../src/library/library.ts';
import { LibraryModels } from '../../src/library/library-models.ts';
import { checkMirror, SemanticSetup, type EmbedHost, type RerankHost } from '../../src/models/setup/semantic-setup.ts';
import { LibraryStore } from '../../src/store/library-store.ts';
import { openLibraryDb } from '../../src/store/schema.ts';
import { SettingsStore } from '../../src/store/settings-store.ts';
import { VectorStore } from '../../src/store/vector-store.ts';
import { createTinyModelDir, type TinyModelDir } from '../support/tiny-model-dir.ts';

const ORIGIN = 'https://docqa.example';
let tiny: TinyModelDir;
beforeAll(async () => {
  tiny = await createTinyModelDir();
  await tiny.variant('other-encoder', {});
});
afterAll(() => tiny.remove());

/** The embed worker's part, in-process: loads the imported folder of the same name from the tiny model dir. */
function inProcessHost(): EmbedHost & { loads: string[] } {
  let current: ChunkEmbedder | undefined;
  const loads: string[] = [];
  return {
    loads,
    async load({ model }) {
      loads.push(model.id);
      current = chunkEmbedderOf(await loadEmbedder({ ...model, repo: model.repo }, { source: { kind: 'folder', root: tiny.dir } }));
      return { notice: 'CPU: Node' };
    },
    embedChunks: (texts) => current!.embedChunks(texts),
    embedQuery: (text) => current!.embedQuery(text),
    takeDeviceNotice: async () => undefined,
    unload: async () => void (current = undefined),
    listCached: async () => [],
    deleteCached: async () => 0,
    importFiles: async () => undefined,
  };
}

/** No rerank worker in these tests: nothing here chooses a reranker. */
const noReranker: RerankHost = {
  load: () => Promise.reject(new Error('no reranker in this test')),
  score: () => Promise.reject(new Error('no reranker in this test')),
  unload: async () => undefined,
};

async function folderFiles(folder: string): Promise<IncomingFile[]> {
  const paths = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model.onnx'];
  return Promise.all(
    paths.map(async (p) => {
      const path = `${folder}/${p}`;
      const slash = path.lastIndexOf('/');
      return { name: path.slice(slash + 1), folder: path.slice(0, slash), blob: new Blob([await readFile(join(tiny.dir, path))]) };
    }),
  );
}

describe('checkMirror', () => {
  it("accepts an address on the app's own site, relative or absolute, and refuses any other site with what to do", () => {
    expect(checkMirror('/models', ORIGIN)).toBe(`${ORIGIN}/models/`);
    expect(checkMirror(`${ORIGIN}/mirror/`, ORIGIN)).toBe(`${ORIGIN}/mirror/`);
    expect(checkMirror('  ', ORIGIN)).toBeUndefined();
    expect(() => checkMirror('https://evil.example/models/', ORIGIN)).toThrow(/only be downloaded from huggingface\.co or from this app's own site .*import the model folder instead/);
    expect(() => checkMirror('ftp://docqa.example/x', ORIGIN)).toThrow(/not an http or https address/);
  });
});

describe('SemanticSetup', () => {
  it('imports model folders, switches models keeping the old vectors until the new model has embedded every chunk, and deletes', async () => {
    const db = await openLibraryDb(`setup-${Date.now()}`);
    const models = new LibraryModels();
    const library = createLibrary(new LibraryStore(db), () => undefined, { chunk: { maxChars: 300, overlapChars: 40, parentChars: 900 }, embedding: { batchSize: 4 }, models });
    await library.open();
    await library.startWriting();
    const host = inProcessHost();
    const vectors = new VectorStore(db);
    const setup = new SemanticSetup({ library, models, embed: host, rerank: noReranker, settings: new SettingsStore(db), vectors: vectors, origin: ORIGIN });
    await library.queue.add([{ name: 'lease.md', folder: '', blob: new Blob(['# Lease\n\nThe tenant pays the rent on the first day of each month.\n\nThe landlord repairs the heating.\n']) }]);
    await library.processQueue();

    const first = await setup.importModel(await folderFiles('tiny-encoder'));
    const second = await setup.importModel(await folderFiles('other-encoder'));
    expect([first, second]).toEqual([asModelId('imported:tiny-encoder'), asModelId('imported:other-encoder')]);
    const listed = await setup.listModels();
    expect(listed.models.filter((m) => m.imported).map((m) => [m.label, m.dims, m.inUse])).toEqual([
      ['tiny-encoder (imported)', 32, false],
      ['other-encoder (imported)', 32, false],
    ]);
    // Nothing was loaded (let alone downloaded) before the person chose a model.
    expect(host.loads).toEqual([]);

    await setup.useModel(first);
    await library.embeddingIdle();
    const chunks = library.indexedChunks;
    expect((await vectors.models()).get(first)).toBe(chunks);

    await setup.useModel(second);
    await library.embeddingIdle();
    // The switch completed: the new model has every chunk, the old model's vectors are gone only now.
    expect(Object.fromEntries(await vectors.models())).toEqual({ [second]: chunks });
    expect((await setup.listModels()).models.find((m) => m.id === second)).toMatchObject({ inUse: true, vectors: chunks });

    await setup.deleteModel(second);
    expect(await vectors.models()).toEqual(new Map());
    expect(library.embeddingStatus.state).toBe('off');
    expect((await setup.listModels()).models.some((m) => m.id === second)).toBe(false);
  });

  it('refuses a folder without config.json, naming what to choose', async () => {
    const db = await openLibraryDb(`setup-bad-${Date.now()}`);
    const models = new LibraryModels();
    const library = createLibrary(new LibraryStore(db), () => undefined, { models });
    await library.open();
    const setup = new SemanticSetup({ library, models, embed: inProcessHost(), rerank: noReranker, settings: new SettingsStore(db), vectors: new VectorStore(db), origin: ORIGIN });
    const files = (await folderFiles('tiny-encoder')).filter((f) => f.name !== 'config.json');
    await expect(setup.importModel(files)).rejects.toThrow(/no config\.json: choose the folder that holds the model/);
  });

  it('loads the model again when the embed worker stopped (out of memory), and goes on', async () => {
    const db = await openLibraryDb(`setup-restart-${Date.now()}`);
    const models = new LibraryModels();
    const library = createLibrary(new LibraryStore(db), () => undefined, { chunk: { maxChars: 300, overlapChars: 40, parentChars: 900 }, embedding: { batchSize: 2 }, models });
    await library.open();
    await library.startWriting();
    const host = inProcessHost();
    const embedChunks = host.embedChunks;
    let calls = 0;
    // The worker dies on the second call: a fresh worker has no model until it is loaded again.
    host.embedChunks = (texts) => (++calls === 2 ? Promise.reject(new DocQaError('internal', 'embed worker stopped (out of memory?): load the model again')) : embedChunks(texts));
    const setup = new SemanticSetup({ library, models, embed: host, rerank: noReranker, settings: new SettingsStore(db), vectors: new VectorStore(db), origin: ORIGIN });
    const sections = ['Payment', 'Repairs', 'Deposit', 'Notice', 'Pets', 'Keys'].map((h, i) => `## ${h}\n\n${`Clause ${i}: the parties agree on the ${h.toLowerCase()} terms set out here in full. `.repeat(4)}`);
    await library.queue.add([{ name: 'lease.md', folder: '', blob: new Blob([`# Lease\n\n${sections.join('\n\n')}\n`]) }]);
    await library.processQueue();
    const id = await setup.importModel(await folderFiles('tiny-encoder'));
    await setup.useModel(id);
    await library.embeddingIdle();
    expect(library.indexedChunks).toBeGreaterThan(2);
    expect(host.loads).toEqual([id, id]);
    expect(library.embeddingStatus.state).toBe('ready');
    expect(library.embeddedChunks).toBe(library.indexedChunks);
  });
});
