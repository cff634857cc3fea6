import { ActionCallResult, executeAction, validateActionInput } from '@sa/actions';
import type { ActionSpec } from '@sa/contracts';
import type { OutboundPolicy } from '@sa/net-guard';
import type { SecretBox } from '@sa/secret-box';
import type { LoopTool, ToolOutcome } from './tool-loop';

/*
 * A bot's actions (bots.action.specs) as the tool loop's tools (issue 34). The model sees each
 * action's parameters without the one the service fills (`user_id_param`: the verified visitor's
 * `external_user_id`, never the model's text); a call is the model's input with that member set
 * by us, checked against the action's schema, sent by executeAction of @sa/actions through the
 * outbound guard with the header values opened from their seal for that call only.
 */

export interface ActionToolsContext {
  /** Opens the sealed header values (the bots service's key, shared as for model keys). */
  box: SecretBox;
  policy: OutboundPolicy;
  /** The verified visitor's id in this conversation; null: not verified. */
  externalUserId: string | null;
  /** executeAction's options beyond the policy (tests: a local endpoint over http). */
  call?: { timeoutMs?: number; allowHttp?: boolean };
}

/** The schema the model sees: the action's, less the member the service fills. */
export function modelParameters(spec: Pick<ActionSpec, 'parameters' | 'user_id_param'>): Record<string, unknown> {
  const hidden = spec.user_id_param;
  if (!hidden) return spec.parameters;
  const properties = { ...((spec.parameters.properties as Record<string, unknown> | undefined) ?? {}) };
  delete properties[hidden];
  // An empty `required` is invalid in older JSON Schema drafts: left out instead.
  const required = Array.isArray(spec.parameters.required) ? (spec.parameters.required as unknown[]).filter((r) => r !== hidden) : [];
  const { required: _all, ...rest } = spec.parameters;
  return { ...rest, properties, ...(required.length ? { required } : {}) };
}

const refused = (error: string, message: string): ToolOutcome => ({ ok: false, status: null, duration_ms: 0, result: '', error, message });

const outcomeOf = (r: ActionCallResult): ToolOutcome => ({ ok: r.ok, status: r.status, duration_ms: r.duration_ms, result: r.result, error: r.error, message: r.message });

/** The tools of a bot's enabled actions for one conversation. */
export function actionTools(specs: readonly ActionSpec[], ctx: ActionToolsContext): LoopTool[] {
  return specs.map((spec) => ({
    name: spec.name,
    description: spec.description,
    source: 'custom',
    label: spec.status_text ?? null,
    parameters: modelParameters(spec),
    confirm: spec.confirm,
    verifiedOnly: spec.verified_only,
    run: async (modelInput, signal) => {
      const input: Record<string, unknown> = { ...modelInput };
      if (spec.user_id_param) {
        // Whatever the model wrote there is dropped: only the verified visitor's id goes.
        delete input[spec.user_id_param];
        if (ctx.externalUserId === null) return refused('needs_verified_visitor', 'This action needs a verified visitor');
        input[spec.user_id_param] = ctx.externalUserId;
      }
      const checked = validateActionInput(spec.parameters, input);
      if (!checked.ok) return refused('invalid_input', `The input does not fit the action's parameters: ${checked.errors.join('; ')}`);
      const headers = spec.headers_sealed ? (JSON.parse(ctx.box.open(spec.headers_sealed)) as Record<string, string>) : {};
      return outcomeOf(await executeAction({ method: spec.method, url: spec.url, headers }, checked.value, { policy: ctx.policy, signal, ...ctx.call }));
    },
  }));
}
