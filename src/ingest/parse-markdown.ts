import type { Block, ParsedDoc } from '../core/types.ts';
import { linesToParagraphs } from './clean.ts';
import { decodeText } from './parse-text.ts';

/**
 * Strips inline Markdown syntax that would only add noise to search and quotes. Link text and
 * destinations stop at the next bracket or parenthesis, which keeps every pattern linear (a line of
 * 50k `[` would otherwise be rescanned from each one).
 */
function stripInline(line: string): string {
  return line
    .replace(/!\[([^[\]]*)\]\([^()]*\)/g, '$1')
    .replace(/\[([^[\]]*)\]\([^()]*\)/g, '$1')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/^\s{0,3}(>\s?)+/, '')
    .replace(/^\s*([-*+]|\d+[.)])\s+/, '');
}

const ATX_OPEN = /^\s{0,3}(#{1,6})\s/;

/**
 * An ATX heading's level and text ("## Install ##" → 2, "Install"), or undefined. The closing `#`s
 * are removed only after a space, so "# C#" stays "C#". Scanned, not matched: a regex with lazy
 * content and optional closing parts backtracks cubically on a long run of spaces.
 */
export function atxHeading(line: string): { level: number; text: string } | undefined {
  const open = ATX_OPEN.exec(line);
  if (!open) return undefined;
  const rest = line.slice(open[0].length).trimEnd();
  let end = rest.length;
  while (end > 0 && rest[end - 1] === '#') end--;
  const closed = end === 0 || /\s/.test(rest[end - 1]!);
  return { level: open[1]!.length, text: (closed ? rest.slice(0, end) : rest).trim() };
}

/**
 * Markdown: one block per section, labelled with its heading path ("Setup › Install").
 * ATX (`#`) and setext (`===`, `---`) headings; fenced code is kept as text, never read as headings.
 */
export function parseMarkdown(bytes: Uint8Array, name: string): ParsedDoc {
  const lines = decodeText(bytes, name).replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  const path: string[] = [];
  let body: string[] = [];
  let title: string | undefined;
  let inFence = false;
  const flush = () => {
    const paragraphs = linesToParagraphs(body);
    if (paragraphs.length) {
      const section = path.filter(Boolean).join(' › ');
      blocks.push({ label: section || 'beginning', section: section || undefined, text: paragraphs.join('\n\n') });
    }
    body = [];
  };
  const heading = (level: number, text: string) => {
    flush();
    path.length = level - 1;
    path[level - 1] = text;
    title ??= text;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (/^\s{0,3}(```|~~~)/.test(line)) {
      inFence = !inFence;
      body.push('');
      continue;
    }
    if (inFence) {
      body.push(line);
      continue;
    }
    const atx = atxHeading(line);
    const next = lines[i + 1] ?? '';
    if (atx) heading(atx.level, stripInline(atx.text));
    else if (line.trim() && /^\s{0,3}(=+|-+)\s*$/.test(next) && (i === 0 || !(lines[i - 1] ?? '').trim())) {
      heading(next.trim().startsWith('=') ? 1 : 2, stripInline(line.trim()));
      i++;
    } else body.push(stripInline(line));
  }
  flush();
  return { title, blocks };
}
