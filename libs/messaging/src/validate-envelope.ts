import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { CallerContext, RPC, RpcSubject, toValidationIssues } from '@sa/contracts';
import { ValidationFailed } from '@sa/errors';

const VALIDATOR_OPTIONS = { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: false } as const;

/**
 * Validates a DTO the way every edge does (gateway bodies and queries, NATS handlers): unknown
 * members are rejected, every rule of the class applies. Returns the typed instance.
 */
export function validateDto<T extends object>(cls: new () => T, plain: unknown, basePath: (string | number)[] = []): T {
  if (plain === null || typeof plain !== 'object' || Array.isArray(plain)) {
    throw new ValidationFailed([{ code: 'invalid_type', path: basePath, message: `${basePath.join('.') || 'payload'} must be a JSON object` }]);
  }
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
  const ctx = validateDto(CallerContext, envelope.ctx, ['ctx']);
  return { data, ctx };
}
