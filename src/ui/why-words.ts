import type { Passage } from '../core/types.ts';

/** What each retriever's rank means, in the words a person would use. */
const RETRIEVER_WORDS: Record<string, string> = { BM25: 'matches your words', Dense: 'similar meaning' };

/** "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "102nd". */
export function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10] ?? 'th';
  return `${n}${suffix}`;
}

/**
 * Why a passage was chosen, in words: where each search put it and where the reranker did, best first in
 * the search's order ("matches your words: 1st · similar meaning: 2nd · checked by the reranker: 1st").
 * The raw figures (ranks, fused and reranker scores) stay in `Passage.why`, behind a toggle.
 */
export function whyInWords(p: Pick<Passage, 'ranks' | 'rerank'>): string {
  const order = (name: string) => (name in RETRIEVER_WORDS ? Object.keys(RETRIEVER_WORDS).indexOf(name) : 99);
  const parts = [...p.ranks].sort((a, b) => order(a.name) - order(b.name) || a.name.localeCompare(b.name)).map((r) => `${RETRIEVER_WORDS[r.name] ?? r.name}: ${ordinal(r.rank)}`);
  if (p.rerank) parts.push(`checked by the reranker: ${ordinal(p.rerank.rank)}`);
  return parts.join(' · ');
}
