/**
 * Benchmark inputs: SciFact records as the Markdown files a person would drop, and a deterministic
 * generated corpus (seeded PRNG, Zipf-like vocabulary, paragraphs of sentences) sized in chunks.
 */
import { beirDocToMarkdown, loadBeir } from '../src/eval/beir.ts';
import { prepareDocument } from '../src/ingest/prepare-document.ts';
import { mulberry32 } from '../tools/random.ts';

/** One input document, in both forms: file bytes for the app's pipeline, fields for MiniSearch's own `addAll`. */
export interface BenchDoc {
  name: string;
  /** The Markdown file (`# title\n\ntext`), UTF-8. */
  bytes: Uint8Array;
  title: string;
  text: string;
}

export interface QuerySet {
  name: string;
  queries: string[];
}

const encoder = new TextEncoder();

export function totalBytes(docs: readonly BenchDoc[]): number {
  return docs.reduce((s, d) => s + d.bytes.byteLength, 0);
}

/** SciFact's corpus (every record a Markdown file, as `beirDocToMarkdown` writes it) and its test queries. */
export async function loadSciFact(dir: string): Promise<{ docs: BenchDoc[]; queries: QuerySet }> {
  const collection = await loadBeir(dir, 'test');
  const docs = collection.corpus.map((d) => ({
    name: `${d.id}.md`,
    bytes: encoder.encode(beirDocToMarkdown(d)),
    title: d.title,
    text: d.text,
  }));
  const queries = [...collection.qrels.keys()].map((id) => collection.queries.get(id)).filter((q): q is string => q !== undefined);
  return { docs, queries: { name: 'scifact-test', queries } };
}


/** English function words: the most frequent ranks, as in real text (most are stop words for the index). */
const FUNCTION_WORDS = (
  'the of and to a in is that for it as was with be by on not he this are or his from at which but have an they ' +
  'you were her she there been one all we their has would when if can more no so what up out about into than them ' +
  'some could its only other new also most after over such our these may any two first like well how'
).split(' ');

const ONSETS = ['b', 'c', 'd', 'f', 'g', 'h', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'w', 'br', 'cl', 'dr', 'gr', 'pl', 'pr', 'st', 'tr', 'sh', 'th', 'ch'];
const NUCLEI = ['a', 'e', 'i', 'o', 'u', 'ai', 'ea', 'io', 'ou', 'y'];
const CODAS = ['', '', '', 'n', 'r', 's', 't', 'l', 'm', 'nd', 'st', 'ck', 'ng', 'x'];

/** A vocabulary whose word at rank r (0-based) is drawn with probability ∝ 1 / (r + 2.7)^s (Zipf–Mandelbrot). */
export class ZipfVocabulary {
  readonly words: string[];
  private readonly cdf: Float64Array;

  constructor(rng: () => number, size = 5000, s = 1.05) {
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;
    const seen = new Set<string>(FUNCTION_WORDS);
    const content: string[] = [];
    while (content.length < size - FUNCTION_WORDS.length) {
      const syllables = 1 + Math.floor(rng() * 3) + (rng() < 0.3 ? 1 : 0);
      let w = '';
      for (let i = 0; i < syllables; i++) w += pick(ONSETS) + pick(NUCLEI) + (i === syllables - 1 ? pick(CODAS) : '');
      if (w.length < 3 || seen.has(w)) continue;
      seen.add(w);
      content.push(w);
    }
    // Function words take the top ranks; content words follow in generation order (random).
    this.words = [...FUNCTION_WORDS, ...content];
    this.cdf = new Float64Array(this.words.length);
    let sum = 0;
    for (let r = 0; r < this.words.length; r++) {
      sum += 1 / (r + 2.7) ** s;
      this.cdf[r] = sum;
    }
    for (let r = 0; r < this.cdf.length; r++) this.cdf[r]! /= sum;
  }

  /** Rank of a word drawn from the Zipf distribution (binary search on the CDF). */
  sampleRank(rng: () => number): number {
    const u = rng();
    let lo = 0;
    let hi = this.cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  sample(rng: () => number): string {
    return this.words[this.sampleRank(rng)]!;
  }

  isFunctionWord(word: string): boolean {
    return FUNCTION_WORDS.includes(word);
  }
}

const capitalize = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);

export interface GeneratorOptions {
  seed: number;
  /** Distinct words. Default 5000. */
  vocabulary?: number;
  /** Paragraphs per document; documents get sections (`## …`) every few paragraphs. */
  paragraphsPerDoc: number;
  /** File extension of the generated files: `md` (Markdown) or `txt`. */
  ext?: 'md' | 'txt';
}

/** A seeded generator of documents; the same seed gives the same documents in the same order. */
export class CorpusGenerator {
  readonly vocab: ZipfVocabulary;
  private readonly rng: () => number;
  private count = 0;

  constructor(readonly options: GeneratorOptions) {
    this.rng = mulberry32(options.seed);
    this.vocab = new ZipfVocabulary(mulberry32(options.seed ^ 0x5eed), options.vocabulary ?? 5000);
  }

  private int(min: number, max: number): number {
    return min + Math.floor(this.rng() * (max - min + 1));
  }

  private words(n: number): string[] {
    const out = new Array<string>(n);
    for (let i = 0; i < n; i++) out[i] = this.vocab.sample(this.rng);
    return out;
  }

  private sentence(): string {
    const w = this.words(this.int(5, 22));
    // An occasional comma, and a number now and then, as in real prose.
    if (w.length > 8 && this.rng() < 0.4) w[this.int(2, w.length - 3)] += ',';
    if (this.rng() < 0.1) w[this.int(1, w.length - 1)] = String(this.int(2, 2024));
    return `${capitalize(w.join(' '))}.`;
  }

  private paragraph(): string {
    const n = this.int(2, 7);
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(this.sentence());
    return out.join(' ');
  }

  /** The next document: a title heading, then sections of paragraphs. */
  next(): BenchDoc {
    const i = this.count++;
    const title = capitalize(this.words(this.int(3, 7)).join(' '));
    const body: string[] = [];
    const n = Math.max(1, Math.round(this.options.paragraphsPerDoc * (0.6 + 0.8 * this.rng())));
    for (let p = 0; p < n; p++) {
      if (p > 0 && p % this.int(4, 8) === 0) body.push(`## ${capitalize(this.words(this.int(2, 4)).join(' '))}`);
      body.push(this.paragraph());
    }
    const text = body.join('\n\n');
    const ext = this.options.ext ?? 'md';
    const file = ext === 'md' ? `# ${title}\n\n${text}\n` : `${title}\n\n${text}\n`;
    return { name: `doc-${String(i).padStart(5, '0')}.${ext}`, bytes: encoder.encode(file), title, text };
  }

  /**
   * Documents whose chunks (with the app's default chunking) total about `targetChunks`: the first
   * `calibrate` documents are chunked to learn chunks per document, then enough documents follow.
   */
  async corpus(targetChunks: number, calibrate = 40): Promise<{ docs: BenchDoc[]; estimatedChunks: number }> {
    const docs: BenchDoc[] = [];
    let sample = 0;
    for (let i = 0; i < calibrate; i++) {
      const doc = this.next();
      docs.push(doc);
      sample += (await prepareDocument({ name: doc.name, folder: '', bytes: doc.bytes, addedAt: 0 })).chunks.length;
    }
    const perDoc = sample / calibrate;
    const total = Math.max(calibrate, Math.round(targetChunks / perDoc));
    while (docs.length < total) docs.push(this.next());
    return { docs, estimatedChunks: Math.round(perDoc * total) };
  }

  /**
   * Questions built from sentences of the given documents (so they match), in the shapes people type:
   * a question word, then 2–5 content words of one sentence.
   */
  questions(docs: readonly BenchDoc[], n: number, seed: number): string[] {
    const rng = mulberry32(seed);
    const starts = ['what is', 'how does', 'why are', 'where is', 'when did', 'which', 'what about', 'explain'];
    const out: string[] = [];
    while (out.length < n) {
      const doc = docs[Math.floor(rng() * docs.length)]!;
      const sentences = doc.text.split(/(?<=\.)\s+|\n+/).filter((s) => s && !s.startsWith('#'));
      const sentence = sentences[Math.floor(rng() * sentences.length)] ?? '';
      const content = sentence
        .toLowerCase()
        .replace(/[^a-z\s]/g, '')
        .split(/\s+/)
        .filter((w) => w.length > 2 && !this.vocab.isFunctionWord(w));
      if (content.length < 2) continue;
      const k = Math.min(content.length, 2 + Math.floor(rng() * 4));
      const startAt = Math.floor(rng() * (content.length - k + 1));
      out.push(`${starts[Math.floor(rng() * starts.length)]} ${content.slice(startAt, startAt + k).join(' ')}?`);
    }
    return out;
  }
}
