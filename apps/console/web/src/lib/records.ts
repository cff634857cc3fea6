/** Channels of conversations and leads, as the filters offer them. */
export const CHANNEL_OPTIONS = [
  { value: 'widget', label: 'Widget' },
  { value: 'api', label: 'API' },
  { value: 'mcp', label: 'MCP' },
  { value: 'console', label: 'Console' },
];

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
