import type { FastifyInstance } from 'fastify';
import { errorCodeSent } from '@sa/edge';
import { counter } from '@sa/metrics';

export const WIDGET_REFUSAL_REASONS = ['rate_limited', 'budget_exhausted', 'session_forbidden', 'origin_not_allowed', 'workspace_locked', 'not_found', 'invalid'] as const;
export type WidgetRefusalReason = (typeof WIDGET_REFUSAL_REASONS)[number];

const refusals = counter({
  name: 'sa_widget_refusals_total',
  help: `Public widget requests refused, by reason (${WIDGET_REFUSAL_REASONS.join(', ')})`,
  labelNames: ['reason'] as const,
});

/** Why a widget request was refused, by the code of its error body; null when it is not a refusal (a failure of ours). */
export function refusalReason(code: string | undefined): WidgetRefusalReason | null {
  switch (code) {
    case 'rate_limited':
      return 'rate_limited';
    case 'widget_budget_exhausted':
      return 'budget_exhausted';
    case 'session_forbidden':
      return 'session_forbidden';
    case 'origin_not_allowed':
      return 'origin_not_allowed';
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

/**
 * Counts the widget routes' refusals in sa_widget_refusals_total, whoever refused: the edge's gate
 * (the per-address limit), the JSON body parser (other content types, deep nesting), validation,
 * or the widget's own checks. Read from the error each response was answered with.
 */
export function countWidgetRefusals(fastify: FastifyInstance, prefix: string): void {
  fastify.addHook('onResponse', (req, reply, done) => {
    if (reply.statusCode >= 400 && req.url.startsWith(prefix)) {
      const reason = refusalReason(errorCodeSent(reply));
      if (reason) refusals.inc({ reason });
    }
    done();
  });
}
