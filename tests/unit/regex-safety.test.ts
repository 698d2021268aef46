import { checkSync, type Diagnostics } from 'recheck';
import { describe, expect, it } from 'vitest';
import { sourceRegexes } from '../support/source-regexes.ts';

// Every regular expression that runs over document text, found by parsing the source: a new one is
// checked without anyone having to register it.
const { regexes, dynamic } = sourceRegexes(process.cwd());

// recheck's pure-JS backend runs in this thread: no Java, no native binary, no network.
process.env.RECHECK_SYNC_BACKEND = 'pure';

/**
 * recheck's fuzzer bounds its work by steps and, by default, also by wall-clock timeouts (incubation
 * 250 ms, attack 1 s, seeding 100 ms): on a busy machine those made results vary from run to run. With the
 * timeouts off and a fixed seed, the verdict depends only on the pattern.
 */
const DETERMINISTIC = { randomSeed: 1, timeout: null, attackTimeout: null, incubationTimeout: null, seedingTimeout: null };

function describeRisk(d: Diagnostics): string {
  if (d.status === 'vulnerable') return `${d.complexity.summary}, attack ${d.attack.pattern}`;
  if (d.status === 'unknown') return `unknown (${d.error.kind})`;
  return d.complexity.summary;
}

/** Repeated units an attacker (or an unlucky file) can fill a line or a document with. */
const UNITS = [' ', '\t', '\n', '#', '[', '(', '*', '_', '!', '`', '.', '-', '=', '>', '<', '&', "'", '\u00AD',
  '# ', ' #', '![', '[a](', '**a', '__a', '` ', '\n ', ' \n', '\n\n', '. ', '.)', 'a-', '1.', '<dc:title>', 'é'];

/** Adversarial inputs of about `size` characters: a unit repeated, alone or inside a failing frame. */
function inputs(size: number): string[] {
  return UNITS.flatMap((u) => {
    const run = u.repeat(Math.ceil(size / u.length));
    return [run, `# a${run}b`, `${run}\u0000`, `a${run}\n`];
  });
}

/** Runs `re` the way the code does: every match of a global regex, else one search. */
function runAll(re: RegExp, texts: string[]): number {
  const start = performance.now();
  for (const text of texts) {
    if (re.global) for (const _ of text.matchAll(re));
    else re.exec(text);
  }
  return performance.now() - start;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

describe('regular expressions over document text', () => {
  it('are found in the source, and none is built at run time', () => {
    expect(regexes.length).toBeGreaterThan(20);
    expect(regexes.map((r) => `${r.where.split(':')[0]} /${r.source}/${r.flags}`)).toContain("src/text/tokenize.ts /[\\p{L}\\p{N}]+(?:['’][\\p{L}]+)?/gu");
    expect(dynamic, 'RegExp(...) cannot be checked: write a literal').toEqual([]);
  });

  it('cannot backtrack super-linearly (recheck)', () => {
    const risky = regexes
      .map((r) => ({ ...r, d: checkSync(r.source, r.flags, DETERMINISTIC) }))
      .filter(({ d }) => d.status !== 'safe')
      .map(({ where, source, flags, d }) => `${where} /${source}/${flags}: ${describeRisk(d)}`);
    expect(risky).toEqual([]);
  }, 120_000);

  it('take linear time on long runs of Markdown and whitespace characters', () => {
    const small = inputs(20_000);
    const large = inputs(160_000);
    const slow = regexes.flatMap(({ where, source, flags }) => {
      const re = new RegExp(source, flags);
      // A super-linear pattern needs seconds here (the old heading regex: 2.5 s); a linear one well under a millisecond.
      const probe = runAll(re, inputs(2_000));
      if (probe > 1_000) return [`${where} /${source}/${flags}: ${probe.toFixed(0)} ms on 2k characters`];
      const t: { small: number[]; large: number[] } = { small: [], large: [] };
      for (let i = 0; i < 5 && !(t.large.at(-1)! > 2_000); i++) {
        t.small.push(runAll(re, small));
        t.large.push(runAll(re, large));
      }
      const ratio = median(t.large) / Math.max(median(t.small), 0.05);
      // 8× the input: linear ≈ 8, quadratic ≈ 64. Tiny absolute times are noise (a GC pause on a busy
      // machine), not growth: a quadratic pattern at 160k characters takes far more than 200 ms.
      return ratio > 24 && median(t.large) > 200 ? [`${where} /${source}/${flags}: ×${ratio.toFixed(1)} for 8× the input`] : [];
    });
    expect(slow).toEqual([]);
  }, 300_000);
});
