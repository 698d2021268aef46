/**
 * Real text for the vector bench's `--real` runs: passages nobody here wrote, and real questions.
 *   SciFact   every abstract of the corpus (title and text, as `npm run eval` indexes them) and every
 *             sentence of those abstracts (the app's sentence splitter), questions: SciFact's claims
 *   Debian    English manuals from Debian's -doc packages (Python 3.11, PostgreSQL 15, the Debian
 *             Administrator's Handbook, the Debian Reference, Debian Policy, Git, SQLite, R's manuals), parsed and chunked by the app's own
 *             ingest path, and sentences of those chunks (both taken evenly across the manuals); questions: the Debian FAQ's question headings
 * The packages are fetched with `apt-get download` and unpacked with `dpkg -x` into
 * `$DOCQA_TEXTS` (default ~/.cache/docqa-texts) once; nothing is committed.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { loadBeir } from '../src/eval/beir.ts';
import { faqQuestions } from '../src/eval/faq-questions.ts';
import { prepareDocument } from '../src/ingest/prepare-document.ts';
import { splitSentences } from '../src/text/split-sentences.ts';
import { progress, scifactDir } from './util.ts';

/** The Debian packages read, and the folder of English HTML pages inside each. */
const MANUALS = [
  { pkg: 'python3.11-doc', html: 'usr/share/doc/python3.11/html' },
  { pkg: 'postgresql-doc-15', html: 'usr/share/doc/postgresql-doc-15/html' },
  { pkg: 'debian-handbook', html: 'usr/share/doc/debian-handbook/html/en-US' },
  { pkg: 'debian-reference-en', html: 'usr/share/debian-reference' },
  { pkg: 'debian-policy', html: 'usr/share/doc/debian-policy' },
  { pkg: 'sqlite3-doc', html: 'usr/share/doc/sqlite3' },
  { pkg: 'r-doc-html', html: 'usr/share/R/doc/manual' },
  { pkg: 'git-doc', html: 'usr/share/doc/git-doc' },
] as const;
const FAQ = { pkg: 'debian-faq', html: 'usr/share/doc/debian/FAQ' } as const;

/**
 * How much of the Debian manuals is kept: 10k of their chunks and 60k of their sentences, taken evenly
 * across the manuals, for about 106k distinct passages in all. A chunk costs the encoder about ten sentences;
 * embedding all of them (36k chunks, 160k sentences) would take hours of this 2-core machine, for no
 * figure the bench reports.
 */
const DEBIAN_CHUNKS = 10_000;
const DEBIAN_SENTENCES = 60_000;

/** Sentences shorter than this many characters ("Methods", "(p < 0.05).") are left out: nobody searches for them. */
const MIN_SENTENCE_CHARS = 40;

export interface RealTexts {
  /** Distinct passage texts, in a fixed order: SciFact abstracts, their sentences, Debian chunks, their sentences. */
  passages: string[];
  /** How many passages each source gave. */
  counts: { scifact_abstracts: number; scifact_sentences: number; debian_chunks: number; debian_sentences: number };
  /** Real questions: SciFact's claims, then the Debian FAQ's questions. */
  queries: string[];
}

export function textsDir(): string {
  return process.env.DOCQA_TEXTS || join(homedir(), '.cache', 'docqa-texts');
}

/** Unpacks `pkg` under `root` unless it already is (apt-get download + dpkg -x, no root needed). */
function unpack(pkg: string, root: string): void {
  const debs = join(textsDir(), 'debs');
  mkdirSync(debs, { recursive: true });
  const mark = join(root, '.unpacked', pkg);
  if (existsSync(mark)) return;
  const debOf = () => readdirSync(debs).find((f) => f.startsWith(`${pkg}_`));
  if (!debOf()) {
    progress(`real texts: apt-get download ${pkg}`);
    execFileSync('apt-get', ['download', pkg], { cwd: debs, stdio: 'ignore' });
  }
  execFileSync('dpkg', ['-x', join(debs, debOf()!), root]);
  mkdirSync(join(root, '.unpacked'), { recursive: true });
  writeFileSync(mark, '');
}

async function htmlFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && /\.html?$/i.test(e.name))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/** Chunks of every page of the manuals, through the app's parse → clean → chunk path. */
async function debianChunks(root: string): Promise<string[]> {
  const chunks: string[] = [];
  for (const { pkg, html } of MANUALS) {
    unpack(pkg, root);
    const files = await htmlFiles(join(root, html));
    for (const file of files) {
      try {
        const prepared = await prepareDocument({ name: file.split('/').pop()!, folder: '', bytes: new Uint8Array(await readFile(file)), addedAt: 0 });
        for (const c of prepared.chunks) chunks.push(c.text);
      } catch {
        // A page the app refuses (too deep, empty) is refused in the app too: not a passage.
      }
    }
    progress(`real texts: ${pkg}: ${files.length} pages, ${chunks.length} chunks so far`);
  }
  return chunks;
}

async function faq(root: string): Promise<string[]> {
  unpack(FAQ.pkg, root);
  const dir = join(root, FAQ.html);
  const names = (await readdir(dir)).filter((n) => /\.en\.html$/i.test(n)).sort();
  const pages = await Promise.all(names.map(async (name) => ({ name, bytes: new Uint8Array(await readFile(join(dir, name))) })));
  return faqQuestions(pages);
}

/** The sentences of `texts` long enough to be searched for. */
function sentencesOf(texts: readonly string[]): string[] {
  return texts.flatMap((t) => splitSentences(t).map((s) => t.slice(s.start, s.end).trim())).filter((s) => s.length >= MIN_SENTENCE_CHARS);
}

/** About `count` of `items`, taken at an even stride so that every part of the list is represented. */
function spread<T>(items: readonly T[], count: number): T[] {
  const stride = Math.max(1, Math.ceil(items.length / count));
  return items.filter((_, i) => i % stride === 0).slice(0, count);
}

/** Every passage and question, deduplicated (a text appears once, at its first place). */
export async function realTexts(): Promise<RealTexts> {
  const root = join(textsDir(), 'root');
  const scifact = await loadBeir(scifactDir());
  const abstracts = scifact.corpus.map((d) => (d.title ? `${d.title}\n\n${d.text}` : d.text));
  const sentences = sentencesOf(scifact.corpus.map((d) => d.text));
  const debian = await debianChunks(root);
  const seen = new Set<string>();
  const keep = (texts: string[]) => texts.filter((t) => !seen.has(t) && (seen.add(t), true));
  const parts = { scifact_abstracts: keep(abstracts), scifact_sentences: keep(sentences), debian_chunks: keep(spread(debian, DEBIAN_CHUNKS)), debian_sentences: keep(spread(sentencesOf(debian), DEBIAN_SENTENCES)) };
  const passages = Object.values(parts).flat();
  const counts = Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, v.length])) as RealTexts['counts'];
  const queries = [...new Set([...scifact.queries.values(), ...(await faq(root))])];
  return { passages, counts, queries };
}
