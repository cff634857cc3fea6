import 'reflect-metadata';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Controller, DynamicModule, Get, Post, RequestMethod, Type } from '@nestjs/common';
import { CONTROLLER_WATERMARK, METHOD_METADATA, MODULE_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { PATTERN_METADATA } from '@nestjs/microservices/constants';
import pino from 'pino';
import { AppModule } from './app.module';
import { PUBLIC_KEY, Public, RequireScope, SCOPE_KEY } from './auth/route-access.decorator';
import { loadGatewayConfig } from './config/gateway.config';

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
    expect(natsHandlers.map((c) => [c.name, patternsOf(c)])).toEqual([['IdentityHandler', ['identity.token.verify', 'identity.workspace.get', 'identity.token.touch']]]);
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
    @Get() @RequireScope('bots:read') list(): void {}
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
