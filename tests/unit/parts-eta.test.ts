import { describe, expect, it } from 'vitest';
import { partsEta } from '../../src/ui/format.ts';

describe('partsEta (time left while a whole document is read in parts)', () => {
  it('says nothing before a part is done, in the first second, or once all are done', () => {
    expect(partsEta(0, 12, 5_000)).toBe('');
    expect(partsEta(3, 12, 900)).toBe('');
    expect(partsEta(12, 12, 60_000)).toBe('');
  });

  it('is the time per part so far times the parts left', () => {
    expect(partsEta(3, 12, 6_000)).toBe(', about 18 s left');
    expect(partsEta(5, 60, 10_000)).toBe(', about 2 min left');
    expect(partsEta(5, 3852, 10_000)).toBe(', about 2 h left');
  });
});
