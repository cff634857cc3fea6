import type { ChatMessage } from '../../api/types';
import { DateTime } from '../../components/DateTime';

/** A link only for web addresses; anything else is shown as plain text. */
function Source({ url }: { url: string }) {
  let web = false;
  try {
    web = ['http:', 'https:'].includes(new URL(url).protocol);
  } catch {
    web = false;
  }
  return web ? (
    <a href={url} target="_blank" rel="noopener noreferrer nofollow">
      {url}
    </a>
  ) : (
    <span>{url}</span>
  );
}

/** A message as the transcript shows it: a chat message, or a handoff message with its author. */
export type TranscriptMessage = Pick<ChatMessage, 'id' | 'role' | 'content' | 'created_at'> &
  Partial<Pick<ChatMessage, 'source_urls' | 'feedback'>> & { author_kind?: 'person' | null; author_label?: string | null };

const FEEDBACK_TEXT = { positive: 'Rated helpful', negative: 'Rated not helpful' } as const;

/**
 * A conversation's messages in order: who wrote each (the visitor or the bot, or a person when the
 * message says so), when, the text as text, the sources of an answer and the visitor's feedback.
 * Used by the Conversations, Leads and Handoff pages.
 */
export function Transcript({ messages, label = 'Transcript', empty = 'No messages.' }: { messages: TranscriptMessage[]; label?: string; empty?: string }) {
  if (messages.length === 0) return <p className="empty">{empty}</p>;
  return (
    <ol className="transcript" aria-label={label}>
      {messages.map((m) => {
        const who = m.role === 'user' ? 'Visitor' : m.author_kind === 'person' ? `${m.author_label ?? 'A person'} (person)` : 'Bot';
        return (
          <li key={m.id} className={`transcript__message transcript__message--${m.role}`}>
            <div className="transcript__meta">
              <span className="transcript__who">{who}</span>
              <span className="muted small">
                <DateTime value={m.created_at} />
              </span>
            </div>
            <p className="transcript__text">{m.content}</p>
            {m.source_urls && m.source_urls.length > 0 ? (
              <div className="transcript__sources">
                <span className="muted small">Sources:</span>
                <ul>
                  {m.source_urls.map((u) => (
                    <li key={u}>
                      <Source url={u} />
                    </li>
                  ))}
                </ul>
              </div>
            ) : null}
            {m.feedback ? <p className={`transcript__feedback transcript__feedback--${m.feedback}`}>{FEEDBACK_TEXT[m.feedback]}</p> : null}
          </li>
        );
      })}
    </ol>
  );
}
