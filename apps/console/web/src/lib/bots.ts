import type { Bot } from '../api/types';

/** A bot's name as the tables show it; null means every bot; an unknown id is shown as is. */
export function botName(id: string | null, bots: Bot[]): string {
  if (id === null) return 'All bots';
  return bots.find((b) => b.id === id)?.name ?? id;
}

/** The bots a token or connection is limited to (null: all of them), by name. */
export function botNames(ids: string[] | null, bots: Bot[]): string {
  if (ids === null) return 'All bots';
  return ids.map((id) => botName(id, bots)).join(', ');
}
