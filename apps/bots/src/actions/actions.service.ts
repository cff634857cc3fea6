import { Inject, Injectable } from '@nestjs/common';
import { executeAction, validateActionInput } from '@sa/actions';
import { BotAccess, enforceBotAccess } from '@sa/bot-access';
import {
  ACTION_TEST_INPUT_MAX_BYTES,
  ACTIONS_PER_BOT_MAX,
  ActionTestResult,
  ActionView,
  BotActionSettingsView,
  BotActionSpecs,
  CallerContext,
  CreateActionRequest,
  DEFAULT_ACTION_PARAMETERS,
  TestActionRequest,
  UpdateActionRequest,
  UpdateBotActionSettingsRequest,
  ValidationIssue,
} from '@sa/contracts';
import { DomainError, NotFound, ValidationFailed } from '@sa/errors';
import type { OutboundPolicy } from '@sa/net-guard';
import { SecretBox } from '@sa/secret-box';
import { WIDGET_SECRET_BOX } from '../widget/widget-settings.service';
import { defaultConfirm, definitionIssues, headerNameIssues, mergeHeaders, originOf } from './action-rules';
import { ActionFields, ActionRow, ActionsRepository, toActionSpec, toActionView } from './actions.repository';

/** The outbound policy a Test call goes through (OUTBOUND_*, as knowledge crawling and webhooks). */
export const ACTION_OUTBOUND_POLICY = Symbol('ACTION_OUTBOUND_POLICY');
/** The call itself: executeAction of @sa/actions (a stand-in in unit tests). */
export const ACTION_CALL = Symbol('ACTION_CALL');
export type ActionCall = typeof executeAction;

const ORIGIN_MOVED = 'Give the header values again with a new address: stored secrets are never sent to another address';

/**
 * A bot's actions (issue 34, first slice: the definitions) and its action settings. Header values
 * are sealed as they arrive, as one JSON object of name → value, and leave this service only
 * sealed (bots.action.specs, for chat) or not at all: views list the names, a Test opens them in
 * memory for the one call (executeAction cuts them out of what the endpoint sends back). The console checks the
 * caller's role (owners and admins change and test; members read) and writes the audit log.
 */
@Injectable()
export class ActionsService {
  constructor(
    private readonly repository: ActionsRepository,
    @Inject(WIDGET_SECRET_BOX) private readonly box: SecretBox,
    @Inject(ACTION_OUTBOUND_POLICY) private readonly policy: OutboundPolicy,
    @Inject(ACTION_CALL) private readonly call: ActionCall,
  ) {}

  /** The bot must be the caller's workspace's (404 otherwise) and one the caller may name. */
  private async bot(ctx: CallerContext, botId: string): Promise<void> {
    enforceBotAccess(ctx, BotAccess.MustName, botId);
    if (!(await this.repository.botExists(ctx.tenantId, botId))) throw new NotFound('Bot');
  }

  private async row(ctx: CallerContext, botId: string, id: string): Promise<ActionRow> {
    enforceBotAccess(ctx, BotAccess.MustName, botId);
    const row = await this.repository.find(ctx.tenantId, botId, id);
    if (!row) throw new NotFound('Action');
    return row;
  }

  async list(ctx: CallerContext, botId: string): Promise<ActionView[]> {
    await this.bot(ctx, botId);
    return (await this.repository.list(ctx.tenantId, botId)).map(toActionView);
  }

  async get(ctx: CallerContext, botId: string, id: string): Promise<ActionView> {
    return toActionView(await this.row(ctx, botId, id));
  }

  async create(ctx: CallerContext, req: CreateActionRequest): Promise<ActionView> {
    enforceBotAccess(ctx, BotAccess.MustName, req.botId);
    const headers = req.headers ?? [];
    const fields: ActionFields = {
      name: req.name,
      description: req.description.trim(),
      method: req.method,
      url: req.url,
      parameters: req.parameters ?? { ...DEFAULT_ACTION_PARAMETERS, properties: {} },
      header_names: headers.map((h) => h.name),
      headers_sealed: null,
      confirm: req.confirm ?? defaultConfirm(req.method),
      verified_only: req.verified_only ?? false,
      user_id_param: req.user_id_param ?? null,
      status_text: req.status_text?.trim() ?? null,
      enabled: req.enabled ?? true,
    };
    this.check([...headerNameIssues(fields.header_names), ...definitionIssues(fields)]);
    fields.headers_sealed = this.seal(headers.map((h) => [h.name, h.value]));
    const id = await this.unique(() => this.repository.insert(ctx.tenantId, req.botId, fields, ACTIONS_PER_BOT_MAX));
    if (id === undefined) throw new NotFound('Bot');
    if (id === null) throw new DomainError('conflict', `A bot has at most ${ACTIONS_PER_BOT_MAX} actions`);
    return this.get(ctx, req.botId, id);
  }

  async update(ctx: CallerContext, req: UpdateActionRequest): Promise<ActionView> {
    const current = await this.row(ctx, req.botId, req.actionId);
    const method = req.method ?? current.method;
    const next: ActionFields = {
      name: req.name ?? current.name,
      description: req.description?.trim() ?? current.description,
      method,
      url: req.url ?? current.url,
      parameters: req.parameters ?? current.parameters,
      header_names: current.header_names,
      headers_sealed: current.headers_sealed,
      confirm: req.confirm ?? current.confirm,
      verified_only: req.verified_only ?? current.verified_only,
      user_id_param: req.user_id_param !== undefined ? req.user_id_param : current.user_id_param,
      status_text: req.status_text !== undefined ? (req.status_text?.trim() ?? null) : current.status_text,
      enabled: req.enabled ?? current.enabled,
    };
    const issues: ValidationIssue[] = [];
    // Values kept from storage (names re-sent without a value, or no `headers` at all).
    let kept = current.header_names.length > 0;
    let headers: [string, string][] | null = null;
    if (req.headers) {
      const merged = mergeHeaders(req.headers, () => this.open(current.headers_sealed));
      issues.push(...headerNameIssues(req.headers.map((h) => h.name)), ...merged.issues);
      kept = merged.kept;
      headers = merged.headers;
    }
    // The principle of model connections' base_url: a stored secret only goes where it was given for.
    if (kept && originOf(next.url) !== originOf(current.url)) issues.push({ code: 'required', path: ['body', 'headers'], message: ORIGIN_MOVED });
    issues.push(...definitionIssues(next));
    this.check(issues);
    if (headers) {
      next.header_names = headers.map(([name]) => name);
      next.headers_sealed = this.seal(headers);
    }
    await this.unique(() => this.repository.update(ctx.tenantId, req.botId, req.actionId, next));
    return this.get(ctx, req.botId, req.actionId);
  }

  async delete(ctx: CallerContext, botId: string, id: string): Promise<{ deleted: true }> {
    enforceBotAccess(ctx, BotAccess.MustName, botId);
    if (!(await this.repository.delete(ctx.tenantId, botId, id))) throw new NotFound('Action');
    return { deleted: true };
  }

  /**
   * One call with the owner's sample input, through the outbound policy. The input is checked
   * against the parameters first (a mismatch is the result invalid_input); a refusal, a timeout or
   * an HTTP error is a result too. Header values are opened for this call only.
   */
  async test(ctx: CallerContext, req: TestActionRequest): Promise<ActionTestResult> {
    const row = await this.row(ctx, req.botId, req.actionId);
    const input = req.input ?? {};
    if (Buffer.byteLength(JSON.stringify(input), 'utf8') > ACTION_TEST_INPUT_MAX_BYTES) {
      throw new ValidationFailed([{ code: 'too_big', path: ['body', 'input'], message: `input must be at most ${ACTION_TEST_INPUT_MAX_BYTES / 1024} KiB as JSON` }]);
    }
    const checked = validateActionInput(row.parameters, input);
    if (!checked.ok) {
      return { ok: false, status: null, duration_ms: 0, result: '', truncated: false, error: 'invalid_input', message: `The input does not fit the parameters: ${checked.errors.join('; ')}` };
    }
    // executeAction cuts every header value out of what it returns, also when the endpoint echoes it.
    const r = await this.call({ method: row.method, url: row.url, headers: this.open(row.headers_sealed) }, checked.value, { policy: this.policy });
    return { ok: r.ok, status: r.status, duration_ms: r.duration_ms, result: r.result, truncated: r.truncated, error: r.error, message: r.message };
  }

  async settings(ctx: CallerContext, botId: string): Promise<BotActionSettingsView> {
    await this.bot(ctx, botId);
    return this.repository.settings(ctx.tenantId, botId);
  }

  async updateSettings(ctx: CallerContext, req: UpdateBotActionSettingsRequest): Promise<BotActionSettingsView> {
    await this.bot(ctx, req.botId);
    const current = await this.repository.settings(ctx.tenantId, req.botId);
    const next: BotActionSettingsView = {
      max_calls_per_turn: req.max_calls_per_turn ?? current.max_calls_per_turn,
      builtins: {
        booking: req.builtins?.booking ?? current.builtins.booking,
        lead: req.builtins?.lead ?? current.builtins.lead,
        handoff: req.builtins?.handoff ?? current.builtins.handoff,
      },
    };
    await this.repository.saveSettings(ctx.tenantId, req.botId, next);
    return this.repository.settings(ctx.tenantId, req.botId);
  }

  /** For chat (bots.action.specs): the settings and the enabled actions, header values still sealed. */
  async specs(ctx: CallerContext, botId: string): Promise<BotActionSpecs> {
    await this.bot(ctx, botId);
    const [settings, rows] = await Promise.all([this.repository.settings(ctx.tenantId, botId), this.repository.list(ctx.tenantId, botId, { enabledOnly: true })]);
    return { settings, actions: rows.map(toActionSpec) };
  }

  private check(issues: ValidationIssue[]): void {
    if (issues.length) throw new ValidationFailed(issues);
  }

  /** One sealed JSON object of name → value; null: no headers. */
  private seal(headers: readonly (readonly [string, string])[]): string | null {
    return headers.length ? this.box.seal(JSON.stringify(Object.fromEntries(headers))) : null;
  }

  private open(sealed: string | null): Record<string, string> {
    return sealed ? (JSON.parse(this.box.open(sealed)) as Record<string, string>) : {};
  }

  /** A second action of the bot with the same name (case-insensitive) is a 409. */
  private async unique<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if ((err as { code?: string }).code === '23505') throw new DomainError('conflict', 'The bot has an action with this name already');
      throw err;
    }
  }
}
