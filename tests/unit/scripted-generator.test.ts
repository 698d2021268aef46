import { describe, expect, it } from 'vitest';
import { generateText } from '../../src/models/generator/generator.ts';
import { countScriptedTokens, piecesOf, ScriptedGenerator } from '../../src/models/generator/scripted-generator.ts';

const messages = [{ role: 'user' as const, content: 'When is the rent due?' }];

async function collect(stream: AsyncIterable<string>, onPiece?: (piece: string, i: number) => void): Promise<string[]> {
  const out: string[] = [];
  for await (const piece of stream) {
    onPiece?.(piece, out.length);
    out.push(piece);
  }
  return out;
}

describe('ScriptedGenerator', () => {
  it('streams a reply word by word, the pieces adding up to the text, and records the request', async () => {
    const g = new ScriptedGenerator(['Rent is due  on the 1st [1].\n']);
    const pieces = await collect(g.stream({ messages, maxTokens: 100 }));
    expect(pieces).toEqual(['Rent', ' is', ' due', '  on', ' the', ' 1st', ' [1].', '\n']);
    expect(g.requests).toHaveLength(1);
    expect(g.requests[0]!.messages).toBe(messages);
  });

  it('takes replies from a queue in order, and says so when none is left', async () => {
    const g = new ScriptedGenerator(['one', ['t', 'wo']]);
    expect(await generateText(g, { messages })).toBe('one');
    expect(await collect(g.stream({ messages }))).toEqual(['t', 'wo']);
    await expect(generateText(g, { messages })).rejects.toThrow(/no reply left for request 3/);
  });

  it('computes replies from the messages with a function', async () => {
    const g = new ScriptedGenerator((m, request) => `${request.json ? '{}' : 'echo'}: ${m.at(-1)!.content}`);
    expect(await generateText(g, { messages })).toBe('echo: When is the rent due?');
    expect(await generateText(g, { messages, json: true })).toBe('{}: When is the rent due?');
  });

  it('stops when the signal is aborted, keeping what was written, without an error', async () => {
    const g = new ScriptedGenerator(['a b c d e f g']);
    const controller = new AbortController();
    const pieces = await collect(g.stream({ messages, signal: controller.signal }), (_, i) => i === 2 && controller.abort());
    expect(pieces).toEqual(['a', ' b', ' c']);
  });

  it('stops at maxTokens and counts tokens as characters / 4, rounded up', async () => {
    expect(countScriptedTokens('')).toBe(0);
    expect(countScriptedTokens('abcde')).toBe(2);
    expect(await new ScriptedGenerator([]).countTokens('12345678')).toBe(2);
    const g = new ScriptedGenerator(['aaaa bbb ccc ddd']);
    expect(await generateText(g, { messages, maxTokens: 2 })).toBe('aaaa bbb');
    expect(piecesOf('  x y ')).toEqual(['  x', ' y', ' ']);
  });
});
