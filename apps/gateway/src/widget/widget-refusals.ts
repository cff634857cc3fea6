import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Observable, catchError, throwError } from 'rxjs';
import { DomainError } from '@sa/errors';
import { counter } from '@sa/metrics';

export const WIDGET_REFUSAL_REASONS = ['rate_limited', 'budget_exhausted', 'session_forbidden', 'workspace_locked', 'not_found', 'invalid'] as const;
export type WidgetRefusalReason = (typeof WIDGET_REFUSAL_REASONS)[number];

const refusals = counter({
  name: 'sa_widget_refusals_total',
  help: `Public widget requests refused, by reason (${WIDGET_REFUSAL_REASONS.join(', ')})`,
  labelNames: ['reason'] as const,
});

/** Why a widget request was refused, or null when the error is not a refusal (a failure of ours). */
export function refusalReason(err: unknown): WidgetRefusalReason | null {
  if (!(err instanceof DomainError)) return null;
  switch (err.code) {
    case 'rate_limited':
      return 'rate_limited';
    case 'widget_budget_exhausted':
      return 'budget_exhausted';
    case 'session_forbidden':
      return 'session_forbidden';
    case 'api_locked':
      return 'workspace_locked';
    case 'not_found':
      return 'not_found';
    case 'validation_failed':
    case 'bad_request':
      return 'invalid';
    default:
      return null;
  }
}

/** Counts the widget routes' refusals in sa_widget_refusals_total; the error goes on unchanged. */
@Injectable()
export class WidgetRefusals implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      catchError((err: unknown) => {
        const reason = refusalReason(err);
        if (reason) refusals.inc({ reason });
        return throwError(() => err);
      }),
    );
  }
}
