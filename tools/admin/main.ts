import 'reflect-metadata';
import pino from 'pino';
import { DEFAULT_DATABASE_URL, DEFAULT_NATS_URL } from '@sa/config';
import { BillingStatus, Plan, TierSlots, WEBHOOK_EVENT_TYPES } from '@sa/contracts';
import { DomainError } from '@sa/errors';
import { createLogger } from '@sa/logging';
import { AdminInputError, IdentityAdmin, WorkspaceChanges, WorkspaceEntity } from '@sa/identity-db';
import { WebhookAdmin, WebhookInputError } from '@sa/webhook-registry';
import { AdminConnections, adminTargets, botDirectory, listMail, requireWorkspace, webhookDirectory } from './operator';
import { auditCli, cliPeopleAdmin, cliUser, createUser, parseRole, readPasswordFromStdin, tokenWorkspace, webhookWorkspace } from './people-commands';
import { ParsedArgs, UsageError, parseArgs, rejectLeftovers, requireString, takeBool, takeInt, takeList, takeString } from './args';
import { WIDGET_BOOLEAN_FLAGS, widgetBot, widgetChange } from './widget-commands';
import { DEFAULT_EVAL_TIMEOUT_SECONDS, parseMinPass, parseTimeout, runEvaluation } from './eval-commands';
import {
  DEFAULT_DELIVERIES_LIMIT,
  DEFAULT_REDELIVER_WAIT_SECONDS,
  DELIVERY_STATUSES,
  MAX_DELIVERIES_LIMIT,
  isDeliveryStatus,
  redeliverAndWait,
  webhookAdminOptions,
} from './webhook-commands';

const USAGE = `Usage: npm run -s admin -- <command> [options]   (JSON on stdout)

  workspace create --name N --plan growth_trial|growth|scale|enterprise [--trial-ends ISO]
                   [--enterprise-api] [--enterprise-webhooks] [--tier-slots starter=1,growth=0,scale=2]
                   [--messages-per-month N] [--pages-per-bot N] [--bot-slots N] [--status active|past_due|canceled]
  workspace update --id ID [the same options] [--no-enterprise-api] [--no-enterprise-webhooks]
  workspace show   --id ID
  user create      --workspace ID --email E --role owner|admin|member --password-stdin [--name N]
                   (the person is created, or found by e-mail and given this password; prints its id)
  token create     --workspace ID --scopes a,b|all [--bots id,id] [--expires-in SECONDS] [--name N]
  token revoke     --id ID
  token list       --workspace ID
  mail list        --workspace ID     (visitor e-mails of bookings, kept when no SMTP is configured)
  webhook create   --workspace ID --url URL --events a,b|all [--bot ID] [--name NAME (default: the endpoint's host)]
                   (the signing secret is shown only here)
                   events: ${WEBHOOK_EVENT_TYPES.join(', ')}
  webhook list     --workspace ID     (each with its last delivery)
  webhook delete   --id ID [--workspace ID]
  webhook deliveries --webhook ID [--limit N (1-${MAX_DELIVERIES_LIMIT}, default ${DEFAULT_DELIVERIES_LIMIT})] [--status ${DELIVERY_STATUSES.join('|')}]
  webhook redeliver --delivery ID [--wait SECONDS (default ${DEFAULT_REDELIVER_WAIT_SECONDS}; 0: do not wait for the result)]
  widget show      --bot ID           (the visitor widget's settings of a bot)
  widget set       --bot ID [--origins https://a.example,https://b.example | --no-origins] [--color #rrggbb]
                   [--position left|right] [--greeting TEXT | --no-greeting] [--launcher-text TEXT | --no-launcher-text]
                   (no origins: every website may use the widget)
  widget rotate-secret --bot ID       (a new identity secret for identify's userHash; shown only here)
  eval run         --bot ID [--min-pass 0.9|90%] [--timeout SECONDS (default ${DEFAULT_EVAL_TIMEOUT_SECONDS})]
                   (runs the bot's test set, waits, prints the results; exits 1 when the pass rate is
                   under --min-pass, else under the bot's gate, or when the run did not complete)

Environment: each service's data is reached as its owner reaches it: workspaces and tokens as
the gateway (GATEWAY_DATABASE_URL), webhooks as the webhook-dispatcher
(WEBHOOK_DISPATCHER_DATABASE_URL), people and the audit log as the console (CONSOLE_DATABASE_URL);
unset, DATABASE_URL (default ${DEFAULT_DATABASE_URL}) with the app's role (sa_gateway,
sa_webhook_dispatcher, sa_console) as the user. Every change is written to the console's audit log
as made by cli:<operating-system user>. NATS_URL (default ${DEFAULT_NATS_URL})
for what running services answer: bot ids (token create --bots, webhook create --bot), mail list, widget and eval.
For webhook commands also WEBHOOK_SECRET_KEY (32 bytes, 64 hex characters or base64: signing secrets are stored encrypted with it;
required with NODE_ENV=production, else the key in WEBHOOK_SECRET_KEY_FILE, .data/webhook-secret-key,
the one npm start uses),
WEBHOOK_MAX_PER_WORKSPACE (default 20), OUTBOUND_ALLOWED_PORTS and OUTBOUND_ALLOW_CIDRS.`;

/** A result printed as usual, then the process ends with this code (eval run under its threshold). */
class Verdict {
  constructor(
    readonly result: unknown,
    readonly exitCode: number,
  ) {}
}

const BOOLEAN_FLAGS = new Set(['enterprise-api', 'enterprise-webhooks', 'help', 'password-stdin', ...WIDGET_BOOLEAN_FLAGS]);

function tierSlots(args: ParsedArgs): Partial<TierSlots> | undefined {
  const list = takeList(args, 'tier-slots');
  if (!list) return undefined;
  const out: Record<string, number> = {};
  for (const item of list) {
    const m = /^([a-z]+)=(\d+)$/.exec(item);
    if (!m) throw new UsageError(`--tier-slots takes tier=count pairs such as starter=1,growth=0 (got "${item}")`);
    out[m[1]] = Number(m[2]);
  }
  return out as Partial<TierSlots>;
}

function workspaceChanges(args: ParsedArgs): WorkspaceChanges {
  const trialEnds = takeString(args, 'trial-ends');
  let trialEndsAt: Date | undefined;
  if (trialEnds !== undefined) {
    trialEndsAt = new Date(trialEnds);
    if (!/^\d{4}-\d{2}-\d{2}/.test(trialEnds) || Number.isNaN(trialEndsAt.getTime())) throw new UsageError(`--trial-ends must be an ISO 8601 date-time (got "${trialEnds}")`);
  }
  return {
    name: takeString(args, 'name'),
    plan: takeString(args, 'plan') as Plan | undefined,
    trialEndsAt,
    billingStatus: takeString(args, 'status') as BillingStatus | undefined,
    enterpriseApi: takeBool(args, 'enterprise-api'),
    enterpriseWebhooks: takeBool(args, 'enterprise-webhooks'),
    tierSlots: tierSlots(args),
    messagesPerMonth: takeInt(args, 'messages-per-month'),
    pagesPerBot: takeInt(args, 'pages-per-bot'),
    botSlots: takeInt(args, 'bot-slots'),
  };
}

function workspaceJson(w: WorkspaceEntity): Record<string, unknown> {
  return {
    id: w.id,
    name: w.name,
    plan: w.plan,
    trial_ends_at: w.trialEndsAt?.toISOString() ?? null,
    status: w.billingStatus,
    enterprise_api: w.enterpriseApi,
    enterprise_webhooks: w.enterpriseWebhooks,
    tier_slots: w.tierSlots,
    messages_per_month: w.messagesPerMonth,
    pages_per_bot: w.pagesPerBot,
    bot_slots: w.botSlots,
  };
}

async function run(argv: string[]): Promise<unknown> {
  const args = parseArgs(argv, BOOLEAN_FLAGS);
  const [group, action, ...extra] = args.positionals;
  if (args.flags.get('help') || !group) throw new UsageError('');
  if (extra.length) throw new UsageError(`unexpected argument(s): ${extra.join(' ')}`);
  const command = `${group} ${action ?? ''}`.trim();
  // Read before connecting, so that a bad WEBHOOK_* or OUTBOUND_* variable is reported first.
  const webhookOptions = group === 'webhook' ? webhookAdminOptions() : undefined;
  // Stdout is the command's JSON result: TypeORM's log lines (failed queries) go to stderr.
  const logger = createLogger('admin-cli', { destination: pino.destination(2) });
  const connections = new AdminConnections(adminTargets(), logger);
  const identity = async () => new IdentityAdmin(await connections.identity(), botDirectory(connections));
  const webhooks = async () => new WebhookAdmin(await connections.webhooks(), webhookOptions ?? webhookAdminOptions(), webhookDirectory(connections));
  // The audit row of a change, after it was made (the change stands if the row cannot be written: said on stderr).
  const audit = async (workspaceId: string | null, action: string, targetKind: string, targetId: string | null, details: Record<string, unknown> = {}) => {
    try {
      await auditCli(await connections.people(), { workspaceId, action, targetKind, targetId, details });
    } catch (err) {
      process.stderr.write(`warning: done, but the audit log entry was not written: ${(err as Error).message}\n`);
    }
  };
  try {
    switch (command) {
      case 'workspace create': {
        const changes = workspaceChanges(args);
        if (!changes.name) throw new UsageError('--name is required');
        if (!changes.plan) throw new UsageError('--plan is required');
        rejectLeftovers(args);
        const created = await (await identity()).createWorkspace({ ...changes, name: changes.name, plan: changes.plan });
        await audit(created.id, 'workspace.created', 'workspace', created.id, { name: created.name, plan: created.plan });
        return workspaceJson(created);
      }
      case 'workspace update': {
        const id = requireString(args, 'id');
        const changes = workspaceChanges(args);
        rejectLeftovers(args);
        const updated = await (await identity()).updateWorkspace(id, changes);
        const changed = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined).map(([k, v]) => [k, v instanceof Date ? v.toISOString() : v]));
        await audit(updated.id, 'workspace.updated', 'workspace', updated.id, changed);
        return workspaceJson(updated);
      }
      case 'workspace show': {
        const id = requireString(args, 'id');
        rejectLeftovers(args);
        const w = await (await identity()).getWorkspace(id);
        if (!w) throw new AdminInputError(`no workspace with id ${id}`);
        return workspaceJson(w);
      }
      case 'user create': {
        const workspaceId = requireString(args, 'workspace');
        const email = requireString(args, 'email');
        const role = parseRole(requireString(args, 'role'));
        const displayName = takeString(args, 'name');
        if (!takeBool(args, 'password-stdin')) throw new UsageError('--password-stdin is required: the password is read from standard input, never from the command line');
        rejectLeftovers(args);
        await requireWorkspace(connections, workspaceId);
        const password = await readPasswordFromStdin();
        return await createUser(cliPeopleAdmin(await connections.people()), { workspaceId, email, role, password, displayName }, cliUser());
      }
      case 'token create': {
        const workspaceId = requireString(args, 'workspace');
        const scopes = requireString(args, 'scopes');
        const input = {
          workspaceId,
          scopes: scopes === 'all' ? ('all' as const) : (scopes.split(',').map((s) => s.trim()).filter(Boolean) as never[]),
          botIds: takeList(args, 'bots'),
          expiresInSeconds: takeInt(args, 'expires-in'),
          name: takeString(args, 'name'),
        };
        rejectLeftovers(args);
        const created = await (await identity()).createToken(input);
        await audit(workspaceId, 'token.created', 'token', created.summary.id, { name: created.summary.name, scopes: created.summary.scopes, bot_ids: created.summary.bot_ids, expires_at: created.summary.expires_at });
        const { id, ...summary } = created.summary;
        return { id, token: created.token, ...summary };
      }
      case 'token revoke': {
        const id = requireString(args, 'id');
        rejectLeftovers(args);
        const revoked = await (await identity()).revokeToken(id);
        await audit(await tokenWorkspace(await connections.identity(), id), 'token.revoked', 'token', revoked.id, { name: revoked.name });
        return revoked;
      }
      case 'mail list': {
        const workspaceId = requireString(args, 'workspace');
        rejectLeftovers(args);
        return { data: await listMail(connections, workspaceId) };
      }
      case 'token list': {
        const workspaceId = requireString(args, 'workspace');
        rejectLeftovers(args);
        return { data: await (await identity()).listTokens(workspaceId) };
      }
      case 'webhook create': {
        const input = {
          workspaceId: requireString(args, 'workspace'),
          url: requireString(args, 'url'),
          events: requireString(args, 'events').split(','),
          botId: takeString(args, 'bot') ?? null,
          name: takeString(args, 'name') ?? null,
        };
        rejectLeftovers(args);
        const created = await (await webhooks()).create(input);
        await audit(input.workspaceId, 'webhook.created', 'webhook', created.id, { url: created.url, events: created.events, bot_id: created.bot_id });
        return created;
      }
      case 'webhook list': {
        const workspaceId = requireString(args, 'workspace');
        rejectLeftovers(args);
        return { data: await (await webhooks()).list(workspaceId) };
      }
      case 'webhook delete': {
        const id = requireString(args, 'id');
        const workspaceId = takeString(args, 'workspace');
        rejectLeftovers(args);
        const owner = await webhookWorkspace(await connections.webhooks(), 'webhook', id).catch(() => null);
        const deleted = await (await webhooks()).delete(id, workspaceId);
        await audit(owner ?? workspaceId ?? null, 'webhook.deleted', 'webhook', id);
        return deleted;
      }
      case 'webhook deliveries': {
        const webhookId = requireString(args, 'webhook');
        const limit = takeInt(args, 'limit') ?? DEFAULT_DELIVERIES_LIMIT;
        if (limit < 1 || limit > MAX_DELIVERIES_LIMIT) throw new UsageError(`--limit must be between 1 and ${MAX_DELIVERIES_LIMIT} (got ${limit})`);
        const status = takeString(args, 'status');
        if (status !== undefined && !isDeliveryStatus(status)) throw new UsageError(`--status must be one of ${DELIVERY_STATUSES.join(', ')} (got "${status}")`);
        rejectLeftovers(args);
        return { data: await (await webhooks()).deliveries(webhookId, { limit, status }) };
      }
      case 'webhook redeliver': {
        const id = requireString(args, 'delivery');
        const waitSeconds = takeInt(args, 'wait') ?? DEFAULT_REDELIVER_WAIT_SECONDS;
        rejectLeftovers(args);
        const owner = await webhookWorkspace(await connections.webhooks(), 'delivery', id).catch(() => null);
        const result = await redeliverAndWait(await webhooks(), id, waitSeconds * 1000);
        await audit(owner, 'delivery.redelivered', 'delivery', id);
        return result;
      }
      case 'widget show': {
        const botId = requireString(args, 'bot');
        rejectLeftovers(args);
        const bot = await widgetBot(connections, botId);
        return await (await connections.rpc()).send('bots.widget.get', { botId: bot.botId }, bot.ctx);
      }
      case 'widget set': {
        const botId = requireString(args, 'bot');
        const change = widgetChange(args);
        rejectLeftovers(args);
        const bot = await widgetBot(connections, botId);
        const updated = await (await connections.rpc()).send('bots.widget.update', { ...change, botId: bot.botId }, bot.ctx);
        await audit(bot.workspaceId, 'widget.updated', 'bot', bot.botId, { ...change });
        return updated;
      }
      case 'widget rotate-secret': {
        const botId = requireString(args, 'bot');
        rejectLeftovers(args);
        const bot = await widgetBot(connections, botId);
        const made = await (await connections.rpc()).send('bots.widget.secret.rotate', { botId: bot.botId }, bot.ctx);
        // The secret itself is never written to the audit log.
        await audit(bot.workspaceId, 'widget.secret_rotated', 'bot', bot.botId, { created_at: made.created_at });
        return made;
      }
      case 'eval run': {
        const botId = requireString(args, 'bot');
        const minPass = parseMinPass(args);
        const timeout = parseTimeout(args);
        rejectLeftovers(args);
        const bot = await widgetBot(connections, botId);
        const outcome = await runEvaluation(await connections.rpc(), bot.ctx, bot.botId, minPass, timeout, (line) => process.stderr.write(`${line}\n`));
        await audit(bot.workspaceId, 'evaluation.run_started', 'bot', bot.botId, { run_id: outcome.run.id, trigger: 'cli' });
        return new Verdict(outcome, outcome.passed ? 0 : 1);
      }
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } finally {
    await connections.close();
  }
}

run(process.argv.slice(2))
  .then((result) => {
    const verdict = result instanceof Verdict ? result : new Verdict(result, 0);
    process.stdout.write(`${JSON.stringify(verdict.result, null, 2)}\n`);
    process.exitCode = verdict.exitCode;
  })
  .catch((err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message ? `error: ${err.message}\n\n` : ''}${USAGE}\n`);
      process.exit(2);
    }
    if (err instanceof AdminInputError || err instanceof WebhookInputError || err instanceof DomainError) {
      process.stderr.write(`error: ${err.message}\n`);
      process.exit(1);
    }
    process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
