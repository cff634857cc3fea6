import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync } from 'class-validator';
import { CallerContext, ENTERPRISE_TIERS, Entitlements, PLANS, RPC, RpcSubject, SCOPES, plainJsonIssue, toValidationIssues } from '@sa/contracts';
import { ValidationFailed } from '@sa/errors';

const VALIDATOR_OPTIONS = { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: false } as const;

const ruleCache = new WeakMap<object, boolean>();

function hasRules(cls: new () => object): boolean {
  let has = ruleCache.get(cls);
  if (has === undefined) {
    has = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false).length > 0;
    ruleCache.set(cls, has);
  }
  return has;
}

/**
 * Validates a DTO the way every edge does (gateway bodies, queries and path parameters, NATS
 * handlers): first what no payload may hold (NUL, unpaired surrogates, Object.prototype member
 * names, nesting beyond MAX_JSON_DEPTH; see plainJsonIssue), then every rule of the class, with
 * unknown members rejected. Returns the typed instance.
 */
export function validateDto<T extends object>(cls: new () => T, plain: unknown, basePath: (string | number)[] = []): T {
  if (plain === null || typeof plain !== 'object' || Array.isArray(plain)) {
    throw new ValidationFailed([{ code: 'invalid_type', path: basePath, message: `${basePath.join('.') || 'payload'} must be a JSON object` }]);
  }
  const unsafe = plainJsonIssue(plain, basePath);
  if (unsafe) throw new ValidationFailed([unsafe]);
  // A DTO without rules (list requests, empty queries) given an empty object: nothing to check.
  if (!hasRules(cls) && Object.keys(plain).length === 0) return new cls();
  const instance = plainToInstance(cls, plain, { enableImplicitConversion: false });
  const errors = validateSync(instance, VALIDATOR_OPTIONS);
  if (errors.length) throw new ValidationFailed(toValidationIssues(errors, basePath));
  return instance;
}

/** Validates the `{ctx, data}` envelope of one RPC against the contract map. */
export function validateEnvelope<S extends RpcSubject>(subject: S, payload: unknown): { data: object; ctx?: CallerContext } {
  const def = RPC[subject];
  const envelope = (payload ?? {}) as { ctx?: unknown; data?: unknown };
  const data = validateDto(def.request as new () => object, envelope.data ?? {}, []);
  if (!def.authenticated) return { data };
  if (!envelope.ctx) throw new ValidationFailed([{ code: 'required', path: ['ctx'], message: 'caller context is required' }]);
  const ctx = acceptCallerContext(envelope.ctx) ?? validateDto(CallerContext, envelope.ctx, ['ctx']);
  return { data, ctx };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const CTX_KEYS = new Set(['tenantId', 'tokenId', 'scopes', 'botIds', 'requestId', 'entitlements']);
const ENTITLEMENT_KEYS = new Set(['plan', 'botSlots', 'tierSlots', 'messagesPerMonth', 'pagesPerBot', 'widgetMessagesPerBotPerMonth', 'webhooks']);
const SCOPE_SET = new Set<string>(SCOPES);
const PLAN_SET = new Set<string>(PLANS);
const isCount = (v: unknown) => Number.isInteger(v) && (v as number) >= 0;
const onlyKeys = (o: object, allowed: Set<string>) => Object.keys(o).every((k) => allowed.has(k));

/**
 * The hot path of every RPC: a strict hand-written check of the caller context (every rule of the
 * CallerContext class, and no unknown members). A context it accepts is valid; one it does not is
 * handed to class-validator, which explains what is wrong. Validating every message with
 * class-validator cost a measurable share of each request (bench/README.md).
 */
export function acceptCallerContext(plain: unknown): CallerContext | null {
  if (!plain || typeof plain !== 'object' || Array.isArray(plain)) return null;
  const c = plain as Record<string, unknown>;
  if (!onlyKeys(c, CTX_KEYS)) return null;
  if (typeof c['tenantId'] !== 'string' || !UUID.test(c['tenantId'])) return null;
  if (c['tokenId'] !== undefined && c['tokenId'] !== null && (typeof c['tokenId'] !== 'string' || !UUID.test(c['tokenId']))) return null;
  if (!Array.isArray(c['scopes']) || !c['scopes'].every((s) => typeof s === 'string' && SCOPE_SET.has(s))) return null;
  const botIds = c['botIds'];
  if (botIds !== undefined && botIds !== null && (!Array.isArray(botIds) || !botIds.every((b) => typeof b === 'string' && UUID.test(b)))) return null;
  if (typeof c['requestId'] !== 'string' || c['requestId'].length > 128) return null;
  const e = c['entitlements'] as Record<string, unknown> | null | undefined;
  if (!e || typeof e !== 'object' || Array.isArray(e) || !onlyKeys(e, ENTITLEMENT_KEYS)) return null;
  if (typeof e['plan'] !== 'string' || !PLAN_SET.has(e['plan'])) return null;
  if (!isCount(e['botSlots']) || !isCount(e['messagesPerMonth']) || !isCount(e['pagesPerBot']) || !isCount(e['widgetMessagesPerBotPerMonth']) || typeof e['webhooks'] !== 'boolean') return null;
  const tiers = e['tierSlots'] as Record<string, unknown> | null;
  if (!tiers || typeof tiers !== 'object' || Array.isArray(tiers) || !Object.values(tiers).every(isCount)) return null;
  if (!Object.keys(tiers).every((t) => (ENTERPRISE_TIERS as readonly string[]).includes(t))) return null;
  const ctx = Object.assign(new CallerContext(), c);
  ctx.entitlements = Object.assign(new Entitlements(), e);
  return ctx;
}
