import type { ReactNode } from 'react';
import type { ChatMessage } from '../../api/types';
import { DateTime } from '../../components/DateTime';
import { ActionCalls } from './ActionCalls';

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
  Partial<Pick<ChatMessage, 'source_urls' | 'feedback' | 'passages' | 'passages_omitted' | 'actions' | 'chatbot_id'>> & { author_kind?: 'person' | null; author_label?: string | null };

export type Passage = NonNullable<ChatMessage['passages']>[number];

/** The passages a bot was given, best first: document, score, text and source, all as text. */
export function PassageList({ passages }: { passages: Passage[] }) {
  return (
    <ol className="transcript__passages" aria-label="Passages the bot was given">
      {passages.map((p, i) => (
        <li key={`${p.document_id}-${p.chunk ?? i}`} className="transcript__passage">
          <div className="transcript__passage-meta">
            <span className="transcript__passage-title">{p.title || p.document_id}</span>
            <span className="muted small">Score {p.score.toFixed(2)}</span>
          </div>
          <p className="transcript__passage-text">{p.text}</p>
          {p.source_url ? (
            <p className="small transcript__passage-source">
              <Source url={p.source_url} />
            </p>
          ) : null}
        </li>
      ))}
    </ol>
  );
}

/**
 * "Why this answer" (issue 32): the passages the bot was given for an answer, for owners and admins
 * (the API sends `passages` only to them: without it, nothing is shown). A native disclosure, so it
 * works with the keyboard and screen readers; every text is rendered as text, never as HTML.
 */
function WhyThisAnswer({ passages, omitted }: { passages: Passage[] | null; omitted: boolean }) {
  return (
    <details className="transcript__why">
      <summary>Why this answer</summary>
      {passages && passages.length > 0 ? (
        <PassageList passages={passages} />
      ) : (
        <p className="muted small transcript__passages-none">
          {omitted ? 'Not shown: this conversation is too long to show the passages of every answer.' : 'No passages recorded.'}
        </p>
      )}
    </details>
  );
}

const FEEDBACK_TEXT = { positive: 'Rated helpful', negative: 'Rated not helpful' } as const;

/**
 * A conversation's messages in order: who wrote each (the visitor or the bot, or a person when the
 * message says so), when, the text as text, the sources of an answer and the visitor's feedback,
 * and for owners and admins "Why this answer" (the passages behind it; the Conversations page) and
 * the actions the bot called for it (issue 34).
 * Used by the Conversations, Leads and Handoff pages; `visitorAction` adds a control under each
 * visitor message (the Conversations page's "Add to test set").
 */
export function Transcript({
  messages,
  label = 'Transcript',
  empty = 'No messages.',
  visitorAction,
}: {
  messages: TranscriptMessage[];
  label?: string;
  empty?: string;
  visitorAction?: (m: TranscriptMessage) => ReactNode;
}) {
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
            {visitorAction && m.role === 'user' ? <div className="transcript__action">{visitorAction(m)}</div> : null}
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
            {m.role === 'assistant' && m.author_kind !== 'person' && m.passages !== undefined ? <WhyThisAnswer passages={m.passages} omitted={m.passages_omitted === true} /> : null}
            {m.role === 'assistant' && m.actions && m.actions.length > 0 ? <ActionCalls calls={m.actions} /> : null}
          </li>
        );
      })}
    </ol>
  );
}
