import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import fastifyStatic from '@fastify/static';
import { NotFound } from '@sa/errors';
import { sendError } from '@sa/edge';
import { isApiPath } from './security-headers';

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Console</title></head>
<body><main><h1>The console's web application is not built</h1>
<p>Run <code>npm run build</code> (or <code>npm start</code>, which builds) and reload this page.</p></main></body></html>
`;

/** Files with a content hash in their name (Vite's /assets/…) never change: cached for a year. */
const HASHED = /^\/assets\//;

/**
 * The web application (Vite's build in `webDir`): its files as they are, and index.html for every
 * other GET outside /api (client-side routes such as /w/:id/tokens). Unknown /api paths stay JSON
 * 404s. When the folder is missing, a plain page says the web application is not built.
 */
export async function serveWebApp(fastify: FastifyInstance, webDir: string): Promise<void> {
  const built = fs.existsSync(path.join(webDir, 'index.html'));
  if (built) await fastify.register(fastifyStatic, { root: webDir, serve: false });
  const root = path.resolve(webDir);

  const answer = async (url: string, reply: FastifyReply, head: boolean) => {
    const pathname = decodeURIComponent(url.split('?')[0]);
    if (isApiPath(pathname)) return sendError(reply, new NotFound('Route'));
    const looksLikeFile = /\.[A-Za-z0-9]{1,8}$/.test(pathname);
    if (!built) {
      if (looksLikeFile) return sendError(reply, new NotFound('File'));
      void reply.code(200).header('cache-control', 'no-store').type('text/html; charset=utf-8');
      return reply.send(head ? undefined : NOT_BUILT_PAGE);
    }
    const file = path.resolve(root, `.${pathname}`);
    const inside = file.startsWith(root + path.sep);
    const isFile = inside && !pathname.includes('\0') && fs.statSync(file, { throwIfNoEntry: false })?.isFile();
    if (isFile && path.basename(file) !== 'index.html') {
      void reply.header('cache-control', HASHED.test(pathname) ? 'public, max-age=31536000, immutable' : 'no-cache');
      return reply.sendFile(path.relative(root, file), { cacheControl: false });
    }
    // A path that looks like a file (has an extension) but is not one: 404, not the page.
    if (looksLikeFile) return sendError(reply, new NotFound('File'));
    void reply.header('cache-control', 'no-cache');
    return reply.sendFile('index.html', { cacheControl: false });
  };

  fastify.route({
    method: ['GET', 'HEAD'],
    url: '/*',
    handler: async (req, reply) => {
      try {
        return await answer(req.url, reply, req.method === 'HEAD');
      } catch {
        return sendError(reply, new NotFound('Route'));
      }
    },
  });
}
