/** Branded ids: a raw string never crosses a stage boundary. */
declare const brand: unique symbol;
type Brand<T, B extends string> = T & { readonly [brand]: B };

/** SHA-256 (hex) of a document's bytes. */
export type DocId = Brand<string, 'DocId'>;
/** SHA-256 (hex) of a chunk's normalised text. */
export type ChunkId = Brand<string, 'ChunkId'>;
/** An embedding model in the catalogue (`src/models/catalogue.ts`); vectors are keyed by it. */
export type ModelId = Brand<string, 'ModelId'>;
/** Key of a persisted ingest-queue entry. */
export type QueueId = Brand<string, 'QueueId'>;
/** Key of a saved conversation (the answer history). */
export type ConversationId = Brand<string, 'ConversationId'>;

export const asDocId = (s: string): DocId => s as DocId;
export const asChunkId = (s: string): ChunkId => s as ChunkId;
export const asQueueId = (s: string): QueueId => s as QueueId;
export const asModelId = (s: string): ModelId => s as ModelId;
export const asConversationId = (s: string): ConversationId => s as ConversationId;

/**
 * A print of a set of chunk ids: the XOR of their first 32 bits, so the same set gives the same print in any
 * order and a set that changed gives another (but 1 in 2³² times). A document keeps the print of its chunks,
 * and the index compares it with the chunks it holds for that document: a document read again with the same
 * number of chunks, all different, is still seen to have changed.
 */
export function chunkSetPrint(ids: Iterable<string>): number {
  let print = 0;
  for (const id of ids) print ^= Number.parseInt(id.slice(0, 8), 16) | 0;
  return print;
}
