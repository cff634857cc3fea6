export interface Chunk {
  /** 0, 1, 2 … in document order. */
  ordinal: number;
  text: string;
}

export interface ChunkOptions {
  /** Maximum chunk length in UTF-16 code units (what String#length counts); default 1000. */
  chunkSize?: number;
  /** Characters repeated from the end of one chunk at the start of the next; default 150. */
  chunkOverlap?: number;
}

/**
 * Separators tried in order: paragraphs, lines, then sentence ends of CJK (。．！？ and the
 * half-width ｡), Latin, Arabic (؟ ؛) and Devanagari (। ॥), then spaces, then anything. Chinese
 * and Japanese have no spaces between words, so without their sentence ends a long paragraph
 * would be cut at an arbitrary character; Thai has no sentence mark but a space between sentences.
 * Latin . ! ? count only before a space, so 3.14, example.com and ?query=… are not sentence ends.
 */
export const CHUNK_SEPARATORS = ['\n\n', '\n', '。', '．', '！', '？', '｡', '. ', '! ', '? ', '؟', '؛', '।', '॥', ' ', ''];

/**
 * Splits keeping each separator at the END of the piece before it, so a chunk ends with its
 * sentence's "。" or "." rather than the next chunk starting with it (langchain's keepSeparator
 * puts it at the start). The empty separator splits by code point, never inside a surrogate pair.
 * Defined on first use: langchain is loaded when the first document is chunked, not when the
 * service starts (a restart is ready sooner; docs/decisions/operations.md, "Start time").
 */
let SentenceSplitter: ReturnType<typeof defineSentenceSplitter> | undefined;

function defineSentenceSplitter() {
  const { RecursiveCharacterTextSplitter } = require('@langchain/textsplitters') as typeof import('@langchain/textsplitters');
  return class extends RecursiveCharacterTextSplitter {
    protected override splitOnSeparator(text: string, separator: string): string[] {
      if (!separator) return Array.from(text);
      const out: string[] = [];
      let start = 0;
      for (let at = text.indexOf(separator); at !== -1; at = text.indexOf(separator, start)) {
        out.push(text.slice(start, at + separator.length));
        start = at + separator.length;
      }
      if (start < text.length) out.push(text.slice(start));
      return out.filter((s) => s !== '');
    }
  };
}

/**
 * Chunks of a document for embedding, with langchain's RecursiveCharacterTextSplitter: each
 * chunk is at most `chunkSize` long and breaks at the largest unit that fits (paragraph, line,
 * sentence, word). Chunks are trimmed; empty ones are dropped.
 */
export async function chunkText(text: string, options: ChunkOptions = {}): Promise<Chunk[]> {
  const { chunkSize = 1000, chunkOverlap = 150 } = options;
  SentenceSplitter ??= defineSentenceSplitter();
  const splitter = new SentenceSplitter({ chunkSize, chunkOverlap, separators: CHUNK_SEPARATORS, keepSeparator: true });
  const pieces = await splitter.splitText(text);
  return pieces
    .map((p) => p.trim())
    .filter((p) => p !== '')
    .map((p, ordinal) => ({ ordinal, text: p }));
}
