import { render } from 'preact';
import { WidgetApi, type BotConfig } from './api';
import { App, type Bridge, type Look } from './app';
import { DEFAULT_COLOR, isHexColor } from './contrast';
import { WidgetApiError, originState } from './errors';
import { isRtl, matchLanguage, messagesFor } from './i18n';
import { SessionStore } from './session';
import { installStyles, themeCss } from './styles';

/**
 * The visitor widget: `<script src="{gateway}/widget/v1/embed.js" data-bot-id="…" async>`.
 * Reads its tag's data attributes, renders into an open Shadow DOM root on a host element at the
 * end of <body>, talks only to the gateway its own `src` came from, and exposes one global,
 * `window.SupportAgent` {identify, open, close}.
 */

interface IdentifyInput {
  externalUserId: string;
  userHash: string;
  name?: string;
  email?: string;
}

interface SupportAgentApi {
  identify(input: IdentifyInput): Promise<{ session_id: string; identified: true }>;
  open(): void;
  close(): void;
  version: string;
}

type Queued = [string, unknown?, ((v: unknown) => void)?, ((e: unknown) => void)?];

// Captured now: document.currentScript is only set while the script first runs.
const tag = (document.currentScript as HTMLScriptElement | null) ?? document.querySelector<HTMLScriptElement>('script[data-bot-id][src*="/widget/v1/"]');

function start(script: HTMLScriptElement): SupportAgentApi {
  const botId = script.dataset['botId'];
  if (!botId) throw new Error('SupportAgent: the script tag needs data-bot-id');
  const origin = new URL(script.src, location.href).origin;
  const d = script.dataset;
  const language = matchLanguage(d['language'] || undefined, navigator.languages ?? [navigator.language]);
  const t = messagesFor(language);
  const api = new WidgetApi(origin, botId);
  const store = new SessionStore(api, botId);

  const host = document.createElement('div');
  host.setAttribute('data-support-agent', '');
  const root = host.attachShadow({ mode: 'open' });
  const setTheme = installStyles(root, themeCss(isHexColor(d['color']) ? d['color'] : DEFAULT_COLOR));
  document.body.appendChild(host);

  const bridge: Bridge = { open: () => undefined, close: () => undefined };
  const paint = (config: BotConfig) => {
    const theme = config.theme ?? {};
    const color = isHexColor(d['color']) ? d['color'] : isHexColor(theme.color) ? theme.color : DEFAULT_COLOR;
    setTheme(themeCss(color.toLowerCase()));
    const position = d['position'] === 'left' || d['position'] === 'right' ? d['position'] : theme.position === 'left' ? 'left' : 'right';
    const look: Look = {
      blocked: config.blocked === true,
      name: (typeof config.name === 'string' && config.name) || t.title_fallback,
      position,
      greeting: d['greeting'] || theme.greeting || t.greeting_default,
      launcherText: d['launcherText'] || theme.launcher_text || null,
      starters: Array.isArray(config.starter_questions) ? config.starter_questions.filter((q): q is string => typeof q === 'string' && q.trim() !== '').slice(0, 4) : [],
    };
    render(<App t={t} api={api} store={store} language={language} rtl={isRtl(language)} look={look} bridge={bridge} />, root);
  };
  paint({});
  // The bot's own settings; the tag's attributes win over them. Without them the widget runs on its defaults.
  api.config().then(paint, (err: unknown) => {
    if (err instanceof WidgetApiError && err.code === 'origin_not_allowed') {
      originState.refused = true;
      paint({ blocked: true });
    }
  });

  const agent: SupportAgentApi = {
    version: '1',
    open: () => bridge.open(),
    close: () => bridge.close(),
    identify(input: IdentifyInput) {
      if (!input || typeof input.externalUserId !== 'string' || typeof input.userHash !== 'string') {
        return Promise.reject(Object.assign(new Error('identify needs externalUserId and userHash (strings)'), { code: 'invalid_argument' }));
      }
      const body: Record<string, string> = { externalUserId: input.externalUserId, userHash: input.userHash };
      if (typeof input.name === 'string' && input.name) body['name'] = input.name;
      if (typeof input.email === 'string' && input.email) body['email'] = input.email;
      return store.with((sessionId) => api.call<{ session_id: string; identified: true }>('identify', { sessionId, ...body })).catch((err: unknown) => {
        throw err instanceof WidgetApiError ? Object.assign(new Error(err.message), { code: err.code, status: err.status, fields: err.fields }) : err;
      });
    },
  };

  return agent;
}

const w = window as unknown as { SupportAgent?: { version?: string; q?: Queued[] } };
// Loaded twice (two tags): the first one stays.
if (tag && !w.SupportAgent?.version) {
  // window.SupportAgent exists as soon as the script ran, also when the page's <body> is not there
  // yet (a tag in <head>): calls wait for the widget to start.
  const queued = Array.isArray(w.SupportAgent?.q) ? w.SupportAgent.q : [];
  let started: SupportAgentApi | undefined;
  const waiting: ((agent: SupportAgentApi) => void)[] = [];
  const ready = () => (started ? Promise.resolve(started) : new Promise<SupportAgentApi>((resolve) => waiting.push(resolve)));
  const agent: SupportAgentApi = {
    version: '1',
    open: () => void ready().then((a) => a.open()),
    close: () => void ready().then((a) => a.close()),
    identify: (input) => ready().then((a) => a.identify(input)),
  };
  w.SupportAgent = agent;
  const boot = () => {
    started = start(tag);
    waiting.splice(0).forEach((resolve) => resolve(started!));
    // Calls queued before the script loaded by the documented stub (`window.SupportAgent.q`) run now.
    for (const [method, arg, resolve, reject] of queued) {
      if (method === 'identify') agent.identify(arg as IdentifyInput).then(resolve, reject);
      else if (method === 'open') agent.open();
      else if (method === 'close') agent.close();
    }
  };
  if (document.body) boot();
  else document.addEventListener('DOMContentLoaded', boot, { once: true });
}
