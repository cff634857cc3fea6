import { DynamicModule, INestApplication, Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { ModulesContainer, NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { DECORATORS } from '@nestjs/swagger';
import { documentContract } from './contract-schema';

/*
 * What every OpenAPI document generated from Nest controllers needs, whichever edge serves it
 * (the gateway's two documents, the console's): the routes of the controllers, the contract
 * classes each route takes and answers (declared to swagger through the bridge of
 * contract-schema.ts), the schemas a document actually reaches, and a preview of the module to
 * generate from without connecting to anything.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON documents

export interface Route {
  controller: Type;
  handler: string;
  method: string;
  path: string;
}

/** The controllers registered in the application. */
export function controllersOf(app: INestApplication): Type[] {
  const out = new Set<Type>();
  for (const module of app.get(ModulesContainer).values()) for (const wrapper of module.controllers.values()) out.add(wrapper.metatype as Type);
  return [...out];
}

const METHODS = ['get', 'post', 'put', 'delete', 'patch', 'all', 'options', 'head', 'search'];

/** Every route of a controller: its handler methods with Nest's path and method metadata. */
export function routesOf(controller: Type): Route[] {
  const proto = controller.prototype as Record<string, unknown>;
  return Object.getOwnPropertyNames(proto)
    .filter((name) => name !== 'constructor' && typeof Object.getOwnPropertyDescriptor(proto, name)?.value === 'function')
    .flatMap((handler) => {
      const fn = proto[handler] as object;
      const method = Reflect.getMetadata(METHOD_METADATA, fn) as number | undefined;
      const path = Reflect.getMetadata(PATH_METADATA, fn) as string | string[] | undefined;
      if (method === undefined || path === undefined) return [];
      const segments = [Reflect.getMetadata(PATH_METADATA, controller) as string | undefined, Array.isArray(path) ? path[0] : path]
        .flatMap((p) => (p ?? '').split('/'))
        .filter(Boolean)
        .map((s) => (s.startsWith(':') ? `{${s.slice(1)}}` : s));
      return [{ controller, handler, method: METHODS[method], path: `/${segments.join('/')}` }];
    });
}

const INPUTS: Partial<Record<RouteParamtypes, 'body' | 'query' | 'path'>> = {
  [RouteParamtypes.BODY]: 'body',
  [RouteParamtypes.QUERY]: 'query',
  [RouteParamtypes.PARAM]: 'path',
};

/** The contract classes of a route: what it takes (body, query, path parameters) and what it answers (views). */
export interface RouteContracts {
  body?: Type;
  query?: Type;
  path?: Type;
  views: Type[];
}

const isContract = (type: unknown): type is Type => typeof type === 'function' && type !== Object && type !== String && type !== Number && type !== Boolean;

export function contractsOf(route: Route): RouteContracts {
  const { controller, handler } = route;
  const fn = (controller.prototype as Record<string, object>)[handler];
  const out: RouteContracts = { views: [] };
  // Parameters bound with @Body/@Query/@Param(dto(Contract, …)): their declared types.
  const types = (Reflect.getMetadata('design:paramtypes', controller.prototype, handler) ?? []) as unknown[];
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, handler) ?? {}) as Record<string, { index: number }>;
  for (const [key, arg] of Object.entries(args)) {
    const where = INPUTS[Number(key.split(':')[0]) as RouteParamtypes];
    if (where && isContract(types[arg.index])) out[where] = types[arg.index] as Type;
  }
  // A body the handler reads itself, named with @ApiBody.
  for (const param of (Reflect.getMetadata(DECORATORS.API_PARAMETERS, fn) ?? []) as { in?: string; type?: unknown }[]) {
    if (param.in === 'body' && isContract(param.type)) out.body = param.type;
  }
  out.views = [...((Reflect.getMetadata(DECORATORS.API_EXTRA_MODELS, controller) ?? []) as Type[]), ...((Reflect.getMetadata(DECORATORS.API_EXTRA_MODELS, fn) ?? []) as Type[])];
  return out;
}

const declared = new WeakSet<object>();

/**
 * Declares the contract classes of every route to swagger (requests closed to unknown members, as
 * validateDto refuses them; views as they are) and of `models`; `perRoute` adds what an edge
 * declares beyond (the gateway: a route's bearer token and scope). Idempotent per route.
 */
export function declareRouteContracts(controllers: Type[], models: Type[], perRoute?: (route: Route, descriptor: PropertyDescriptor) => void): void {
  for (const model of models) documentContract(model);
  for (const route of controllers.flatMap(routesOf)) {
    const fn = (route.controller.prototype as Record<string, object>)[route.handler];
    if (declared.has(fn)) continue;
    declared.add(fn);
    const { body, query, path, views } = contractsOf(route);
    for (const input of [body, query, path]) if (input) documentContract(input, { closed: true });
    for (const view of views) documentContract(view);
    perRoute?.(route, Object.getOwnPropertyDescriptor(route.controller.prototype, route.handler)!);
  }
}

/** Every `$ref` target under `node`. */
export function refsIn(node: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) node.forEach((n) => refsIn(n, out));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.add(v);
      else refsIn(v, out);
    }
  }
  return out;
}

/** The component schemas reachable from `roots`, in the order swagger wrote them. */
export function reachableSchemas(all: Record<string, Json>, roots: unknown[]): Record<string, Json> {
  const keep = new Set<string>();
  const queue = [...refsIn(roots)];
  while (queue.length) {
    const ref = queue.pop()!;
    const name = ref.replace('#/components/schemas/', '');
    if (ref === name || keep.has(name)) continue;
    if (!all[name]) throw new Error(`the document refers to a schema it lacks: ${ref}`);
    keep.add(name);
    queue.push(...refsIn(all[name]));
  }
  return Object.fromEntries(Object.entries(all).filter(([name]) => keep.has(name)));
}

export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}

/**
 * Builds from a preview of a module: Nest resolves the module's graph without instantiating
 * anything (no database, no NATS), which is all swagger reads.
 */
export async function fromModulePreview<T>(module: DynamicModule | Type, build: (app: INestApplication) => T): Promise<T> {
  const app = await NestFactory.create(module, new FastifyAdapter(), { preview: true, logger: false, abortOnError: false });
  try {
    return build(app);
  } finally {
    // Not app.close(): a preview's providers were never created, so their shutdown hooks must not run.
    await app.getHttpAdapter().close();
  }
}
