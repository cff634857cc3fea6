import { useEffect, useRef, useState } from 'preact/hooks';
import type { BotConfig, WidgetApi } from './api';
import { ChatTab } from './chat';
import { Form, filled } from './form';
import type { SessionStore } from './session';
import { type Texts, fill } from './texts';
import { localToIsoWithOffset, visitorTimeZone } from './time';

export interface Look {
  /** This page's origin is not allowed for the bot: the chat says so at once. */
  blocked: boolean;
  name: string;
  position: 'right' | 'left';
  greeting: string;
  launcherText: string | null;
  /** Questions offered as buttons before the first message. */
  starters: string[];
}

export interface Bridge {
  open(): void;
  close(): void;
}

interface AppProps {
  t: Texts;
  api: WidgetApi;
  store: SessionStore;
  language: string;
  rtl: boolean;
  look: Look;
  bridge: Bridge;
}

type Tab = 'chat' | 'booking' | 'support';
const TABS: Tab[] = ['chat', 'booking', 'support'];

export function App({ t, api, store, language, rtl, look, bridge }: AppProps) {
  const [open, setOpen] = useState(false);
  const [tab, setTab] = useState<Tab>('chat');
  const [messages, setMessages] = useState(store.messages);
  const [bookingDone, setBookingDone] = useState(false);
  const [ticketDone, setTicketDone] = useState(false);
  const launcherRef = useRef<HTMLButtonElement>(null);
  const panelRef = useRef<HTMLDivElement>(null);
  const tabRefs = useRef<(HTMLButtonElement | null)[]>([]);
  const wasOpen = useRef(false);
  const uid = 'sa';

  useEffect(() => store.subscribe(() => setMessages(store.messages)), [store]);
  bridge.open = () => setOpen(true);
  bridge.close = () => setOpen(false);

  // Focus moves into the panel when it opens, and back to the launcher when it closes.
  useEffect(() => {
    if (open) {
      const panel = panelRef.current;
      // The message box (or a form's first field), else the first button of the tab.
      const active = panel?.querySelector(`#${uid}-panel-${tab}`);
      const target = active?.querySelector<HTMLElement>('textarea, input') ?? active?.querySelector<HTMLElement>('button');
      (target ?? panel)?.focus();
      // The chat's session is minted on its first opening.
      if (tab === 'chat' && !look.blocked) store.ensure().catch(() => undefined);
    } else if (wasOpen.current) {
      launcherRef.current?.focus();
    }
    wasOpen.current = open;
  }, [open]);

  const selectTab = (next: Tab, focus: boolean) => {
    setTab(next);
    if (focus) tabRefs.current[TABS.indexOf(next)]?.focus();
  };

  const onTabKey = (e: KeyboardEvent) => {
    const i = TABS.indexOf(tab);
    const step = { ArrowRight: rtl ? -1 : 1, ArrowLeft: rtl ? 1 : -1 }[e.key as 'ArrowRight'];
    let next: number | undefined;
    if (step) next = (i + step + TABS.length) % TABS.length;
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = TABS.length - 1;
    if (next === undefined) return;
    e.preventDefault();
    selectTab(TABS[next], true);
  };

  const tabLabel: Record<Tab, string> = { chat: t.tab_chat, booking: t.tab_booking, support: t.tab_support };
  const timeZone = visitorTimeZone();

  return (
    <div class={`root pos-${look.position}`} dir={rtl ? 'rtl' : 'ltr'} lang={language}>
      {open ? (
        <div
          ref={panelRef}
          class="panel"
          role="dialog"
          aria-labelledby={`${uid}-title`}
          dir={rtl ? 'rtl' : 'ltr'}
          lang={language}
          tabIndex={-1}
          onKeyDown={(e) => {
            if (e.key === 'Escape') {
              e.stopPropagation();
              setOpen(false);
            }
          }}
        >
          <div class="header">
            <h2 id={`${uid}-title`}>{look.name}</h2>
            <button type="button" class="close" aria-label={t.close} onClick={() => setOpen(false)}>
              <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
                <path d="M6 6l12 12M18 6L6 18" stroke="currentColor" stroke-width="2" fill="none" stroke-linecap="round" />
              </svg>
            </button>
          </div>
          <div class="tabs" role="tablist" aria-label={look.name} onKeyDown={onTabKey}>
            {TABS.map((name, i) => (
              <button
                key={name}
                ref={(el) => {
                  tabRefs.current[i] = el;
                }}
                type="button"
                role="tab"
                id={`${uid}-tab-${name}`}
                aria-selected={tab === name ? 'true' : 'false'}
                aria-controls={`${uid}-panel-${name}`}
                tabIndex={tab === name ? 0 : -1}
                onClick={() => selectTab(name, false)}
              >
                {tabLabel[name]}
              </button>
            ))}
          </div>
          {TABS.filter((name) => name !== tab).map((name) => (
            <div key={name} class="body" role="tabpanel" id={`${uid}-panel-${name}`} aria-labelledby={`${uid}-tab-${name}`} hidden />
          ))}
          <div key={`active-${tab}`} class="body" role="tabpanel" id={`${uid}-panel-${tab}`} aria-labelledby={`${uid}-tab-${tab}`}>
            {tab === 'chat' ? (
              <ChatTab t={t} api={api} store={store} messages={messages} language={language} greeting={look.greeting} starters={look.starters} uid={uid} blocked={look.blocked} />
            ) : tab === 'booking' ? (
              bookingDone ? (
                <p class="done" role="status">
                  {t.booking_done}
                </p>
              ) : (
                <Form
                  t={t}
                  title={t.booking_title}
                  submitLabel={t.booking_submit}
                  fields={[
                    { name: 'name', label: t.name, type: 'text', required: true, autocomplete: 'name' },
                    { name: 'email', label: t.email, type: 'email', required: true, autocomplete: 'email' },
                    { name: 'phone', label: t.phone, type: 'tel', required: true, autocomplete: 'tel' },
                    {
                      name: 'requestedSlot',
                      label: t.preferred_time,
                      type: 'datetime-local',
                      hint: timeZone ? fill(t.time_zone_hint, { tz: timeZone }) : undefined,
                      alsoFor: ['timeZone'],
                    },
                    { name: 'notes', label: t.notes, type: 'textarea' },
                  ]}
                  onSubmit={async (values) => {
                    const body: Record<string, string> = filled(values, ['name', 'email', 'phone', 'notes']);
                    const slot = (values['requestedSlot'] ?? '').trim();
                    if (slot) body['requestedSlot'] = localToIsoWithOffset(slot) ?? slot;
                    if (timeZone) body['timeZone'] = timeZone;
                    await store.with((sessionId) => api.call('bookings', { sessionId, ...body }));
                    setBookingDone(true);
                  }}
                />
              )
            ) : ticketDone ? (
              <p class="done" role="status">
                {t.ticket_done}
              </p>
            ) : (
              <Form
                t={t}
                title={t.ticket_title}
                submitLabel={t.ticket_submit}
                fields={[
                  { name: 'email', label: t.email, type: 'email', required: true, autocomplete: 'email' },
                  { name: 'subject', label: t.subject, type: 'text', required: true },
                  { name: 'message', label: t.message_field, type: 'textarea', required: true },
                ]}
                onSubmit={async (values) => {
                  await store.with((sessionId) => api.call('tickets', { sessionId, ...filled(values, ['email', 'subject', 'message']) }));
                  setTicketDone(true);
                }}
              />
            )}
          </div>
        </div>
      ) : null}
      <button
        ref={launcherRef}
        type="button"
        class={`launcher${look.launcherText ? ' with-text' : ''}`}
        aria-label={open ? t.launcher_close : t.launcher_open}
        aria-expanded={open ? 'true' : 'false'}
        onClick={() => setOpen(!open)}
      >
        <svg viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" focusable="false">
          {open ? (
            <path d="M6 6l12 12M18 6L6 18" stroke="currentColor" stroke-width="2" fill="none" stroke-linecap="round" />
          ) : (
            <path d="M4 5h16v11H8l-4 4z" stroke="currentColor" stroke-width="2" fill="none" stroke-linejoin="round" />
          )}
        </svg>
        {look.launcherText && !open ? <span aria-hidden="true">{look.launcherText}</span> : null}
      </button>
    </div>
  );
}

export type { BotConfig };
