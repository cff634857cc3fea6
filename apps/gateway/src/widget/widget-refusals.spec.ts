import 'reflect-metadata';
import { ApiLocked, DomainError, NotFound, QuotaExhausted, RateLimited, SessionForbidden, ValidationFailed, WidgetBudgetExhausted } from '@sa/errors';
import { firstValueFrom, throwError } from 'rxjs';
import { metricsRegistry } from '@sa/metrics';
import { WidgetRefusals, refusalReason } from './widget-refusals';

describe('refusalReason', () => {
  it.each([
    [new RateLimited(3), 'rate_limited'],
    [new WidgetBudgetExhausted(3), 'budget_exhausted'],
    [new SessionForbidden(), 'session_forbidden'],
    [new ApiLocked(), 'workspace_locked'],
    [new NotFound('Bot'), 'not_found'],
    [new ValidationFailed([]), 'invalid'],
    [new DomainError('bad_request', 'x'), 'invalid'],
  ])('%s → %s', (err, reason) => {
    expect(refusalReason(err)).toBe(reason);
  });

  it('is null for failures of ours and for what is not a domain error', () => {
    expect(refusalReason(new DomainError('service_unavailable', 'down'))).toBeNull();
    expect(refusalReason(new DomainError('internal_error', 'boom'))).toBeNull();
    expect(refusalReason(new QuotaExhausted('used up'))).toBeNull();
    expect(refusalReason(new Error('boom'))).toBeNull();
    expect(refusalReason(undefined)).toBeNull();
  });
});

describe('WidgetRefusals', () => {
  const count = async (reason: string) => (await metricsRegistry.getSingleMetric('sa_widget_refusals_total')!.get()).values.find((v) => v.labels['reason'] === reason)?.value ?? 0;

  it('counts a refusal by reason and passes the same error on', async () => {
    const before = await count('session_forbidden');
    const err = new SessionForbidden();
    const out = new WidgetRefusals().intercept({} as never, { handle: () => throwError(() => err) });
    await expect(firstValueFrom(out)).rejects.toBe(err);
    expect(await count('session_forbidden')).toBe(before + 1);
  });

  it('does not count other errors', async () => {
    const before = (await metricsRegistry.getSingleMetric('sa_widget_refusals_total')!.get()).values.reduce((n, v) => n + v.value, 0);
    const out = new WidgetRefusals().intercept({} as never, { handle: () => throwError(() => new Error('boom')) });
    await expect(firstValueFrom(out)).rejects.toThrow('boom');
    expect((await metricsRegistry.getSingleMetric('sa_widget_refusals_total')!.get()).values.reduce((n, v) => n + v.value, 0)).toBe(before);
  });
});
