import { CallerContext, UpdateWidgetSettingsBody, WIDGET_POSITIONS, WidgetPosition } from '@sa/contracts';
import { AdminInputError } from '@sa/identity-db';
import { ParsedArgs, UsageError, takeBool, takeList, takeString } from './args';
import { AdminConnections, operatorContext, requireWorkspace } from './operator';

/** Boolean flags of `widget set` (the parser's booleans; each clears a member). */
export const WIDGET_BOOLEAN_FLAGS = ['no-origins', 'no-greeting', 'no-launcher-text'] as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The change `widget set` asks for, from its options: --origins a,b | --no-origins, --color #hex,
 * --position left|right, --greeting T | --no-greeting, --launcher-text T | --no-launcher-text.
 * The bots service validates it (400-like errors name the member).
 */
export function widgetChange(args: ParsedArgs): UpdateWidgetSettingsBody {
  const change: UpdateWidgetSettingsBody = {};
  const origins = takeList(args, 'origins');
  const noOrigins = takeBool(args, 'no-origins');
  if (origins && noOrigins) throw new UsageError('--origins and --no-origins cannot be combined');
  if (origins) change.allowed_origins = origins;
  if (noOrigins) change.allowed_origins = [];
  const theme: NonNullable<UpdateWidgetSettingsBody['theme']> = {};
  const color = takeString(args, 'color');
  if (color !== undefined) theme.color = color;
  const position = takeString(args, 'position');
  if (position !== undefined) {
    if (!(WIDGET_POSITIONS as readonly string[]).includes(position)) throw new UsageError(`--position must be left or right (got "${position}")`);
    theme.position = position as WidgetPosition;
  }
  for (const [flag, member] of [
    ['greeting', 'greeting'],
    ['launcher-text', 'launcher_text'],
  ] as const) {
    const text = takeString(args, flag);
    const none = takeBool(args, `no-${flag}`);
    if (text !== undefined && none) throw new UsageError(`--${flag} and --no-${flag} cannot be combined`);
    if (text !== undefined) theme[member] = text;
    if (none) theme[member] = null;
  }
  if (Object.keys(theme).length) change.theme = theme;
  if (!Object.keys(change).length) throw new UsageError('widget set needs at least one of --origins, --no-origins, --color, --position, --greeting, --no-greeting, --launcher-text, --no-launcher-text');
  return change;
}

/** The bot a widget command names, with the operator's context in its workspace. */
export async function widgetBot(connections: AdminConnections, botId: string): Promise<{ botId: string; workspaceId: string; ctx: CallerContext }> {
  if (!UUID.test(botId)) throw new AdminInputError(`--bot must be a uuid (got "${botId}")`);
  const rpc = await connections.rpc();
  let workspaceId: string;
  try {
    workspaceId = (await rpc.send('bots.bot.public', { botId })).tenant_id;
  } catch (err) {
    if ((err as { code?: string }).code === 'not_found') throw new AdminInputError(`no bot with id ${botId}`);
    throw err;
  }
  const workspace = await requireWorkspace(connections, workspaceId);
  return { botId, workspaceId, ctx: operatorContext(workspace, ['bots:read']) };
}
