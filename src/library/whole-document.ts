import { describeBlock } from '../core/block-label.ts';
import { DocQaError } from '../core/errors.ts';
import type { ChunkId, DocId } from '../core/ids.ts';
import type { Answer, AskStep, BlockRecord, DocRecord, Passage, SearchFilter, TextRange } from '../core/types.ts';
import type { TermStatistics } from '../generate/extractive-answer.ts';
import type { Generator } from '../models/generator/generator.ts';
import { mapReduceAnswer } from '../generate/map-reduce.ts';
import { buildWholeDocumentExtract } from '../generate/whole-document-extract.ts';
import { splitSentences } from '../text/split-sentences.ts';
import { readWholeDocument, type WholeDocumentQuery } from '../question/whole-document-query.ts';
import type { LibraryStore } from '../store/library-store.ts';

/**
 * Whole-document answers in the library: decides whether a question is about one whole
 * document (the person's toggle, `AskRequest.wholeDocument`, or the rule in
 * `question/whole-document-query.ts`), reads that document's sections from the store in document order,
 * and answers over all of them: by map-reduce with the model (`generate/map-reduce.ts`), or, without one,
 * with quoted sentences from every section (`generate/whole-document-extract.ts`). Progress goes to the
 * page as `whole-document` steps.
 */

/** Longest section passage, in characters: a longer block (a long chapter) is read as several, cut at sentences. Same as the chunker's parent window. */
export const SECTION_CHARS = 3000;
/** Chunks read from the store at a time, to find each block's chunks (their text is not kept). */
const CHUNK_BATCH = 64;

export interface WholeDocumentHost {
  store: LibraryStore;
  /** The model writing answers, if one is loaded. */
  generator: Generator | undefined;
  /** The index's term counts, for the relevance rule and the citation checker. */
  stats: TermStatistics;
  /** The library's documents (read once per question, shared with the other steps before retrieval). */
  docs: () => Promise<DocRecord[]>;
}

export interface WholeDocumentCall {
  /** The document the person chose to read whole (the toggle); else the rule decides. */
  wholeDocument?: DocId;
  onStep?: (step: AskStep) => void;
  onText?: (piece: string) => void;
  signal?: AbortSignal;
}

type WholeDocumentStep = Extract<AskStep, { type: 'whole-document' }>;

/** Ranges of at most `max` characters covering `text`, cut after a sentence (or mid-sentence when one sentence is longer). */
export function sectionRanges(text: string, max = SECTION_CHARS): TextRange[] {
  if (text.length <= max) return [{ start: 0, end: text.length }];
  const out: TextRange[] = [];
  let start = 0;
  let end = 0;
  for (const s of splitSentences(text)) {
    while (s.end - start > max && end > start) {
      out.push({ start, end });
      start = end;
    }
    while (s.end - start > max) {
      out.push({ start, end: start + max });
      start += max;
    }
    end = s.end;
  }
  if (text.length > start) out.push({ start, end: text.length });
  return out;
}

/** For each block of the document, its chunks' ranges (the first chunk a section overlaps names it). */
async function chunksByBlock(store: LibraryStore, docId: DocId, chunkIds: readonly ChunkId[]): Promise<Map<number, Array<{ id: ChunkId; start: number; end: number }>>> {
  const out = new Map<number, Array<{ id: ChunkId; start: number; end: number }>>();
  const ids = [...new Set(chunkIds)];
  for (let i = 0; i < ids.length; i += CHUNK_BATCH) {
    const chunks = await store.getChunks(ids.slice(i, i + CHUNK_BATCH));
    for (const c of chunks) {
      for (const l of c?.locations ?? []) {
        if (l.docId !== docId) continue;
        const list = out.get(l.block) ?? [];
        list.push({ id: c!.id, start: l.start, end: l.end });
        out.set(l.block, list);
      }
    }
  }
  return out;
}

/** One section of a block as a passage (the whole of it is the "hit"). */
function sectionPassage(doc: DocRecord, block: BlockRecord, range: TextRange, chunkId: ChunkId, why: string): Passage {
  const window = block.text.slice(range.start, range.end);
  return {
    chunkId,
    score: 0,
    ranks: [],
    why,
    docId: doc.id,
    docName: doc.name,
    docPath: doc.path,
    docType: doc.type,
    block: block.index,
    label: describeBlock(block),
    page: block.page,
    window,
    windowStart: range.start,
    hitStart: 0,
    hitEnd: window.length,
  };
}

/** Every section of a document as passages, in document order: each block, cut at sentences past {@link SECTION_CHARS}. */
export async function readSections(store: LibraryStore, doc: DocRecord): Promise<Passage[]> {
  const manifest = await store.getManifest(doc.id);
  if (!manifest) throw new DocQaError('internal', `${doc.path} is no longer in the library (it was deleted): choose another document`);
  const chunks = await chunksByBlock(store, doc.id, manifest.chunkIds);
  const sections: Passage[] = [];
  for (let b = 0; b < manifest.blockCount; b++) {
    const block = await store.getBlock(doc.id, b);
    const own = chunks.get(b);
    if (!block || !own?.length || !block.text.trim()) continue;
    for (const range of sectionRanges(block.text)) {
      const chunk = own.find((c) => c.end > range.start && c.start < range.end) ?? own[0]!;
      sections.push(sectionPassage(doc, block, range, chunk.id, `Read whole: ${doc.path}`));
    }
  }
  return sections.map((p, i) => ({ ...p, why: `${p.why}, section ${i + 1} of ${sections.length}` }));
}

/** The whole-document question this is, if any: the toggle's document, else the rule's. */
function chosen(question: string, docs: readonly DocRecord[], filter: SearchFilter | undefined, call: WholeDocumentCall): WholeDocumentQuery | undefined {
  const queryable = docs.map((d) => ({ docId: d.id, name: d.name, folder: d.folder, type: d.type, tags: d.tags, addedAt: d.addedAt, date: d.date }));
  if (call.wholeDocument === undefined) return readWholeDocument(question, queryable, filter);
  const doc = queryable.find((d) => d.docId === call.wholeDocument);
  if (!doc) throw new DocQaError('internal', 'the document chosen to read whole is no longer in the library: choose another one');
  return readWholeDocument(question, [doc], undefined, true);
}

/**
 * The answer over a whole document when the question is about one (else undefined: the caller retrieves
 * the top passages as usual). Steps: `whole-document` with the parts read so far (with a model, first with
 * `done` 0 once the parts are known; without one, the sections quoted from, once).
 */
export async function answerWholeDocument(host: WholeDocumentHost, question: string, filter: SearchFilter | undefined, call: WholeDocumentCall): Promise<Answer | undefined> {
  const docs = await host.docs();
  const query = chosen(question, docs, filter, call);
  if (!query) return undefined;
  const doc = docs.find((d) => d.id === query.docId)!;
  const sections = await readSections(host.store, doc);
  let last: WholeDocumentStep = { type: 'whole-document', docId: doc.id, docPath: doc.path, done: 0, total: Math.max(1, sections.length) };
  const report = (done: number, total: number) => {
    last = { ...last, done, total };
    call.onStep?.(last);
  };
  let answer: Answer;
  if (host.generator && sections.length) {
    // Map-reduce reports 0 of its parts once it has cut the document into them.
    answer = await mapReduceAnswer(question, { generator: host.generator, sections, stats: host.stats, onText: call.onText, signal: call.signal, onProgress: report });
  } else {
    answer = buildWholeDocumentExtract(question, sections, { kind: query.kind, topic: query.topic, stats: host.stats });
    report(sections.length, sections.length);
  }
  return { ...answer, steps: [...(answer.steps ?? []), last] };
}
