import type { FastifyInstance } from 'fastify';
import { BadRequest } from '@sa/errors';

/**
 * Whether JSON text nests objects and arrays deeper than `max` (the outermost value is level 1).
 * One pass over the characters, brackets inside strings ignored, stopping as soon as it is; it
 * does not validate the JSON (the parser does that next).
 */
export function jsonNestingExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}

/**
 * The only request bodies the public edges read: `application/json` (any charset parameter).
 * Every other type, forms and text/plain included, is refused as 415 by Fastify, answered as
 * 400 bad_request (HttpErrorFilter), so no page can post to the API cross-site without a CORS
 * preflight. Bodies nested deeper than `maxDepth` are refused before JSON.parse sees them;
 * `__proto__` and `constructor.prototype` members are refused by the parser.
 */
export function acceptJsonBodiesOnly(fastify: FastifyInstance, opts: { maxDepth: number }): void {
  fastify.removeAllContentTypeParsers();
  const parse = fastify.getDefaultJsonParser('error', 'error');
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body: string, done) => {
    if (jsonNestingExceeds(body, opts.maxDepth)) {
      done(new BadRequest(`The JSON body is nested too deeply (at most ${opts.maxDepth} levels of objects and arrays)`), undefined);
      return;
    }
    parse(req, body, done);
  });
}
