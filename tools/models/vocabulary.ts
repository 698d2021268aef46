/**
 * The tiny models' WordPiece vocabulary, assembled deterministically: special tokens, every ASCII
 * punctuation mark, digits and letters (alone and as `##` continuations, so any ASCII word can be spelled
 * out and only other scripts give [UNK]), common suffix pieces, then whole English words.
 */
import { ENGLISH_WORDS } from './english-words.ts';

/** Special tokens, at ids 0-4 in this order. */
export const SPECIAL_TOKENS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'] as const;

const PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';
const DIGITS = '0123456789';
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const SUFFIXES = [
  's', 'es', 'ed', 'ing', 'ly', 'er', 'ers', 'est', 'ion', 'ions', 'tion', 'tions', 'ment', 'ments', 'ness',
  'able', 'ible', 'al', 'ful', 'less', 'ity', 'ive', 'ize', 'ise', 'ous', 'ic', 'ical', 'ist', 'ism', 'ance',
  'ence', 'ant', 'ent', 'ry', 'ies', 'ied', 'th', 'nd', 'st', 'rd', 'un', 're', 'in', 'on', 'an', 'or', 'at',
];

/** The vocabulary in id order; index = token id. */
export function buildVocabulary(): string[] {
  const tokens: string[] = [...SPECIAL_TOKENS];
  tokens.push(...PUNCTUATION, ...DIGITS, ...LETTERS);
  tokens.push(...[...DIGITS, ...LETTERS].map((c) => `##${c}`));
  tokens.push(...SUFFIXES.map((s) => `##${s}`));
  tokens.push(...ENGLISH_WORDS.split(/\s+/).filter((w) => w.length > 0));
  const unique = [...new Set(tokens)];
  const bad = unique.find((t) => !/^(\[[A-Z]+\]|##[a-z0-9]+|[a-z0-9]+|[!-/:-@[-`{-~])$/.test(t));
  if (bad !== undefined) throw new Error(`vocabulary: unexpected token ${JSON.stringify(bad)}`);
  return unique;
}

/** The tiny decoder's chat markers (Qwen's ChatML spelling), after the WordPiece vocabulary. */
export const CHAT_TOKENS = ['<|im_start|>', '<|im_end|>'] as const;

/** The tiny decoder's vocabulary: {@link buildVocabulary}, then {@link CHAT_TOKENS} (ids 1000 and 1001). */
export function buildDecoderVocabulary(): string[] {
  return [...buildVocabulary(), ...CHAT_TOKENS];
}
