import type { ChatChannel } from '../api/records';

/** Every channel's name for people: a Record, so a channel the API adds fails the type-check until it is named here. */
const CHANNEL_NAMES: Record<ChatChannel, string> = {
  widget: 'Widget',
  api: 'API',
  mcp: 'MCP',
  console: 'Console',
  email: 'E-mail',
  whatsapp: 'WhatsApp',
  telegram: 'Telegram',
  slack: 'Slack',
};

/** Channels of conversations and leads, as the filters offer them. */
export const CHANNEL_OPTIONS = (Object.keys(CHANNEL_NAMES) as ChatChannel[]).map((value) => ({ value, label: CHANNEL_NAMES[value] }));

export function channelName(channel: string): string {
  return CHANNEL_OPTIONS.find((c) => c.value === channel)?.label ?? channel;
}

export const LEAD_STATUS_OPTIONS: { value: 'new' | 'contacted' | 'qualified' | 'won' | 'lost'; label: string }[] = [
  { value: 'new', label: 'New' },
  { value: 'contacted', label: 'Contacted' },
  { value: 'qualified', label: 'Qualified' },
  { value: 'won', label: 'Won' },
  { value: 'lost', label: 'Lost' },
];

export function leadStatusName(status: string): string {
  return LEAD_STATUS_OPTIONS.find((s) => s.value === status)?.label ?? status;
}

export const SCORE_BAND_OPTIONS = [
  { value: 'hot', label: 'Hot' },
  { value: 'warm', label: 'Warm' },
  { value: 'cold', label: 'Cold' },
];

export const BOOKING_STATUS_OPTIONS = [
  { value: 'pending', label: 'Pending' },
  { value: 'confirmed', label: 'Confirmed' },
  { value: 'rejected', label: 'Rejected' },
  { value: 'cancelled', label: 'Cancelled' },
];
