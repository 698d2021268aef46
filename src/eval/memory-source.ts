import type { ChunkId, DocId } from '../core/ids.ts';
import type { BlockRecord, ChunkRecord, DocRecord } from '../core/types.ts';
import type { PreparedDocument } from '../ingest/prepare-document.ts';
import type { PassageSource } from '../retrieve/retrieve.ts';

/** Prepared documents held in memory, read by retrieval as the IndexedDB store is in the app. */
export class MemorySource implements PassageSource {
  private docs = new Map<DocId, DocRecord>();
  private blocks = new Map<string, BlockRecord>();
  private chunks = new Map<ChunkId, ChunkRecord>();

  add({ doc, blocks, chunks }: PreparedDocument): void {
    this.docs.set(doc.id, doc);
    blocks.forEach((b, index) => this.blocks.set(`${doc.id}:${index}`, { ...b, docId: doc.id, index }));
    for (const c of chunks) {
      const record = this.chunks.get(c.id) ?? { id: c.id, text: c.text, locations: [] };
      record.locations.push(c.location);
      this.chunks.set(c.id, record);
    }
  }

  async listDocuments(): Promise<DocRecord[]> {
    return [...this.docs.values()];
  }

  async getChunks(ids: readonly ChunkId[]): Promise<Array<ChunkRecord | undefined>> {
    return ids.map((id) => this.chunks.get(id));
  }

  async getBlock(docId: DocId, index: number): Promise<BlockRecord | undefined> {
    return this.blocks.get(`${docId}:${index}`);
  }
}
