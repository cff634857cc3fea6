import { Type, applyDecorators } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { ApiData, RATE_HEADERS } from '../openapi/api-responses';

/** A widget route's operation: no token, the bot in the path names the workspace. */
export const ApiWidgetOperation = (operationId: string, summary: string, description: string) =>
  ApiOperation({
    operationId,
    summary,
    description: `${description}\n\nNo authentication: the bot in the path names the workspace. Rate-limited per client IP and per session.`,
  });

/** A widget route's success answer `{data: View}`, with the rate-limit headers every widget answer carries. */
export const ApiWidgetData = (status: number, description: string, view: Type) => applyDecorators(ApiData(status, description, view, { headers: RATE_HEADERS }));
