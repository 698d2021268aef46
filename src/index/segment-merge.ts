/**
 * Merging a lexical index's segments into one: a k-way merge of their sorted term dictionaries, chunks
 * left out where deleted and the rest renumbered in order, resumable so that the library's worker merges
 * a slice at a time between questions (decision 0036).
 */
import { compareBytes, type LexicalSegment } from './lexical-segment.ts';
import { SegmentBuilder } from './segment-builder.ts';

/** A segment to merge, and which of its chunks to leave out. */
export interface MergeInput {
  segment: LexicalSegment;
  /** 1 at the ordinal of each chunk to leave out. */
  deleted?: Uint8Array;
}

/**
 * A k-way merge of segments' sorted term dictionaries into one segment, resumable: {@link run} merges
 * terms until a deadline and can be called again, so merging a 500k-chunk index (seconds) never holds
 * the worker longer than a slice. The inputs must not change meanwhile (segments never do; a chunk
 * deleted meanwhile is carried over by the caller, through {@link remaps}).
 */
export class SegmentMerge {
  private readonly builder = new SegmentBuilder();
  /** Per input, its ordinals → the merged segment's (−1: left out, deleted when the merge began). */
  readonly remaps: Int32Array[];
  private readonly next: Uint32Array;
  private ordinals = new Uint32Array(1024);
  private frequencies = new Uint32Array(1024);
  private finished = false;

  constructor(private readonly parts: readonly MergeInput[]) {
    this.remaps = parts.map(({ segment, deleted }) => {
      const remap = new Int32Array(segment.size);
      for (let i = 0; i < segment.size; i++) remap[i] = deleted?.[i] ? -1 : this.builder.chunk(segment.ids[i]!, segment.lengths[i]!);
      return remap;
    });
    this.next = new Uint32Array(parts.length);
  }

  /**
   * Merges terms until every term is merged (true) or `performance.now()` passes `deadline` (false:
   * call again), looking at the clock every `termsPerLook` terms (so each call merges at least that many).
   */
  run(deadline = Infinity, termsPerLook = 256): boolean {
    const { parts, next } = this;
    for (let merged = 0; !this.finished; merged++) {
      if (merged > 0 && merged % termsPerLook === 0 && performance.now() >= deadline) return false;
      let smallest: Uint8Array | undefined;
      for (let p = 0; p < parts.length; p++) {
        const { segment } = parts[p]!;
        if (next[p]! >= segment.termCount) continue;
        const term = segment.termAt(next[p]!);
        if (!smallest || compareBytes(term, smallest) < 0) smallest = term;
      }
      if (!smallest) {
        this.finished = true;
        break;
      }
      let count = 0;
      for (let p = 0; p < parts.length; p++) {
        const { segment } = parts[p]!;
        const t = next[p]!;
        if (t >= segment.termCount || compareBytes(segment.termAt(t), smallest) !== 0) continue;
        next[p]!++;
        if (count + segment.frequency(t) > this.ordinals.length) {
          const size = 2 * (count + segment.frequency(t));
          const grownOrdinals = new Uint32Array(size);
          const grownFrequencies = new Uint32Array(size);
          grownOrdinals.set(this.ordinals.subarray(0, count));
          grownFrequencies.set(this.frequencies.subarray(0, count));
          this.ordinals = grownOrdinals;
          this.frequencies = grownFrequencies;
        }
        count = segment.decodeInto(t, this.remaps[p]!, this.ordinals, this.frequencies, count);
      }
      this.builder.term(smallest, this.ordinals, this.frequencies, count);
    }
    return true;
  }

  /** The merged segment, once {@link run} returned true. */
  result(): LexicalSegment {
    if (!this.finished) throw new Error('lexical segment: the merge is not finished');
    return this.builder.done();
  }
}
