import { api } from './client';
import { toApiError } from './errors';
import type { Passage } from '../pages/conversations/Transcript';
import type { PlaygroundTurn } from './types';

/** Under each playground reply: why the bot answered as it did (the end frame's `diagnostics`). */
export interface TurnDiagnostics {
  passages: Passage[];
  language: string;
  detected_language: string | null;
  unanswered: boolean;
  model: string;
  tokens: { prompt: number; completion: number } | null;
  timings: { retrieval_ms: number; first_text_ms: number | null; total_ms: number };
}

/** An action the bot called (issue 34), as the stream reports it. */
export interface PlaygroundAction {
  call_id: string;
  name: string;
  label: string;
  state: 'running' | 'done' | 'failed' | 'refused' | 'awaiting_confirmation' | 'cancelled';
  input?: Record<string, unknown>;
}

type Frame = { type: 'delta'; text: string } | { type: 'action'; action: PlaygroundAction } | { type: 'end'; diagnostics: TurnDiagnostics } | { type: 'error'; code: string; message: string };

/**
 * One playground turn (POST …/bots/{botId}/playground): `onText` gets the reply as it streams; resolves
 * with the diagnostics, or rejects with an ApiError (refused before the answer started) or an Error
 * (the answer broke off).
 */
export async function playgroundTurn(
  workspaceId: string,
  botId: string,
  body: PlaygroundTurn,
  onText: (text: string) => void,
  signal?: AbortSignal,
  onAction?: (action: PlaygroundAction) => void,
): Promise<TurnDiagnostics> {
  const { response, error } = await api.POST('/workspaces/{workspaceId}/bots/{botId}/playground', {
    params: { path: { workspaceId, botId } },
    body,
    parseAs: 'stream',
    signal,
    headers: { Accept: 'text/event-stream' },
  });
  if (!response.ok || !response.body) {
    const parsed = error ?? (await response.json().catch(() => undefined));
    throw toApiError(response, parsed);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += value;
    let cut: number;
    while ((cut = buffered.indexOf('\n\n')) >= 0) {
      const raw = buffered.slice(0, cut);
      buffered = buffered.slice(cut + 2);
      if (!raw.startsWith('data: ')) continue;
      const frame = JSON.parse(raw.slice('data: '.length)) as Frame;
      if (frame.type === 'delta') onText(frame.text);
      else if (frame.type === 'action') onAction?.(frame.action);
      else if (frame.type === 'end') return frame.diagnostics;
      else throw new Error(frame.message);
    }
  }
  throw new Error('The answer stream ended early.');
}
