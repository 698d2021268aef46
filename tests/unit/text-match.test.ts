import { describe, expect, it } from 'vitest';
import { findInItems } from '../../src/ui/text-match.ts';

describe('findInItems (the cited sentence in a PDF text layer)', () => {
  it('finds a sentence across items, whatever the spacing, as one piece per item', () => {
    const items = ['The tenant pays the rent.', '', 'The landlord returns the security deposit', ' ', 'within fourteen  days.'];
    const ranges = findInItems(items, 'The landlord returns the security deposit within fourteen days.');
    expect(ranges).toEqual([
      { item: 2, start: 0, end: items[2]!.length },
      { item: 4, start: 0, end: items[4]!.length },
    ]);
    expect(findInItems(['The landlord returns the', 'deposit within 14 days.'], 'returns the deposit')).toEqual([
      { item: 0, start: 13, end: 24 },
      { item: 1, start: 0, end: 7 },
    ]);
  });

  it('finds nothing for text that is not on the page, or no text', () => {
    expect(findInItems(['The tenant pays the rent.'], 'The landlord repairs the roof.')).toEqual([]);
    expect(findInItems(['The tenant pays the rent.'], '  ')).toEqual([]);
  });
});
