import { request } from './api';
import { e2eState } from './state';

/** The address of one visitor widget route of a bot, on the shared gateway or another one. */
export function widgetUrl(botId: string, route: string, gatewayUrl = e2eState().gatewayUrl): string {
  return `${gatewayUrl}/widget/v1/bots/${botId}/${route}`;
}

/**
 * A new widget session of the bot, minted by the server (POST …/sessions) as the widget script
 * does before its first call: widget calls naming any other session id are refused (403).
 */
export async function newWidgetSession(botId: string, gatewayUrl = e2eState().gatewayUrl): Promise<string> {
  const res = await request('POST', '', {}, { baseUrl: widgetUrl(botId, 'sessions', gatewayUrl) });
  if (res.status !== 201) throw new Error(`minting a widget session failed: ${res.status} ${res.text}`);
  return res.body.data.session_id as string;
}
