import type {} from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';

export const SESSION_COOKIE = 'sa_console_session';

/** The session cookie: httpOnly, SameSite=Lax, Path=/, Secure when the console is served over https. */
export class SessionCookie {
  constructor(private readonly secure: boolean) {}

  read(req: FastifyRequest): string | undefined {
    return req.cookies?.[SESSION_COOKIE] || undefined;
  }

  set(reply: FastifyReply, secret: string, maxAgeSeconds: number): void {
    void reply.setCookie(SESSION_COOKIE, secret, { httpOnly: true, sameSite: 'lax', path: '/', secure: this.secure, maxAge: maxAgeSeconds });
  }

  clear(reply: FastifyReply): void {
    void reply.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', path: '/', secure: this.secure });
  }
}
