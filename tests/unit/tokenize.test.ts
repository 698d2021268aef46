import { describe, expect, it } from 'vitest';
import { termsOf, tokenize } from '../../src/text/tokenize.ts';

describe('tokenize', () => {
  it('splits on anything but letters and digits, keeping case and possessives', () => {
    expect(tokenize("The tenant's rent, 1,200 EUR — café!")).toEqual(['The', "tenant's", 'rent', '1', '200', 'EUR', 'café']);
  });

  it('cuts Japanese, Chinese and Thai into dictionary words', () => {
    expect(tokenize('東京都に住んでいます。')).toEqual(['東京', '都', 'に', '住', 'んで', 'い', 'ます']);
    expect(tokenize('我们在北京大学学习中文')).toEqual(['我们', '在', '北京', '大学', '学习', '中文']);
    expect(tokenize('ภาษาไทยง่ายนิดเดียว')).toEqual(['ภาษา', 'ไทย', 'ง่าย', 'นิด', 'เดียว']);
  });

  it('segments only the runs from scripts without spaces in mixed text', () => {
    expect(tokenize('Release notes: 2020年の東京 version 3')).toEqual(['Release', 'notes', '2020', '年', 'の', '東京', 'version', '3']);
    expect(termsOf('コンピューターを使う computers')).toEqual(['コンピューター', 'を', '使う', 'comput']);
    expect(tokenize('iPhone用')).toEqual(['iPhone', '用']);
    const latin = "naïve ab\u0301c can't 1,200";
    expect(tokenize(`${latin} 日本`)).toEqual([...tokenize(latin), '日本']);
  });
});
