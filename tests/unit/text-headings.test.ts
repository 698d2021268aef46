import { describe, expect, it } from 'vitest';
import { textHeading, underlinedHeading } from '../../src/ingest/text-headings.ts';

const alone = (line: string, next = '   Body text.') => textHeading([line], next);

describe('plain-text headings', () => {
  it('reads numbered, appendix and capitalised headings, spaces collapsed', () => {
    expect(alone('4.6.1.  New Session Ticket Message')).toBe('4.6.1. New Session Ticket Message');
    expect(alone('10.4.15 414 Request-URI Too Long')).toBe('10.4.15 414 Request-URI Too Long');
    expect(alone('Appendix A.  State Machine')).toBe('Appendix A. State Machine');
    expect(alone('B.3.1.  Key Exchange Messages')).toBe('B.3.1. Key Exchange Messages');
    expect(alone('1.  Introduction')).toBe('1. Introduction');
    expect(alone('5 Security Considerations', 'Body.')).toBe('5 Security Considerations');
    expect(alone('SHELL GRAMMAR', 'Body.')).toBe('SHELL GRAMMAR');
    expect(alone('   CHAPTER IV.', 'It was late.')).toBe('CHAPTER IV.');
  });

  it('reads a capitalised line followed by indented text as a heading (man pages)', () => {
    expect(textHeading(['NAME', '       widget - move widgets'], undefined)).toBe('NAME');
    expect(textHeading(['NOTICE', 'This line is not indented.'], undefined)).toBeUndefined();
    expect(textHeading(['1.  Introduction', '   indented'], undefined)).toBeUndefined();
  });

  it('reads an unnumbered line in column 0 as a heading only when the next paragraph is indented', () => {
    expect(alone('Status of This Memo')).toBe('Status of This Memo');
    expect(alone('Status of This Memo', 'Body at the margin.')).toBeUndefined();
    expect(alone('The end.')).toBeUndefined();
    expect(alone('RFC 9999                 WXP                 March 2031')).toBeUndefined();
  });

  it('leaves list items, sentences, numbers and tables of contents alone', () => {
    expect(textHeading(['Steps:', '1.  Install It'], undefined)).toBeUndefined();
    expect(textHeading(['1.  Install It', '2.  Run It'], undefined)).toBeUndefined();
    expect(alone('   1.  The Sender Announces')).toBeUndefined();
    expect(alone('1. Install the package.')).toBeUndefined();
    expect(alone('2. Do the following:')).toBeUndefined();
    expect(alone('100 people came')).toBeUndefined();
    expect(alone('3.14 is close to pi')).toBeUndefined();
    expect(alone('12.05.2023 Meeting')).toBeUndefined();
    expect(alone('1.  Introduction . . . . . . . . . . . .   5')).toBeUndefined();
    expect(alone('2 Scope.........................3')).toBeUndefined();
    expect(alone('INTRODUCTION..........3')).toBeUndefined();
    expect(alone('-----------')).toBeUndefined();
    expect(alone('+------+------+')).toBeUndefined();
    expect(alone('NOTE: see below', 'Body.')).toBeUndefined();
    expect(alone('I', 'Body.')).toBeUndefined();
    expect(alone(`4.2  ${'Very '.repeat(20)}Long`)).toBeUndefined();
  });

  it('reads a line under a rule, or between two rules, as a heading (reStructuredText, setext, READMEs)', () => {
    expect(underlinedHeading(['Installation', '============'])).toEqual({ heading: 'Installation', lines: 2 });
    expect(underlinedHeading(['=================', ' Release   notes ', '================='])).toEqual({ heading: 'Release notes', lines: 3 });
    expect(underlinedHeading(['What is new in 3.12?', '~~~~~~~~~~~~~~~~~~~~', 'Body follows.'])).toEqual({ heading: 'What is new in 3.12?', lines: 2 });
    // Not headings: a short rule under a long line, table column rules, rules of different marks, a rule alone.
    expect(underlinedHeading(['The tenant pays the rent on the first day of each month', '---'])).toBeUndefined();
    expect(underlinedHeading(['Name      Value', '----      -----'])).toBeUndefined();
    expect(underlinedHeading(['=====', 'Title', '-----'])).toBeUndefined();
    expect(underlinedHeading(['-----', '=====' ])).toBeUndefined();
    expect(underlinedHeading(['2024', '====='])).toBeUndefined();
    expect(underlinedHeading(['Body text.'])).toBeUndefined();
  });
});
