// Saved conversations in IndexedDB (fake-indexeddb): create, append (and replace the last) turn, list newest
// first without turns, get, rename, delete; and a version-3 library opened as version 4 with nothing lost.
import { openDB } from 'idb';
import { describe, expect, it } from 'vitest';
import { TITLE_MAX_CHARS, type SavedTurn } from '../../src/core/conversation.ts';
import { asConversationId } from '../../src/core/ids.ts';
import type { Answer } from '../../src/core/types.ts';
import { ConversationStore } from '../../src/store/conversation-store.ts';
import { DB_VERSION, openLibraryDb } from '../../src/store/schema.ts';

let dbCount = 0;
const freshName = () => `conversation-store-${Date.now()}-${dbCount++}`;
const answer = (text: string): Answer => ({ question: text, found: true, segments: [{ text, cite: 1 }], citations: [] });
const turn = (question: string, at: number, standalone = question): SavedTurn => ({ question, standalone, answer: answer(`About ${question}`), at });

describe('ConversationStore', () => {
  it('creates, appends turns, lists newest first without turns, gets, renames and deletes', async () => {
    const store = new ConversationStore(await openLibraryDb(freshName()));
    const a = await store.create('  When is the rent   paid?  ', 1000);
    expect(a.title).toBe('When is the rent paid?');
    await store.appendTurn(a.id, turn('When is the rent paid?', 1000));
    await store.appendTurn(a.id, turn('How much is it?', 2000, 'How much is it? (rent paid)'));
    const b = await store.create('Who repairs the heating?', 1500);
    await store.appendTurn(b.id, turn('Who repairs the heating?', 1500));

    // a was updated last (2000): it comes first.
    const list = await store.list();
    expect(list.map((c) => [c.title, c.turnCount])).toEqual([
      ['When is the rent paid?', 2],
      ['Who repairs the heating?', 1],
    ]);
    expect(list[0]).not.toHaveProperty('turns');

    const got = await store.get(a.id);
    expect(got?.turns.map((t) => [t.question, t.standalone, t.answer.segments[0]!.text])).toEqual([
      ['When is the rent paid?', 'When is the rent paid?', 'About When is the rent paid?'],
      ['How much is it?', 'How much is it? (rent paid)', 'About How much is it?'],
    ]);

    // Asked again with the searched question edited: the last turn is replaced, not added.
    await store.appendTurn(a.id, turn('How much is it?', 3000, 'How much is the rent?'), { replaceLast: true });
    expect((await store.get(a.id))?.turns.map((t) => t.standalone)).toEqual(['When is the rent paid?', 'How much is the rent?']);

    await store.rename(a.id, '  Rent  ');
    await store.rename(b.id, '   ');
    expect((await store.list()).map((c) => c.title)).toEqual(['Rent', 'Who repairs the heating?']);

    await store.delete(a.id);
    expect(await store.get(a.id)).toBeUndefined();
    expect((await store.list()).map((c) => c.title)).toEqual(['Who repairs the heating?']);
    // Its turns went with it.
    expect(await store.db.count('conversationTurns')).toBe(1);
  });

  it('cuts a long first question for the title, and refuses a turn for a conversation deleted meanwhile', async () => {
    const store = new ConversationStore(await openLibraryDb(freshName()));
    const long = await store.create('word '.repeat(100));
    expect(long.title.length).toBe(TITLE_MAX_CHARS);
    expect(long.title.endsWith('…')).toBe(true);
    await expect(store.appendTurn(asConversationId('gone'), turn('q', 1))).rejects.toThrow(/deleted/);
    // A renamed title is cut the same way: a pasted page stays one line in the history.
    await store.rename(long.id, `Notes ${'x'.repeat(10_000)}`);
    const renamed = (await store.list()).find((c) => c.id === long.id)!;
    expect(renamed.title.length).toBe(TITLE_MAX_CHARS);
    expect(renamed.title).toMatch(/^Notes x+…$/);

    expect(await store.db.count('conversationTurns')).toBe(0);
  });

  it('keeps a summary of older turns, and drops it when a summarised turn is replaced', async () => {
    const store = new ConversationStore(await openLibraryDb(freshName()));
    const c = await store.create('first', 1);
    await store.appendTurn(c.id, turn('first', 1));
    await store.setSummary(c.id, 'They asked about the first thing.', 1);
    expect((await store.get(c.id))?.summary).toBe('They asked about the first thing.');
    await store.appendTurn(c.id, turn('first again', 2), { replaceLast: true });
    expect((await store.get(c.id))?.summary).toBeUndefined();
  });

  it('opens a version-3 library as version 4: every store and record kept, conversations added', async () => {
    const name = freshName();
    const v3 = await openDB(name, 3, {
      upgrade(db) {
        db.createObjectStore('documents', { keyPath: 'id' }).createIndex('by-path', 'path');
        db.createObjectStore('manifests', { keyPath: 'docId' });
        db.createObjectStore('blocks', { keyPath: ['docId', 'index'] });
        db.createObjectStore('chunks', { keyPath: 'id' });
        db.createObjectStore('queue', { keyPath: 'id' });
        db.createObjectStore('snapshots', { keyPath: 'name' });
        db.createObjectStore('entryStatus', { keyPath: 'queueId' });
        db.createObjectStore('originals');
        db.createObjectStore('vectors', { keyPath: ['model', 'chunkId'] }).createIndex('by-chunk', 'chunkId');
        db.createObjectStore('settings');
      },
    });
    const records: Record<string, unknown> = {
      documents: { id: 'd1', path: 'lease.md', name: 'lease.md' },
      manifests: { docId: 'd1', chunks: [] },
      blocks: { docId: 'd1', index: 0, text: 'The rent is due.' },
      chunks: { id: 'c1', text: 'The rent is due.' },
      queue: { id: 'q1', path: 'loan.md' },
      snapshots: { name: 'lexical', version: 1, data: '{}', savedAt: 0 },
      entryStatus: { queueId: 'q1', reads: 1 },
      vectors: { model: 'm', chunkId: 'c1', vector: new Float32Array([1, 0]) },
    };
    for (const [s, v] of Object.entries(records)) await v3.put(s as never, v as never);
    await v3.put('originals', new Blob(['x']), 'd1');
    await v3.put('settings', { generator: { kind: 'scripted', replies: [] } }, 'answer');
    v3.close();

    const db = await openLibraryDb(name);
    expect(db.version).toBe(DB_VERSION);
    expect(DB_VERSION).toBe(5);
    // v5: the pages OCR keeps for a file being read, empty after the upgrade.
    expect(await db.count('recognisedPages')).toBe(0);
    for (const [s, v] of Object.entries(records)) expect(await db.getAll(s as never)).toEqual([v]);
    expect(await db.count('originals')).toBe(1);
    expect(await db.get('settings', 'answer')).toEqual({ generator: { kind: 'scripted', replies: [] } });
    const store = new ConversationStore(db);
    expect(await store.list()).toEqual([]);
    const c = await store.create('When is the rent due?');
    await store.appendTurn(c.id, turn('When is the rent due?', 5));
    expect((await store.get(c.id))?.turns).toHaveLength(1);
  });
});
