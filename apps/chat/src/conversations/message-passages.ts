import { MESSAGE_PASSAGE_TEXT_MAX, MessagePassageView, PassageView } from '@sa/contracts';
import { storable } from '../turns/storable-text';

/** Most passages kept with one answer: knowledge.passage.search's own maximum (k ≤ 50). */
export const MESSAGE_PASSAGES_MAX = 50;
/** Longest title kept (characters): a document title's maximum (KB_TITLE_MAX). */
const TITLE_MAX = 300;
/** Longest source URL kept (characters). */
const URL_MAX = 2048;

/**
 * Characters of passage JSON one console transcript carries at most (chat.conversation.transcript):
 * the reply must stay well under NATS's 1 MB beside the messages themselves. The latest answers keep
 * their passages; older ones beyond this get `passages_omitted`.
 */
export const TRANSCRIPT_PASSAGES_BUDGET = 400_000;

/** The first `max` characters (code points, so a character is never split), made storable. */
function clip(text: string, max: number): string {
  const chars = Array.from(text);
  return storable(chars.length > max ? chars.slice(0, max).join('') : text);
}

/**
 * What an answer keeps of the passages its turn was given (issue 32, "Why this answer"): in the
 * order given (best first), at most MESSAGE_PASSAGES_MAX, each text clipped to
 * MESSAGE_PASSAGE_TEXT_MAX characters.
 */
export function passageRecords(passages: readonly PassageView[]): MessagePassageView[] {
  return passages.slice(0, MESSAGE_PASSAGES_MAX).map((p) => ({
    document_id: p.document_id,
    title: p.title === null || p.title === undefined ? null : clip(p.title, TITLE_MAX),
    chunk: p.chunk_id ?? null,
    score: Number.isFinite(p.score) ? p.score : 0,
    text: clip(p.text ?? '', MESSAGE_PASSAGE_TEXT_MAX),
    source_url: p.source_url ? clip(p.source_url, URL_MAX) : null,
  }));
}
