import { describe, expect, it } from 'vitest';
import { isReadable, measureReadability } from '../../src/ingest/readable.ts';

const pua = (s: string) => [...s].map((c) => String.fromCharCode(0xe000 + c.charCodeAt(0))).join('');
/** What a subset font numbered in order of first use gives: each distinct character becomes "!", "\"", "#"… */
const firstUseOrder = (s: string) => {
  const order = new Map<string, number>();
  return [...s].map((c) => String.fromCharCode(order.get(c) ?? order.set(c, 0x21 + order.size).get(c)!)).join('');
};

describe('isReadable', () => {
  it('rejects the garbage of fonts that do not map to characters', () => {
    const sentence = 'The tenant pays the rent on the first day of each month.';
    const garbage = [
      pua(sentence), // private-use glyphs (shown as boxes or nothing)
      pua(sentence).replace(/\uE020/g, ' '), // …with real spaces between them
      '\uFFFD\uFFFD\uFFFD \uFFFD\uFFFD\uFFFD\uFFFD \uFFFD\uFFFD',
      '\u0001\u0002\u0003\u0004 \u0005\u0006\u0003\u0007\u0002\u0008',
      '\u0080\u0091\u0092\u0093\u0094\u0095 \u0096\u0097\u0098',
      'ÿþ',
      'ÿþÿþ ÿþÿþÿþ ÿþ ÿþÿþÿþÿþ ÿþÿþ',
      '!"#$%&\'()*+',
      firstUseOrder(sentence),
      firstUseOrder(`${sentence} The deposit is returned within fourteen days.`).replace(/\$/g, ' '),
      'ÃƒÂ©ÃƒÂ¨ ÃƒÂ  ÃƒÂ§ÃƒÂ¹ Ã¢â‚¬â„¢',
    ];
    for (const g of garbage) expect(isReadable(g), JSON.stringify(g)).toBe(false);
  });

  it('accepts prose in any script, code, formulas, tables of numbers and short pages', () => {
    const text = [
      'The tenant pays the rent on the first day of each month.',
      'if (!(x && y)) { return; } const z = a[i] + b[j] * c;',
      '∀ε>0 ∃δ>0: |x−a|<δ ⇒ |f(x)−f(a)|<ε',
      'x² + y² = z², E = mc², ∫₀¹ f(x) dx, α + β = γ',
      '1,234 | 5.6 | 7.8% | 9,012 | 3.4\n2,345 | 6.7 | 8.9% | 0,123 | 4.5',
      'Page 3',
      '— 3 —',
      '•',
      '租金应于每月五日前支付，押金在十四天内退还。',
      '賃料は毎月五日までに支払う。敷金は十四日以内に返還する。',
      'يدفع المستأجر الإيجار في اليوم الأول من كل شهر.',
      'השוכר משלם את שכר הדירה ביום הראשון של כל חודש.',
      'Арендатор платит арендную плату в первый день каждого месяца.',
      '임차인은 매월 첫날 임대료를 지불한다.',
      'Ο μισθωτής πληρώνει το ενοίκιο την πρώτη ημέρα κάθε μήνα.',
      'ผู้เช่าชำระค่าเช่าในวันแรกของทุกเดือน',
      'किरायेदार हर महीने के पहले दिन किराया देता है।',
      'Le locataire paie le loyer à l’échéance ; Größe, Straße, Ørsted, çà et là, où',
      'https://example.com/a/b?c=d&e=f#g ---- ==== )))) **** ....',
      '', // nothing to say about no text
    ];
    for (const t of text) expect(isReadable(t), t).toBe(true);
  });

  it('reads an index or contents page with dot leaders as text (found on the Bash manual\'s index pages)', () => {
    const leaders = ' .'.repeat(46);
    const page = ['D.1 Index of Shell Builtin Commands', ':', '[', 'alias', 'bg', 'bind', 'break', 'builtin', 'caller', 'cd']
      .map((entry, i) => `${entry} ${leaders} ${40 + i}`)
      .join('\n');
    expect(isReadable(page)).toBe(true);
    expect(isReadable('Contents\n1 Introduction.......................3\n2 Definitions……………………7')).toBe(true);
  });

  it('judges a page by the share of its text: a few odd glyphs in prose do not make it unreadable', () => {
    const prose = 'The deposit is returned within fourteen days of the end of the lease.';
    expect(isReadable(`\uF0B7 ${prose} \uF0B7 ${prose} ÿþ !"#$%&`)).toBe(true);
    expect(isReadable(`${prose} ${pua(prose)}`)).toBe(false);
  });

  it('counts code points, not UTF-16 units, and treats unpaired surrogates as bad', () => {
    expect(measureReadability('𝑥𝑦 𠀀𠀁')).toMatchObject({ chars: 4, bad: 0, words: 4 });
    expect(measureReadability('\uD800\uD801\uDC00x')).toMatchObject({ chars: 3, bad: 1 });
    expect(isReadable('\u{F0000}\u{F0001}\u{100000}')).toBe(false);
  });

  it('reads megabytes in linear time', () => {
    const big = (n: number) => `${'!"#$%&ÿþ'.repeat(n)} ${'word '.repeat(n)}`;
    const time = (n: number) => {
      const t = performance.now();
      measureReadability(big(n));
      return performance.now() - t;
    };
    time(10_000);
    const small = time(50_000);
    const large = time(200_000);
    expect(large).toBeLessThan(10 * Math.max(small, 5));
  });
});
