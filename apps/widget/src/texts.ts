import { messagesFor } from './i18n';

export type Texts = ReturnType<typeof messagesFor>;

/** Fills `{name}` placeholders. */
export function fill(text: string, values: Record<string, string>): string {
  return text.replace(/\{(\w+)\}/g, (whole, key: string) => values[key] ?? whole);
}
