import { titleOf, type Conversation, type ConversationHeader, type SavedTurn } from '../core/conversation.ts';
import { DocQaError, isQuotaError, STORAGE_FULL_MESSAGE } from '../core/errors.ts';
import { asConversationId, type ConversationId } from '../core/ids.ts';
import { abortQuietly, settle } from './transactions.ts';
import type { LibraryDb, StoredTurn } from './schema.ts';

const turnsOf = (id: ConversationId) => IDBKeyRange.bound([id, 0], [id, Infinity]);

/** A new conversation's id: random, so two tabs never pick the same one. */
function newConversationId(): ConversationId {
  return asConversationId(globalThis.crypto.randomUUID());
}

/** A write that failed for lack of space, as a message a person can act on; other errors as they are. */
function storageError(err: unknown, what: string): unknown {
  return isQuotaError(err) ? new DocQaError('storage-full', `conversation: ${what} was not saved: ${STORAGE_FULL_MESSAGE}`, { cause: err }) : err;
}

/**
 * Saved conversations: a header per conversation (`conversations`, what the history lists,
 * cheap to read) and its turns apart (`conversationTurns`, keyed [conversation, position]), so listing
 * never reads the answers. A turn and its header's new count are written in one transaction.
 */
export class ConversationStore {
  constructor(readonly db: LibraryDb) {}

  /** Starts a conversation with no turns yet; its title is the first question (trimmed, cut). */
  async create(firstQuestion: string, at = Date.now()): Promise<ConversationHeader> {
    const header: ConversationHeader = { id: newConversationId(), title: titleOf(firstQuestion), createdAt: at, updatedAt: at, turnCount: 0 };
    try {
      await this.db.put('conversations', header);
    } catch (err) {
      throw storageError(err, 'the new conversation');
    }
    return header;
  }

  /**
   * Adds a turn at the end (or, with `replaceLast`, in place of the last one: the question asked again
   * with the searched question edited). Returns the header as saved. Throws 'internal' when the
   * conversation was deleted meanwhile (another tab).
   */
  async appendTurn(id: ConversationId, turn: SavedTurn, options: { replaceLast?: boolean } = {}): Promise<ConversationHeader> {
    const tx = this.db.transaction(['conversations', 'conversationTurns'], 'readwrite');
    const writes: Array<Promise<unknown>> = [];
    try {
      const header = await tx.objectStore('conversations').get(id);
      if (!header) throw new DocQaError('internal', 'this conversation was deleted (in another tab?): start a new one');
      const n = options.replaceLast && header.turnCount > 0 ? header.turnCount - 1 : header.turnCount;
      const stored: StoredTurn = { ...turn, conversationId: id, n };
      const updated: ConversationHeader = { ...header, turnCount: n + 1, updatedAt: Math.max(turn.at, header.updatedAt) };
      // A replaced turn may have been summarised: the summary no longer says what it says.
      if ((updated.summarisedTurns ?? 0) > n) {
        delete updated.summary;
        delete updated.summarisedTurns;
      }
      // One by one into `writes`: when the second put is refused synchronously (storage full), the first
      // one's request rejects on the abort and must be observed.
      writes.push(tx.objectStore('conversationTurns').put(stored));
      writes.push(tx.objectStore('conversations').put(updated));
      await settle(tx.done, writes);
      return updated;
    } catch (err) {
      abortQuietly(tx, writes);
      throw storageError(err, 'the answer');
    }
  }

  /** Every conversation's header, most recently updated first (no turns are read). */
  async list(): Promise<ConversationHeader[]> {
    return (await this.db.getAllFromIndex('conversations', 'by-updated')).reverse();
  }

  /** The conversation with its turns, oldest first; undefined when there is none with this id. */
  async get(id: ConversationId): Promise<Conversation | undefined> {
    const tx = this.db.transaction(['conversations', 'conversationTurns']);
    const [header, stored] = await Promise.all([tx.objectStore('conversations').get(id), tx.objectStore('conversationTurns').getAll(turnsOf(id))]);
    if (!header) return undefined;
    const turns = stored.map(({ question, standalone, answer, at }): SavedTurn => ({ question, standalone, answer, at }));
    return { ...header, turns };
  }

  /**
   * Sets the title: trimmed, whitespace runs as one space, cut like a title made
   * from a first question (a pasted page stays one line in the history); an empty one keeps the old title.
   * Returns the header, undefined if none.
   */
  async rename(id: ConversationId, title: string): Promise<ConversationHeader | undefined> {
    const tx = this.db.transaction('conversations', 'readwrite');
    const header = await tx.store.get(id);
    const t = titleOf(title);
    if (!header || !t) {
      await tx.done;
      return header;
    }
    const renamed = { ...header, title: t };
    await tx.store.put(renamed);
    await tx.done;
    return renamed;
  }

  /** Keeps a summary of the oldest `turns` turns (sent in their place once they no longer fit). */
  async setSummary(id: ConversationId, summary: string, turns: number): Promise<void> {
    const tx = this.db.transaction('conversations', 'readwrite');
    const header = await tx.store.get(id);
    if (header) await tx.store.put({ ...header, summary, summarisedTurns: turns });
    await tx.done;
  }

  /** Deletes the conversation and all its turns, in one transaction. */
  async delete(id: ConversationId): Promise<void> {
    const tx = this.db.transaction(['conversations', 'conversationTurns'], 'readwrite');
    await Promise.all([tx.objectStore('conversations').delete(id), tx.objectStore('conversationTurns').delete(turnsOf(id))]);
    await tx.done;
  }
}
