/** A UTF-16 surrogate without its partner (a high one not followed by a low one, or the reverse). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Text that PostgreSQL can store in a text column and in json: lone UTF-16 surrogates become
 * U+FFFD (the replacement character), NUL characters are dropped. Everything a chat turn stores or
 * streams goes through this, so odd model output or passage text can never make the save fail,
 * and what is stored is what the visitor saw.
 */
export function storable(text: string): string {
  return text.replace(LONE_SURROGATE, '\ufffd').replace(/\u0000/g, '');
}

/**
 * The reply as it streams, made storable piece by piece. A high surrogate that ends a piece is
 * held back until the next one (its low surrogate may come there), so a character split across
 * two pieces survives; `end()` lets out what is held. `text` is everything emitted.
 */
export class StorableStream {
  private held = '';
  private emitted = '';

  constructor(private readonly emit: (piece: string) => void) {}

  get text(): string {
    return this.emitted;
  }

  push(piece: string): void {
    let s = this.held + piece;
    this.held = '';
    const last = s.charCodeAt(s.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      this.held = s.slice(-1);
      s = s.slice(0, -1);
    }
    this.out(storable(s));
  }

  end(): void {
    const held = this.held;
    this.held = '';
    this.out(storable(held));
  }

  private out(s: string): void {
    if (!s) return;
    this.emitted += s;
    this.emit(s);
  }
}
