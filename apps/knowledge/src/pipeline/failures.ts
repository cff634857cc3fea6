/** A failure that retrying will not fix (404, blocked address, robots.txt, unsupported content). */
export class PermanentFailure extends Error {}

/** The page answered 404 or 410: on a re-sync of a crawled page, it is removed. */
export class PageGone extends PermanentFailure {}

/** A failure that may pass (timeout, 5xx, network, an embedding provider that is down). */
export class TransientFailure extends Error {}

/** Delay before the next attempt of a document whose processing failed transiently: 2 s, 4 s … at most a minute. */
export const DOCUMENT_RETRY_BACKOFF = { baseMs: 2000, maxMs: 60_000 };
