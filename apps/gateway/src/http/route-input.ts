import type { ExecutionContext, Type } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import type { FastifyRequest } from 'fastify';
import { DtoPipe, RequestPart } from './dto.pipe';

/** A dto() pipe of a route handler's parameter, and the member it picks (`@Param('id')`), if any. */
export interface RouteDto {
  pipe: DtoPipe<object>;
  key?: string;
}

interface RouteArg {
  index: number;
  data?: unknown;
  pipes?: unknown[];
}

const cache = new WeakMap<object, RouteDto[]>();

/** The dto() pipes of a handler's parameters, in parameter order: what Nest runs on them. */
export function routeDtos(controller: Type<unknown>, handler: string): RouteDto[] {
  const fn = (controller.prototype as Record<string, object>)[handler];
  let found = cache.get(fn);
  if (!found) {
    const args = Object.values((Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, handler) ?? {}) as Record<string, RouteArg>).sort((a, b) => a.index - b.index);
    found = args.flatMap((arg) =>
      (arg.pipes ?? []).filter((p): p is DtoPipe<object> => p instanceof DtoPipe).map((pipe) => ({ pipe, key: typeof arg.data === 'string' ? arg.data : undefined })),
    );
    cache.set(fn, found);
  }
  return found;
}

function partOf(req: FastifyRequest, where: RequestPart): unknown {
  return where === 'body' ? req.body : where === 'query' ? req.query : req.params;
}

/**
 * Validates a route's input now, with the route's own dto() pipes in parameter order (the first
 * invalid part is the 400, as when Nest runs them), and returns the validated parts. The guards
 * call this after the token and scope checks, so the checks that read the input (bot access, the
 * widget's session) come after validation, in the order docs/decisions/api.md gives. The pipes keep
 * their results, so Nest's own run of them validates nothing twice.
 */
export function validateRouteInput(context: ExecutionContext): Partial<Record<RequestPart, unknown>> {
  const req = context.switchToHttp().getRequest<FastifyRequest>();
  const input: Partial<Record<RequestPart, unknown>> = {};
  for (const { pipe, key } of routeDtos(context.getClass(), context.getHandler().name)) {
    const part = partOf(req, pipe.where);
    if (key === undefined) input[pipe.where] = pipe.transform(part);
    else pipe.transform((part as Record<string, unknown> | undefined)?.[key]);
  }
  return input;
}
