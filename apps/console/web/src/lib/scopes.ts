import type { Scope } from './contracts';

/** Each API scope in plain words, as the consent page and the Connections page say it. */
export const SCOPE_WORDS: Record<Scope, string> = {
  'bots:read': 'Read your bots and their settings.',
  'bots:write': 'Create bots and change their settings.',
  'kb:read': 'Read what is in your bots’ knowledge bases.',
  'kb:write': 'Add documents to your bots’ knowledge bases.',
  'chat:invoke': 'Chat with your bots, as a visitor would.',
  'conversations:read': 'Read the conversations visitors had with your bots.',
  'leads:read': 'Read the leads your bots collected, with the contact details visitors left.',
  'analytics:read': 'Read your bots’ analytics.',
  'bookings:read': 'Read the bookings your bots took.',
  'bookings:write': 'Change bookings (reschedule or cancel them).',
};

export function scopeWords(scope: string): string {
  return (SCOPE_WORDS as Record<string, string>)[scope] ?? 'A permission this console does not know.';
}
