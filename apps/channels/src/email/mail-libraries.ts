/**
 * The mail libraries, loaded on first use: imapflow, mailparser and nodemailer take ~250 ms to
 * load, a fifth of the service's start, and a workspace without an e-mail connection never needs
 * them (a restarted replica is ready that much sooner). Each is loaded once.
 */
function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | null = null;
  return () => (loaded ??= load());
}

export const mailLibraries = {
  imap: once(() => import('imapflow')),
  parser: once(() => import('mailparser')),
  smtp: once(() => import('nodemailer')),
};
