import { Type, applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, ApiResponseOptions } from '@nestjs/swagger';
import { ErrorObjectBody, ValidationErrorBody } from '@sa/contracts';
import { contractSchemaName } from '@sa/openapi';

/*
 * Swagger decorators of the console's controllers. Schemas come from the contract classes
 * (libs/contracts/src/console.ts, management.ts) through libs/openapi's bridge, as at the gateway.
 */

const ref = (cls: Type): string => `#/components/schemas/${contractSchemaName(cls)}`;

/** A JSON answer that is the view itself (`Session`, `Member`, …). */
export function ApiView(status: number, description: string, view: Type) {
  return applyDecorators(ApiExtraModels(view), ApiResponse({ status, description, schema: { $ref: ref(view) } }));
}

/** An answer `{data: View}`. */
export function ApiData(status: number, description: string, view: Type) {
  return applyDecorators(
    ApiExtraModels(view),
    ApiResponse({ status, description, schema: { type: 'object', properties: { data: { $ref: ref(view) } }, required: ['data'] } }),
  );
}

/** A list answer `{data: [View]}`. */
export function ApiList(description: string, view: Type, status = 200) {
  return applyDecorators(
    ApiExtraModels(view),
    ApiResponse({ status, description, schema: { type: 'object', properties: { data: { type: 'array', items: { $ref: ref(view) } } }, required: ['data'] } }),
  );
}

/** An answer without a body (204) or with `{}` (202). */
export function ApiEmpty(status: 202 | 204, description: string) {
  return ApiResponse(status === 204 ? { status, description } : { status, description, schema: { type: 'object', properties: {}, additionalProperties: false } });
}

const ERRORS: Record<number, string> = {
  400: 'The request is not valid: `validation_failed` (ValidationError body) or `bad_request`, `invalid_token`.',
  401: '`not_signed_in` (no live session) or `invalid_credentials`.',
  402: '`plan_capacity_exhausted` (every bot slot of the plan is in use) or `quota_exhausted`, with details; `api_locked` (the workspace has no live access: the playground).',
  403: '`csrf_failed` (a write without the console\'s Origin or X-CSRF-Token) or `forbidden_role` (the role does not allow it); on the setup route `invalid_setup_code`.',
  404: '`not_found`: also a workspace the person is not a member of.',
  409: '`conflict` or `last_owner`.',
  410: '`setup_done`: the installation is set up; its setup is gone for good.',
  429: '`too_many_attempts` with Retry-After.',
  503: '`service_unavailable`: a service the console asks over NATS did not answer.',
};

/** Error answers of a console route, in the spec's general error object (400 also ValidationError). */
export function ApiConsoleErrors(...statuses: (400 | 401 | 402 | 403 | 404 | 409 | 410 | 429 | 503)[]) {
  return applyDecorators(
    ApiExtraModels(ErrorObjectBody, ValidationErrorBody),
    ...statuses.map((status) =>
      ApiResponse({
        status,
        description: ERRORS[status],
        schema: status === 400 ? { oneOf: [{ $ref: ref(ValidationErrorBody) }, { $ref: ref(ErrorObjectBody) }] } : { $ref: ref(ErrorObjectBody) },
        ...(status === 429 ? { headers: { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } } } : {}),
      } as ApiResponseOptions),
    ),
  );
}

/** What every workspace route may answer besides success (session, CSRF on writes, membership, NATS). */
export const ApiWorkspaceErrors = () => ApiConsoleErrors(400, 401, 403, 404, 503);
