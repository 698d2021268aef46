import type { ModelId } from '../core/ids.ts';
import type { ChunkEmbedder } from '../embed/chunk-embedder.ts';
import type { Answerer } from '../generate/answerer.ts';
import { createLlmAnswerer } from '../generate/llm-answerer.ts';
import type { Generator } from '../models/generator/generator.ts';
import type { PairScorer } from '../rerank/rerank.ts';

/** A cross-encoder in use: its name, and how it scores a question against passages. */
export interface RerankerInUse {
  model: { id: ModelId; label: string };
  score: PairScorer;
}

/** What the library does when the embedding model changes (load its vectors, embed the rest); awaited. */
export type EmbedderWatcher = (embedder: ChunkEmbedder | undefined) => Promise<void>;

/**
 * The models a library answers with, one part of it: given to the library when it is built, and to the
 * model setup (semantic search, answer writing), which changes them as the person loads and stops
 * models. The library reads the generator, answerer and reranker at each question, and watches the
 * embedder: a new one has its stored vectors loaded and the rest of the library embedded.
 */
export class LibraryModels {
  private embedderNow: ChunkEmbedder | undefined;
  private generatorNow: Generator | undefined;
  private answererNow: Answerer | undefined;
  private rerankerNow: RerankerInUse | undefined;
  private readonly watchers: EmbedderWatcher[] = [];

  /** The embedding model for semantic search, if one is in use (undefined: keywords only). */
  get embedder(): ChunkEmbedder | undefined {
    return this.embedderNow;
  }

  /** The model writing answers (and rewriting, expanding, judging), when one is loaded. */
  get generator(): Generator | undefined {
    return this.generatorNow;
  }

  /** The answerer chosen at run time (undefined: the library's default, else the extractive answer). */
  get answerer(): Answerer | undefined {
    return this.answererNow;
  }

  /** The cross-encoder reranking each question's fused candidates, when one is in use. */
  get reranker(): RerankerInUse | undefined {
    return this.rerankerNow;
  }

  /** Calls `watch` with each new embedder (the library built over these models does, once). */
  watchEmbedder(watch: EmbedderWatcher): void {
    this.watchers.push(watch);
  }

  /**
   * Uses an embedding model for semantic search from now on (undefined: keywords only). Resolves once the
   * library has taken it: its stored vectors loaded; chunks without one are embedded in the background by
   * the writer tab.
   */
  async setEmbedder(embedder: ChunkEmbedder | undefined): Promise<void> {
    this.embedderNow = embedder;
    for (const watch of this.watchers) await watch(embedder);
  }

  /**
   * Has this model write answers from now on (undefined: the extractive answer): the answerer over it
   * (`generate/llm-answerer.ts`), and the steps before retrieval that need a model (follow-up rewriting,
   * phrasings, the multi-hop judgement).
   */
  setGenerator(generator: Generator | undefined): void {
    this.generatorNow = generator;
    this.answererNow = generator ? createLlmAnswerer({ generator }) : undefined;
  }

  /** Answers with this answerer from now on (undefined: the library's default, else the extractive answer). */
  setAnswerer(answerer: Answerer | undefined): void {
    this.answererNow = answerer;
  }

  /** Uses a cross-encoder to rerank each question's fused candidates from now on (undefined: none). */
  setReranker(reranker: RerankerInUse | undefined): void {
    this.rerankerNow = reranker;
  }
}
