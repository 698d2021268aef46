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
