import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsInt, IsISO8601, IsObject, IsOptional, IsString, IsUUID, Matches, Max, Min } from 'class-validator';
import type { McpServerSpec } from './action-sources';
import { BotParams } from './console-workspace';
import { Doc, Nested, Nullable } from './schema-docs';
import { CharLength, NotBlank } from './validation';

/**
 * A bot's actions (issue 34, first slice: the definitions). An action is a call of the customer's
 * own HTTPS API that the bot may make for the visitor: a name and a description for the model, a
 * method and URL (`{param}` placeholders after the host), input parameters as a JSON Schema
 * object, and headers whose values may be secrets. The bots service keeps them; header values are
 * sealed as they arrive (SecretBox, one sealed JSON object of name → value per action) and are
 * never returned: views list the header names only. Chat (later) gets them still sealed
 * (bots.action.specs) and opens them for the call, as it does with model keys.
 */
export const ACTION_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type ActionMethod = (typeof ACTION_METHODS)[number];
/** Safe as a tool name for every provider (OpenAI allows [a-zA-Z0-9_-]{1,64}). */
export const ACTION_NAME_PATTERN = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;
export const ACTION_DESCRIPTION_MAX = 1000;
/** The status text people see while an action runs ("Checking your order…"). */
export const ACTION_STATUS_TEXT_MAX = 80;
/** One line of text: no control characters (no line breaks). */
export const ACTION_STATUS_TEXT_PATTERN = /^[^\u0000-\u001f\u007f]+$/;
export const ACTION_URL_MAX = 2000;
/**
 * https, and no `{` `}` or white space before the path: placeholders only after the host. The
 * service parses the whole URL as well (placeholders filled in).
 */
export const ACTION_URL_PATTERN = /^https:\/\/[^/?#{}\s]+(?:[/?#]\S*)?$/i;
export const ACTION_HEADERS_MAX = 20;
export const ACTION_HEADER_NAME_MAX = 100;
export const ACTION_HEADER_VALUE_MAX = 4000;
/** An HTTP field name (RFC 9110 token). */
export const ACTION_HEADER_NAME_PATTERN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A field value: one line of Latin-1 text, no control characters but tab (no CR or LF: no header injection). */
export const ACTION_HEADER_VALUE_PATTERN = /^[\t\x20-\x7e\x80-\xff]+$/;
/** Header names an action may not set (lower case): the HTTP client's own, and hop-by-hop ones. Also every `proxy-*`. */
export const ACTION_FORBIDDEN_HEADERS: readonly string[] = ['host', 'content-length', 'transfer-encoding', 'connection', 'upgrade', 'te', 'keep-alive'];
export const ACTION_FORBIDDEN_HEADER_PREFIX = 'proxy-';
export const ACTIONS_PER_BOT_MAX = 20;
/** Largest sample input of a Test, as JSON (UTF-8 bytes). */
export const ACTION_TEST_INPUT_MAX_BYTES = 16 * 1024;
/** The console waits this long for a Test: the call's own timeout (10 s) and some room. */
export const ACTION_TEST_RPC_TIMEOUT_MS = 20_000;
export const ACTION_CALLS_PER_TURN_MIN = 1;
export const ACTION_CALLS_PER_TURN_MAX = 10;
export const DEFAULT_ACTION_SETTINGS: Readonly<{ max_calls_per_turn: number; builtins: Readonly<ActionBuiltins> }> = Object.freeze({
  max_calls_per_turn: 3,
  builtins: Object.freeze({ booking: false, lead: false, handoff: false }),
});
/** The parameters of an action created without any. */
export const DEFAULT_ACTION_PARAMETERS: Readonly<Record<string, unknown>> = Object.freeze({ type: 'object', properties: Object.freeze({}) });
/** What went wrong with a call (ActionCallResult.error of @sa/actions). */
export const ACTION_CALL_ERRORS = ['invalid_input', 'blocked', 'redirect', 'timeout', 'too_large', 'network', 'http_error'] as const;
export type ActionCallError = (typeof ACTION_CALL_ERRORS)[number];

/** The built-in actions a bot may have (issue 34, item 2; the switches only, for now). */
export interface ActionBuiltins {
  booking: boolean;
  lead: boolean;
  handoff: boolean;
}

@Doc({ name: 'ActionHeader', description: 'A header the action sends. Its value is write-only: only the name is shown.' })
export class ActionHeaderView {
  @IsString() name: string;
  @Doc('Whether a value is stored (always, today: a header is saved with its value). The value itself is never returned.') @IsBoolean() has_value: boolean;
}

@Doc({ name: 'Action', description: "An action of a bot: a call of the workspace's own HTTPS API the bot may make for a visitor. Header values are write-only and never returned." })
export class ActionView {
  @IsUUID() id: string;
  @IsUUID() bot_id: string;
  @Doc('The tool name the model sees; unique per bot (case-insensitive).') @IsString() name: string;
  @Doc('What it does and when to use it, for the model. User text: render it as text.') @IsString() description: string;
  @IsIn(ACTION_METHODS) method: ActionMethod;
  @Doc('An https URL; `{name}` placeholders in its path or query are filled from the parameters of that name.') @IsString() url: string;
  @Doc('The input as a JSON Schema object (`type: object` and its `properties`).') @IsObject() parameters: Record<string, unknown>;
  @Doc('The headers it sends, names only.') @IsArray() @Nested(() => ActionHeaderView) headers: ActionHeaderView[];
  @Doc('Whether the visitor confirms each call before it runs.') @IsBoolean() confirm: boolean;
  @Doc('Whether only a verified visitor (identified with a valid user hash) may use it.') @IsBoolean() verified_only: boolean;
  @Doc("A parameter the service fills with the verified visitor's `external_user_id`, never the model; null: none.") @Nullable() @IsString() user_id_param: string | null;
  @Doc('What the visitor sees while it runs ("Checking your order…"); null: a generic text. User text: render it as text.') @Nullable() @IsString() status_text: string | null;
  @Doc('Off: the bot does not offer it (it can still be tested).') @IsBoolean() enabled: boolean;
  @IsISO8601() created_at: string;
  @IsISO8601() updated_at: string;
}

@Doc({ name: 'ActionHeaderInput', description: 'A header of a new action. Unknown members are rejected (400).' })
export class ActionHeaderBody {
  @Doc(`An HTTP field name, 1 to ${ACTION_HEADER_NAME_MAX} characters; not Host, Content-Length, Transfer-Encoding, Connection, Upgrade, TE, Keep-Alive or Proxy-*; unique (case-insensitive).`)
  @IsString()
  @CharLength(1, ACTION_HEADER_NAME_MAX)
  @Matches(ACTION_HEADER_NAME_PATTERN)
  name: string;
  @Doc(`1 to ${ACTION_HEADER_VALUE_MAX} characters, no line breaks. Write-only: stored encrypted, never shown again.`)
  @IsString()
  @CharLength(1, ACTION_HEADER_VALUE_MAX)
  @NotBlank()
  @Matches(ACTION_HEADER_VALUE_PATTERN)
  value: string;
}

@Doc({ name: 'ActionHeaderChange', description: 'A header of a changed action: without `value`, the value stored for that name is kept. Unknown members are rejected (400).' })
export class ActionHeaderChange {
  @Doc(`An HTTP field name, 1 to ${ACTION_HEADER_NAME_MAX} characters; not Host, Content-Length, Transfer-Encoding, Connection, Upgrade, TE, Keep-Alive or Proxy-*; unique (case-insensitive).`)
  @IsString()
  @CharLength(1, ACTION_HEADER_NAME_MAX)
  @Matches(ACTION_HEADER_NAME_PATTERN)
  name: string;
  @Doc(`1 to ${ACTION_HEADER_VALUE_MAX} characters, no line breaks; left out: keep the stored value of this name (400 when there is none).`)
  @IsOptional()
  @IsString()
  @CharLength(1, ACTION_HEADER_VALUE_MAX)
  @NotBlank()
  @Matches(ACTION_HEADER_VALUE_PATTERN)
  value?: string;
}

const NAME_DOC = '1 to 64 letters, digits, `_` or `-`, starting with a letter (a tool name); unique per bot, case-insensitive (409).';
const URL_DOC = `https only, up to ${ACTION_URL_MAX} characters, no credentials. \`{name}\` placeholders are allowed after the host; each must be a property of \`parameters\`.`;
const PARAMETERS_DOC = 'A JSON Schema object: `type: "object"`, its `properties` (string, number, integer, boolean, enum, arrays and objects of them) and `required`. Default `{"type":"object","properties":{}}`.';
const STATUS_TEXT_DOC = `What the visitor sees while the action runs, e.g. "Checking your order…": 1 to ${ACTION_STATUS_TEXT_MAX} characters of one line. Null: a generic text in the reply's language.`;
const USER_ID_DOC = "The name of a string property of `parameters` that the service fills with the verified visitor's `external_user_id` (the model never fills it). Needs `verified_only: true`. Null: none.";

@Doc({ name: 'ActionCreate', description: 'A new action. Unknown members are rejected (400). A bot has at most 20 (409).' })
export class CreateActionBody {
  @Doc(NAME_DOC) @IsString() @Matches(ACTION_NAME_PATTERN) name: string;
  @Doc(`For the model: what it does and when to use it. 1 to ${ACTION_DESCRIPTION_MAX} characters.`) @IsString() @CharLength(1, ACTION_DESCRIPTION_MAX) @NotBlank() description: string;
  @IsIn(ACTION_METHODS) method: ActionMethod;
  @Doc(URL_DOC) @IsString() @CharLength(1, ACTION_URL_MAX) @Matches(ACTION_URL_PATTERN) url: string;
  @Doc(PARAMETERS_DOC) @IsOptional() @IsObject() parameters?: Record<string, unknown>;
  @Doc(`At most ${ACTION_HEADERS_MAX}. Values are stored encrypted and never shown again.`) @IsOptional() @IsArray() @ArrayMaxSize(ACTION_HEADERS_MAX) @Nested(() => ActionHeaderBody) headers?: ActionHeaderBody[];
  @Doc('Whether the visitor confirms each call. Left out: false for GET, true for every other method.') @IsOptional() @IsBoolean() confirm?: boolean;
  @Doc({ description: 'Whether only a verified visitor may use it.', default: false }) @IsOptional() @IsBoolean() verified_only?: boolean;
  @Doc(USER_ID_DOC) @IsOptional() @Nullable() @IsString() @CharLength(1, 200) @NotBlank() user_id_param?: string | null;
  @Doc(STATUS_TEXT_DOC) @IsOptional() @Nullable() @IsString() @CharLength(1, ACTION_STATUS_TEXT_MAX) @NotBlank() @Matches(ACTION_STATUS_TEXT_PATTERN) status_text?: string | null;
  @Doc({ description: 'Whether the bot offers it.', default: true }) @IsOptional() @IsBoolean() enabled?: boolean;
}

@Doc({
  name: 'ActionUpdate',
  description:
    'A change; members left out stay as they are. `headers` replaces the list: an entry without `value` keeps the value stored for its name. A URL of another origin needs every header value given again (400 otherwise). Unknown members are rejected (400).',
})
export class UpdateActionBody {
  @Doc(NAME_DOC) @IsOptional() @IsString() @Matches(ACTION_NAME_PATTERN) name?: string;
  @IsOptional() @IsString() @CharLength(1, ACTION_DESCRIPTION_MAX) @NotBlank() description?: string;
  @IsOptional() @IsIn(ACTION_METHODS) method?: ActionMethod;
  @Doc(URL_DOC) @IsOptional() @IsString() @CharLength(1, ACTION_URL_MAX) @Matches(ACTION_URL_PATTERN) url?: string;
  @Doc(PARAMETERS_DOC) @IsOptional() @IsObject() parameters?: Record<string, unknown>;
  @Doc(`The whole list, at most ${ACTION_HEADERS_MAX}; \`[]\` removes every header.`) @IsOptional() @IsArray() @ArrayMaxSize(ACTION_HEADERS_MAX) @Nested(() => ActionHeaderChange) headers?: ActionHeaderChange[];
  @IsOptional() @IsBoolean() confirm?: boolean;
  @IsOptional() @IsBoolean() verified_only?: boolean;
  @Doc(USER_ID_DOC) @IsOptional() @Nullable() @IsString() @CharLength(1, 200) @NotBlank() user_id_param?: string | null;
  @Doc(STATUS_TEXT_DOC) @IsOptional() @Nullable() @IsString() @CharLength(1, ACTION_STATUS_TEXT_MAX) @NotBlank() @Matches(ACTION_STATUS_TEXT_PATTERN) status_text?: string | null;
  @IsOptional() @IsBoolean() enabled?: boolean;
}

@Doc({ name: 'ActionTest', description: 'Sample input for one call of the action. Unknown members are rejected (400).' })
export class TestActionBody {
  @Doc(`The input, checked against the action's parameters first (a mismatch is the result \`invalid_input\`, not an error). At most ${ACTION_TEST_INPUT_MAX_BYTES / 1024} KiB as JSON. The \`user_id_param\` may be given here as a sample. Default {}.`)
  @IsOptional()
  @IsObject()
  input?: Record<string, unknown>;
}

@Doc({ name: 'ActionTestResult', description: 'The outcome of one call. A refusal (blocked, timeout, an HTTP error) is a result with `ok: false`, not an error of this API.' })
export class ActionTestResult {
  @Doc('The endpoint answered 2xx.') @IsBoolean() ok: boolean;
  @Doc("The endpoint's HTTP status; null when none came (invalid input, blocked, unreachable, timed out).") @Nullable() @IsInt() status: number | null;
  @IsInt() duration_ms: number;
  @Doc('The response body as text, cut to the size the model would get.') @IsString() result: string;
  @Doc('Whether `result` was cut.') @IsBoolean() truncated: boolean;
  @Doc('null: it worked. invalid_input: the input does not fit the parameters; blocked: the outbound policy refused the address; redirect: the endpoint redirected (never followed); timeout; too_large; network; http_error: a non-2xx status.')
  @Nullable()
  @IsIn(ACTION_CALL_ERRORS)
  error: ActionCallError | null;
  @Doc('What happened, for people.') @IsString() message: string;
}

@Doc({ name: 'ActionBuiltins', description: 'The built-in actions of the bot, on or off.' })
export class ActionBuiltinsView implements ActionBuiltins {
  @Doc('Request a booking in the conversation.') @IsBoolean() booking: boolean;
  @Doc("Capture the visitor's contact as a lead.") @IsBoolean() lead: boolean;
  @Doc('Hand off to a person.') @IsBoolean() handoff: boolean;
}

@Doc({ name: 'BotActionSettings', description: "A bot's settings for actions." })
export class BotActionSettingsView {
  @Doc(`Calls of actions the bot may make in one turn, ${ACTION_CALLS_PER_TURN_MIN} to ${ACTION_CALLS_PER_TURN_MAX}.`) @IsInt() max_calls_per_turn: number;
  @Nested(() => ActionBuiltinsView) builtins: ActionBuiltinsView;
}

@Doc({ name: 'ActionBuiltinsUpdate', description: 'Built-in actions to switch; members left out stay as they are. Unknown members are rejected (400).' })
export class ActionBuiltinsChange {
  @IsOptional() @IsBoolean() booking?: boolean;
  @IsOptional() @IsBoolean() lead?: boolean;
  @IsOptional() @IsBoolean() handoff?: boolean;
}

@Doc({ name: 'BotActionSettingsUpdate', description: 'A change of the settings; members left out stay as they are. Unknown members are rejected (400).' })
export class UpdateBotActionSettingsBody {
  @Doc(`${ACTION_CALLS_PER_TURN_MIN} to ${ACTION_CALLS_PER_TURN_MAX}; default ${DEFAULT_ACTION_SETTINGS.max_calls_per_turn}.`)
  @IsOptional()
  @IsInt()
  @Min(ACTION_CALLS_PER_TURN_MIN)
  @Max(ACTION_CALLS_PER_TURN_MAX)
  max_calls_per_turn?: number;
  @IsOptional() @Nested(() => ActionBuiltinsChange) builtins?: ActionBuiltinsChange;
}

/**
 * An enabled action as chat calls it (bots.action.specs): the definition and the header values
 * still sealed, as one SecretBox-sealed JSON object of name → value (null: no headers). Chat
 * opens it for the call only. `user_id_param` is filled by chat from the verified session and
 * must be taken out of the schema the model sees.
 */
export interface ActionSpec {
  id: string;
  name: string;
  description: string;
  method: ActionMethod;
  url: string;
  parameters: Record<string, unknown>;
  header_names: string[];
  headers_sealed: string | null;
  confirm: boolean;
  verified_only: boolean;
  user_id_param: string | null;
  /** For people while it runs ("Checking your order…"); null: a generic one. */
  status_text?: string | null;
  /** Changes whenever the action does: a cache key. */
  updated_at: string;
}

/** What chat needs of a bot's actions for a turn (bots.action.specs). */
export interface BotActionSpecs {
  settings: BotActionSettingsView;
  /** Enabled actions only, oldest first. */
  actions: ActionSpec[];
  /** The bot's MCP servers with their enabled tools, oldest first (issue 34, item 3); none: [] or left out. */
  mcp_servers?: McpServerSpec[];
}

/** Path parameters of the console's …/bots/{botId}/actions/{actionId} routes. */
export class ActionParams extends BotParams {
  @IsUUID('all') actionId: string;
}

/** bots.action.list, bots.action-settings.get, bots.action.specs. */
export class BotActionsRequest {
  @IsUUID() botId: string;
}
/** bots.action.get, bots.action.delete. */
export class ActionIdRequest {
  @IsUUID() botId: string;
  @IsUUID() actionId: string;
}
export class CreateActionRequest extends CreateActionBody {
  @IsUUID() botId: string;
}
export class UpdateActionRequest extends UpdateActionBody {
  @IsUUID() botId: string;
  @IsUUID() actionId: string;
}
export class TestActionRequest extends TestActionBody {
  @IsUUID() botId: string;
  @IsUUID() actionId: string;
}
export class UpdateBotActionSettingsRequest extends UpdateBotActionSettingsBody {
  @IsUUID() botId: string;
}
