import 'reflect-metadata';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Body, Controller, DynamicModule, Get, Param, Post, Query, RequestMethod, Type } from '@nestjs/common';
import { CONTROLLER_WATERMARK, METHOD_METADATA, MODULE_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { getMetadataStorage } from 'class-validator';
import { PATTERN_METADATA } from '@nestjs/microservices/constants';
import pino from 'pino';
import { BOT_ID_NAME, BotAccess, DEFAULT_BOT_ID_KEY, describeBotAccess } from '@sa/bot-access';
import { ChatRequest, ListBookingsRequest } from '@sa/contracts';
import { AppModule } from './app.module';
import { BOT_ACCESS_KEY, PUBLIC_KEY, Public, RequireScope, RouteBotAccess, SCOPE_KEY } from './auth/route-access.decorator';
import { loadGatewayConfig } from './config/gateway.config';
import { dto } from './http/dto.pipe';
import { routeDtos } from './http/route-input';

// Fail closed: the global AuthGuard refuses a route that declares neither @RequireScope nor
// @Public at request time. This test finds such a route before it ships. Controllers are found
// by file name, so a new *.controller.ts is covered without editing this test.

const SRC = __dirname;

function controllerFiles(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.controller.ts'))
    .map((f) => path.join(dir, f))
    .sort();
}

function isController(value: unknown): value is Type<unknown> {
  return typeof value === 'function' && Reflect.getMetadata(CONTROLLER_WATERMARK, value) === true;
}

function discoverControllers(): Type<unknown>[] {
  const found = new Set<Type<unknown>>();
  for (const file of controllerFiles(SRC)) {
    const exports = require(file) as Record<string, unknown>;
    for (const value of Object.values(exports)) if (isController(value)) found.add(value);
  }
  return [...found];
}

interface Route {
  controller: Type<unknown>;
  handler: string;
  method: string;
  path: string;
}

function joinPath(...parts: (string | string[] | undefined)[]): string {
  const segs = parts.map((p) => (Array.isArray(p) ? p[0] : p) ?? '').flatMap((p) => p.split('/')).filter(Boolean);
  return '/' + segs.join('/');
}

/** Every route handler of a controller: prototype methods with Nest's path and method metadata. */
function routesOf(controller: Type<unknown>): Route[] {
  const routes: Route[] = [];
  const proto = controller.prototype as Record<string, unknown>;
  for (const name of Object.getOwnPropertyNames(proto)) {
    if (name === 'constructor') continue;
    const fn = Object.getOwnPropertyDescriptor(proto, name)?.value;
    if (typeof fn !== 'function') continue;
    const method = Reflect.getMetadata(METHOD_METADATA, fn) as RequestMethod | undefined;
    const routePath = Reflect.getMetadata(PATH_METADATA, fn) as string | string[] | undefined;
    if (method === undefined || routePath === undefined) continue;
    routes.push({ controller, handler: name, method: RequestMethod[method], path: joinPath(Reflect.getMetadata(PATH_METADATA, controller), routePath) });
  }
  return routes;
}

/** The routes the AuthGuard would refuse: neither a scope nor @Public on the handler or its class. */
function undeclaredRoutes(controllers: Type<unknown>[]): string[] {
  return controllers.flatMap((c) =>
    routesOf(c)
      .filter((r) => {
        const fn = (c.prototype as Record<string, unknown>)[r.handler] as object;
        const scope = Reflect.getMetadata(SCOPE_KEY, fn) ?? Reflect.getMetadata(SCOPE_KEY, c);
        const isPublic = Reflect.getMetadata(PUBLIC_KEY, fn) ?? Reflect.getMetadata(PUBLIC_KEY, c);
        return !scope && isPublic !== true;
      })
      .map((r) => `${r.method} ${r.path} (${c.name}.${r.handler})`),
  );
}

/** The controllers of a module and of every module it imports (static @Module or dynamic). */
function registeredControllers(root: Type<unknown> | DynamicModule): Type<unknown>[] {
  const seen = new Set<unknown>();
  const out = new Set<Type<unknown>>();
  const visit = (m: unknown): void => {
    if (!m || seen.has(m)) return;
    seen.add(m);
    if (typeof m === 'function') {
      for (const c of (Reflect.getMetadata(MODULE_METADATA.CONTROLLERS, m) ?? []) as Type<unknown>[]) out.add(c);
      for (const i of (Reflect.getMetadata(MODULE_METADATA.IMPORTS, m) ?? []) as unknown[]) visit(i);
      return;
    }
    if (typeof m === 'object' && 'module' in m) {
      const d = m as DynamicModule;
      visit(d.module);
      for (const c of (d.controllers ?? []) as Type<unknown>[]) out.add(c);
      for (const i of d.imports ?? []) visit(i);
    }
  };
  visit(root);
  return [...out];
}

const discovered = discoverControllers();
// Building the dynamic module only describes providers; nothing connects to PostgreSQL or NATS.
const registered = registeredControllers(AppModule.forRoot(loadGatewayConfig({}), pino({ level: 'silent' })));
/** NATS subjects a controller answers (the gateway's identity.* for the other services). */
function patternsOf(controller: Type<unknown>): unknown[] {
  const proto = controller.prototype as Record<string, unknown>;
  return Object.getOwnPropertyNames(proto).flatMap((name) => (typeof proto[name] === 'function' ? ((Reflect.getMetadata(PATTERN_METADATA, proto[name] as object) as unknown[]) ?? []) : []));
}
// NATS handlers have no HTTP route: the AuthGuard lets them through (they answer services, not callers).
const natsHandlers = registered.filter((c) => routesOf(c).length === 0 && patternsOf(c).length > 0);
const all = [...new Set([...registered, ...discovered])].filter((c) => !natsHandlers.includes(c));

describe('gateway routes', () => {
  it('finds the controller files and the controllers in them', () => {
    const names = discovered.map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining(['HealthController', 'OpenApiController', 'BotsController']));
    expect(registered.map((c) => c.name)).toEqual(expect.arrayContaining(['HealthController', 'OpenApiController', 'BotsController']));
    expect(controllerFiles(SRC).length).toBeGreaterThanOrEqual(3);
  });

  it('answers identity over NATS with a handler that has no HTTP route', () => {
    expect(natsHandlers.map((c) => [c.name, patternsOf(c)])).toEqual([
      ['IdentityHandler', ['identity.token.verify', 'identity.workspace.get', 'identity.workspace.setup', 'identity.token.touch']],
      ['TokensHandler', ['identity.token.create', 'identity.token.list', 'identity.token.revoke']],
    ]);
  });

  it('registers (in AppModule or a module it imports) every controller found in a *.controller.ts file', () => {
    const missing = discovered.filter((c) => !registered.includes(c)).map((c) => c.name);
    expect(missing).toEqual([]);
  });

  it('finds the known routes', () => {
    const routes = all.flatMap(routesOf).map((r) => `${r.method} ${r.path}`);
    expect(routes).toEqual(expect.arrayContaining(['GET /healthz', 'GET /readyz', 'GET /v1/openapi.json', 'GET /v1/bots', 'POST /v1/bots']));
  });

  it.each(all.map((c) => [c.name, c]))('every route of %s declares @RequireScope or @Public', (_name, controller) => {
    expect(routesOf(controller as Type<unknown>).length).toBeGreaterThan(0);
    expect(undeclaredRoutes([controller as Type<unknown>])).toEqual([]);
  });

  it('declares the expected access of the known routes', () => {
    const access = Object.fromEntries(
      all.flatMap(routesOf).map((r) => {
        const fn = (r.controller.prototype as Record<string, object>)[r.handler];
        return [`${r.method} ${r.path}`, Reflect.getMetadata(PUBLIC_KEY, fn) === true ? 'public' : Reflect.getMetadata(SCOPE_KEY, fn)];
      }),
    );
    expect(access).toMatchObject({
      'GET /healthz': 'public',
      'GET /readyz': 'public',
      'GET /v1/openapi.json': 'public',
      'GET /v1/bots': 'bots:read',
      'POST /v1/bots': 'bots:write',
    });
  });
});

describe('the route check itself', () => {
  @Controller('v1/probe')
  class ProbeController {
    @Get() @RequireScope('bots:read', { botAccess: { mode: BotAccess.MayName } }) list(): void {}
    @Get('open') @Public() open(): void {}
    @Post('forgotten') forgotten(): void {}
    helper(): void {}
  }

  @Controller('v1/all-public')
  @Public()
  class ClassLevelPublicController {
    @Get() index(): void {}
  }

  it('names the route that declares neither', () => {
    expect(routesOf(ProbeController).map((r) => r.handler).sort()).toEqual(['forgotten', 'list', 'open']);
    expect(undeclaredRoutes([ProbeController])).toEqual(['POST /v1/probe/forgotten (ProbeController.forgotten)']);
  });

  it('accepts access declared on the class, as the guard does', () => {
    expect(undeclaredRoutes([ClassLevelPublicController])).toEqual([]);
  });
});

// Bot access (libs/bot-access, docs/decisions/api.md "Issue 15: one bot-access policy"): every route
// declares what it does with bots, and a route that takes a bot id must say where. "Takes a bot
// id" is read from the route itself: members of its DTO classes and path parameters named like a
// bot id (chatbotId, botId …), so a new DTO member or path is covered without editing this test.

const PARTS: Partial<Record<RouteParamtypes, 'body' | 'query' | 'path'>> = { [RouteParamtypes.BODY]: 'body', [RouteParamtypes.QUERY]: 'query', [RouteParamtypes.PARAM]: 'path' };

interface RouteArg {
  index: number;
  data?: unknown;
  pipes?: unknown[];
}

/** The body, query and path parameters of a handler: which part, the member it picks (if any), and whether a dto() pipe checks it. */
function inputsOf(r: Route): { part: 'body' | 'query' | 'path'; key?: string; described: boolean }[] {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, r.controller, r.handler) ?? {}) as Record<string, RouteArg>;
  const dtos = routeDtos(r.controller, r.handler);
  return Object.entries(args).flatMap(([k, arg]) => {
    const part = PARTS[Number(k.split(':')[0]) as RouteParamtypes];
    if (!part) return [];
    const key = typeof arg.data === 'string' ? arg.data : undefined;
    return [{ part, key, described: dtos.some((d) => d.pipe.where === part && d.key === key) }];
  });
}

/** The members of a DTO class (class-validator's metadata: every member of a contract DTO is decorated). */
function membersOf(cls: Type<unknown>): string[] {
  return [...new Set(getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false).map((m) => m.propertyName))];
}

/** Where the route takes a bot id, as "<part> <member>": DTO members, picked members and path parameters named like a bot id. */
function botIdsTaken(r: Route): string[] {
  const found = new Set<string>();
  for (const { pipe, key } of routeDtos(r.controller, r.handler)) {
    if (key === undefined) for (const m of membersOf(pipe.cls)) if (BOT_ID_NAME.test(m)) found.add(`${pipe.where} ${m}`);
  }
  for (const { part, key } of inputsOf(r)) if (key && BOT_ID_NAME.test(key)) found.add(`${part} ${key}`);
  for (const [, name] of r.path.matchAll(/:(\w+)/g)) if (BOT_ID_NAME.test(name)) found.add(`path ${name}`);
  return [...found].sort();
}

function declared<T>(r: Route, key: string): T | undefined {
  const fn = (r.controller.prototype as Record<string, object>)[r.handler];
  return Reflect.getMetadata(key, fn) ?? Reflect.getMetadata(key, r.controller);
}

/** What is wrong with a route's bot-access declaration; [] when nothing. */
function botAccessProblems(r: Route): string[] {
  const bots = declared<RouteBotAccess>(r, BOT_ACCESS_KEY);
  const taken = botIdsTaken(r);
  const problems = inputsOf(r)
    .filter((i) => !i.described && !i.key)
    .map((i) => `takes a ${i.part} no dto() pipe describes, so whether it holds a bot id cannot be told`);
  if (declared(r, SCOPE_KEY) && !bots) problems.push('needs a token but declares no bot access');
  if (taken.length > 1) problems.push(`takes several bot ids (${taken.join(', ')})`);
  if (taken.length && !bots) problems.push(`takes a bot id (${taken[0]}) without a bot-access declaration`);
  const at = bots?.from ? `${bots.from} ${bots.key ?? DEFAULT_BOT_ID_KEY}` : undefined;
  if (bots && taken.length && at !== taken[0]) problems.push(`takes a bot id (${taken[0]}) but declares ${describeBotAccess(bots)}`);
  if (at && !taken.includes(at)) problems.push(`declares a bot id at ${at}, which the route does not take`);
  if (bots?.from && bots.mode !== BotAccess.Widget && !routeDtos(r.controller, r.handler).some((d) => d.pipe.where === bots.from && d.key === undefined)) {
    problems.push(`declares a bot id in the ${bots.from}, which no dto() pipe validates before the guard reads it`);
  }
  return problems;
}

describe('bot access of every route', () => {
  const routes = all.flatMap(routesOf);

  it.each(routes.map((r) => [`${r.method} ${r.path}`, r]))('%s declares its bot access where it takes a bot id', (_name, r) => {
    expect(botAccessProblems(r as Route)).toEqual([]);
  });

  it('lists every route with its declared mode', () => {
    const listing = Object.fromEntries(routes.map((r) => [`${r.method} ${r.path}`, describeBotAccess(declared<RouteBotAccess>(r, BOT_ACCESS_KEY))]));
    expect(listing).toEqual({
      'GET /healthz': 'none',
      'GET /readyz': 'none',
      'GET /v1/openapi.json': 'none',
      'GET /widget/v1/openapi.json': 'none',
      'GET /widget/v1/embed.js': 'none',
      'GET /widget/v1/embed.json': 'none',
      'GET /widget/v1/:file': 'none',
      'GET /v1/bots': 'may-name',
      'POST /v1/bots': 'new-bot',
      'GET /v1/kb': 'must-name (query chatbotId)',
      'POST /v1/kb/ingest': 'must-name (body chatbotId)',
      'POST /v1/chat': 'must-name (body chatbotId)',
      'GET /v1/conversations': 'may-name (query chatbotId)',
      'GET /v1/conversations/:sessionId': 'of-resource',
      'GET /v1/analytics': 'must-name (query chatbotId)',
      'GET /v1/leads': 'must-name (query chatbotId)',
      'GET /v1/bookings': 'may-name (query chatbotId)',
      'GET /v1/bookings/:id': 'of-resource',
      'PATCH /v1/bookings/:id': 'of-resource',
      'GET /widget/v1/bots/:botId/config': 'widget (path botId)',
      'POST /widget/v1/bots/:botId/sessions': 'widget (path botId)',
      'POST /widget/v1/bots/:botId/chat': 'widget (path botId)',
      'POST /widget/v1/bots/:botId/feedback': 'widget (path botId)',
      'POST /widget/v1/bots/:botId/identify': 'widget (path botId)',
      'POST /widget/v1/bots/:botId/leads': 'widget (path botId)',
      'POST /widget/v1/bots/:botId/replies': 'widget (path botId)',
      'POST /widget/v1/bots/:botId/bookings': 'widget (path botId)',
      'POST /widget/v1/bots/:botId/tickets': 'widget (path botId)',
      'POST /widget/v1/bots/:botId/handoff': 'widget (path botId)',
    });
  });

  it('finds the bot ids routes take in their DTOs and paths', () => {
    const taken = Object.fromEntries(routes.map((r) => [`${r.method} ${r.path}`, botIdsTaken(r)]));
    expect(taken).toMatchObject({
      'GET /v1/kb': ['query chatbotId'],
      'POST /v1/chat': ['body chatbotId'],
      'GET /v1/conversations/:sessionId': [],
      'POST /widget/v1/bots/:botId/chat': ['path botId'],
    });
  });
});

describe('the bot-access check itself', () => {
  @Controller('v1/probe-bots')
  class BotProbeController {
    @Post('forgot') @Public() forgot(@Body(dto(ChatRequest, 'body')) _b: ChatRequest): void {}
    @Get('wrong-part') @RequireScope('bookings:read', { botAccess: { mode: BotAccess.MayName, from: 'body' } }) wrongPart(@Query(dto(ListBookingsRequest, 'query')) _q: ListBookingsRequest): void {}
    @Get('nothing-to-name') @RequireScope('bots:read', { botAccess: { mode: BotAccess.MustName, from: 'query' } }) nothing(): void {}
    @Post(':botId/raw') @Public() raw(@Param('botId') _bot: string, @Body() _b: unknown): void {}
    @Get('declared') @RequireScope('kb:read', { botAccess: { mode: BotAccess.MustName, from: 'body' } }) fine(@Body(dto(ChatRequest, 'body')) _b: ChatRequest): void {}
  }
  const probe = Object.fromEntries(routesOf(BotProbeController).map((r) => [r.handler, botAccessProblems(r)]));

  it('fails a route that takes a bot id in a DTO without a declaration', () => {
    expect(probe['forgot']).toEqual(['takes a bot id (body chatbotId) without a bot-access declaration']);
  });

  it('fails a declaration that points elsewhere than the bot id, or at nothing', () => {
    expect(probe['wrongPart']).toEqual([
      'takes a bot id (query chatbotId) but declares may-name (body chatbotId)',
      'declares a bot id at body chatbotId, which the route does not take',
      'declares a bot id in the body, which no dto() pipe validates before the guard reads it',
    ]);
    expect(probe['nothing']).toEqual([
      'declares a bot id at query chatbotId, which the route does not take',
      'declares a bot id in the query, which no dto() pipe validates before the guard reads it',
    ]);
  });

  it('fails a bot in the path without a declaration and input no DTO describes', () => {
    expect(probe['raw']).toEqual(['takes a body no dto() pipe describes, so whether it holds a bot id cannot be told', 'takes a bot id (path botId) without a bot-access declaration']);
  });

  it('accepts a declaration at the bot id the route takes', () => {
    expect(probe['fine']).toEqual([]);
  });
});
