/**
 * Whether bytes so far can still become one JSON object (of a given {@link JsonShape}, when one is
 * given): the check a constrained decoder makes before it takes a token (`gguf/gguf-generator.ts` keeps,
 * at each step, the likeliest token that passes). Pure and incremental, over UTF-8 bytes: every
 * structural character of JSON is ASCII, so a byte of 0x80 or more is allowed only inside a string, and
 * a token that ends mid-character is checked as it is.
 *
 * Accepts exactly the prefixes of RFC 8259 texts whose top value is an object, with whitespace between
 * tokens bounded ({@link MAX_SPACE} in a row, enough for a newline and indentation: a small model
 * otherwise pads with spaces until its budget runs out), and `complete` once the top object is closed.
 * With a shape, an object takes only its named keys (each once, in any order, except that its `required`
 * keys come first, in their order, and it cannot close without them), each value of its type, strings up
 * to their length, arrays within their item counts.
 */
import type { JsonShape } from './generator.ts';

/** Most whitespace bytes in a row between JSON tokens. */
export const MAX_SPACE = 16;

/** Longest number, in characters. */
const MAX_NUMBER = 64;

/** Where the parser is: what the next byte may be. */
type Mode =
  | 'start' // before the top object's "{"
  | 'value' // a value must start
  | 'key-or-close' // after "{": a key or "}"
  | 'key' // after ",": a key
  | 'colon' // after a key
  | 'after' // after a value: "," or the container's close
  | 'value-or-close' // after "[": a value or "]"
  | 'string' // inside a string
  | 'escape' // after a backslash in a string
  | 'unicode' // inside \uXXXX
  | 'number'
  | 'literal' // inside true/false/null
  | 'done';

/** An open object or array, with its shape (when the top one had one) and what it has taken. */
interface Container {
  open: 0x7b | 0x5b;
  shape: JsonShape | undefined;
  /** Keys written so far (objects). */
  used: string[];
  /** Items so far (arrays). */
  items: number;
}

const SPACE = new Set([0x20, 0x0a, 0x0d, 0x09]);
const isDigit = (b: number) => b >= 0x30 && b <= 0x39;
const isHex = (b: number) => isDigit(b) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66);
const LITERALS: Record<number, string> = { 0x74: 'rue', 0x66: 'alse', 0x6e: 'ull' };

export class JsonObjectPrefix {
  private mode: Mode = 'start';
  private stack: Container[] = [];
  /** The shape the next value must have (undefined: any). */
  private expected: JsonShape | undefined;
  /** Whether the string being read is a key (a colon follows it), its text so far, and its length limit. */
  private isKey = false;
  private keyText = '';
  private stringBytes = 0;
  private stringMax = Infinity;
  private hexLeft = 0;
  /** The number read so far (its grammar is checked on the text) or the literal's remaining letters. */
  private pending = '';
  private spaces = 0;

  /** `shape`: the top object's shape (its `type` must be 'object'); default any object. */
  constructor(private readonly shape?: JsonShape) {
    this.expected = shape;
  }

  /** The top object is closed: nothing may follow. */
  get complete(): boolean {
    return this.mode === 'done';
  }

  clone(): JsonObjectPrefix {
    const copy = new JsonObjectPrefix(this.shape);
    Object.assign(copy, this, { stack: this.stack.map((c) => ({ ...c, used: [...c.used] })) });
    return copy;
  }

  /** Takes `bytes` if the text stays a prefix; returns false (and its state is then unknown) otherwise. */
  push(bytes: Uint8Array): boolean {
    for (const b of bytes) if (!this.step(b)) return false;
    return true;
  }

  /** `push` on a copy: this state is unchanged. The copy is returned when the bytes pass. */
  try(bytes: Uint8Array): JsonObjectPrefix | undefined {
    const copy = this.clone();
    return copy.push(bytes) ? copy : undefined;
  }

  private space(b: number): boolean {
    if (!SPACE.has(b)) return false;
    this.spaces++;
    return this.spaces <= MAX_SPACE;
  }

  private get top(): Container | undefined {
    return this.stack.at(-1);
  }

  /** The shape of `key`'s value in the innermost object (undefined: any). */
  private propertyShape(key: string): JsonShape | undefined {
    const shape = this.top?.shape;
    return shape?.type === 'object' ? shape.properties[key] : undefined;
  }

  /** Whether `text` can still grow into a key the innermost object takes (`whole`: it is one). */
  private keyFits(text: string, whole: boolean): boolean {
    const top = this.top!;
    if (top.shape?.type !== 'object') return true;
    // While a required key is missing, it is the only one that may come next.
    const due = top.shape.required?.find((k) => !top.used.includes(k));
    const names = due !== undefined ? [due] : Object.keys(top.shape.properties).filter((k) => !top.used.includes(k));
    return whole ? names.includes(text) : names.some((k) => k.startsWith(text));
  }

  /** Whether the innermost object may close: it holds every required key. */
  private mayClose(): boolean {
    const top = this.top!;
    return top.shape?.type !== 'object' || (top.shape.required ?? []).every((k) => top.used.includes(k));
  }

  private open(b: 0x7b | 0x5b): void {
    this.stack.push({ open: b, shape: this.expected, used: [], items: 0 });
    this.mode = b === 0x7b ? 'key-or-close' : 'value-or-close';
  }

  private closeValue(): void {
    this.mode = this.stack.length === 0 ? 'done' : 'after';
  }

  private startKey(b: number): boolean {
    if (b !== 0x22) return this.space(b);
    this.isKey = true;
    this.keyText = '';
    this.stringBytes = 0;
    this.stringMax = Infinity;
    this.mode = 'string';
    return true;
  }

  /** A value starts with `b`, if the expected shape allows it. */
  private startValue(b: number): boolean {
    const want = this.expected?.type;
    const allowed = (type: JsonShape['type'] | 'number' | 'null') => want === undefined || want === type;
    if (b === 0x7b && allowed('object')) this.open(b);
    else if (b === 0x5b && allowed('array')) this.open(b);
    else if (b === 0x22 && allowed('string')) {
      this.isKey = false;
      this.stringBytes = 0;
      this.stringMax = this.expected?.type === 'string' ? (this.expected.maxLength ?? Infinity) : Infinity;
      this.mode = 'string';
    } else if ((b === 0x2d || isDigit(b)) && allowed('number')) {
      this.pending = String.fromCharCode(b);
      this.mode = 'number';
    } else if ((b === 0x74 || b === 0x66) && allowed('boolean')) {
      this.pending = LITERALS[b]!;
      this.mode = 'literal';
    } else if (b === 0x6e && (want === undefined || (this.expected?.type === 'string' && this.expected.nullable === true))) {
      this.pending = LITERALS[b]!;
      this.mode = 'literal';
    } else return false;
    return true;
  }

  /** The next array item may start (its count allows it); its shape is the array's items'. */
  private nextItem(): boolean {
    const top = this.top!;
    const shape = top.shape?.type === 'array' ? top.shape : undefined;
    if (shape?.maxItems !== undefined && top.items >= shape.maxItems) return false;
    top.items++;
    this.expected = shape?.items;
    this.mode = 'value';
    return true;
  }

  /** Whether the innermost array holds as many items as its shape's `minItems`. */
  private enoughItems(): boolean {
    const top = this.top!;
    return top.shape?.type !== 'array' || top.items >= (top.shape.minItems ?? 0);
  }

  /** Whether `text` can still grow into a JSON number, and whether it is one already. */
  private static number(text: string): { prefix: boolean; whole: boolean } {
    const whole = /^-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?$/.test(text);
    const prefix = whole || /^-?$|^-?(0|[1-9]\d*)(\.\d*)?([eE][-+]?\d*)?$/.test(text);
    return { prefix: prefix && text.length <= MAX_NUMBER, whole };
  }

  private step(b: number): boolean {
    if (this.mode !== 'string' && this.mode !== 'escape' && this.mode !== 'unicode' && b >= 0x80) return false;
    if (!SPACE.has(b)) this.spaces = 0;
    switch (this.mode) {
      case 'done':
        return false;
      case 'start':
        if (b === 0x7b) {
          this.open(b);
          return true;
        }
        return this.space(b);
      case 'value':
        return this.space(b) || this.startValue(b);
      case 'value-or-close':
        if (b === 0x5d) {
          if (!this.enoughItems()) return false;
          this.stack.pop();
          this.closeValue();
          return true;
        }
        if (SPACE.has(b)) return this.space(b);
        return this.nextItem() && this.startValue(b);
      case 'key-or-close':
        if (b === 0x7d) {
          if (!this.mayClose()) return false;
          this.stack.pop();
          this.closeValue();
          return true;
        }
        return this.startKey(b);
      case 'key':
        return this.startKey(b);
      case 'colon':
        if (b === 0x3a) {
          this.mode = 'value';
          return true;
        }
        return this.space(b);
      case 'after': {
        const open = this.top!.open;
        if (b === 0x2c) {
          if (open === 0x7b) {
            // No "," before a key the shape does not have left.
            if (!this.keyFits('', false)) return false;
            this.mode = 'key';
            return true;
          }
          return this.nextItem();
        }
        if ((b === 0x7d && open === 0x7b && this.mayClose()) || (b === 0x5d && open === 0x5b && this.enoughItems())) {
          this.stack.pop();
          this.closeValue();
          return true;
        }
        return this.space(b);
      }
      case 'string':
        if (b === 0x22) {
          if (!this.isKey) {
            this.closeValue();
            return true;
          }
          if (!this.keyFits(this.keyText, true)) return false;
          this.top!.used.push(this.keyText);
          this.expected = this.propertyShape(this.keyText);
          this.mode = 'colon';
          return true;
        }
        if (++this.stringBytes > this.stringMax) return false;
        if (this.isKey) {
          // Keys the shape names are plain ASCII: no escapes, no other bytes.
          if (this.top!.shape?.type === 'object' && (b === 0x5c || b >= 0x80)) return false;
          this.keyText += String.fromCharCode(b);
          if (!this.keyFits(this.keyText, false)) return false;
        }
        if (b === 0x5c) {
          this.mode = 'escape';
          return true;
        }
        return b >= 0x20; // control characters must be escaped
      case 'escape':
        if (b === 0x75) {
          this.mode = 'unicode';
          this.hexLeft = 4;
          return true;
        }
        if ('"\\/bfnrt'.includes(String.fromCharCode(b))) {
          this.mode = 'string';
          return true;
        }
        return false;
      case 'unicode':
        if (!isHex(b)) return false;
        if (--this.hexLeft === 0) this.mode = 'string';
        return true;
      case 'number': {
        const next = this.pending + String.fromCharCode(b);
        if (JsonObjectPrefix.number(next).prefix) {
          this.pending = next;
          return true;
        }
        // The number ended: it must be whole, and this byte must follow a value.
        if (!JsonObjectPrefix.number(this.pending).whole) return false;
        this.pending = '';
        this.closeValue();
        return this.step(b);
      }
      case 'literal':
        if (String.fromCharCode(b) !== this.pending[0]) return false;
        this.pending = this.pending.slice(1);
        if (this.pending === '') this.closeValue();
        return true;
    }
  }
}
