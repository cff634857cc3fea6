/** A failure that retrying will not fix (404, blocked address, robots.txt, unsupported content). */
export class PermanentFailure extends Error {}

/** The page answered 404 or 410: on a re-sync of a crawled page, it is removed. */
export class PageGone extends PermanentFailure {}

/** A failure that may pass (timeout, 5xx, network, an embedding provider that is down). */
export class TransientFailure extends Error {}

/**
 * A fetch that got no answer within OUTBOUND_TIMEOUT_MS (issue 36). Transient, but a URL that timed
 * out twice is not tried a third time: another try would hold a worker and one of the site's
 * request slots for the whole timeout again, for a page that answered nothing; a re-sync tries again.
 */
export class FetchTimeout extends TransientFailure {}

/** Attempts of a URL whose fetch timed out every time before it fails (fewer than KNOWLEDGE_MAX_ATTEMPTS). */
export const FETCH_TIMEOUT_ATTEMPTS = 2;

/** Delay before the next attempt of a document whose processing failed transiently: 2 s, 4 s … at most a minute. */
export const DOCUMENT_RETRY_BACKOFF = { baseMs: 2000, maxMs: 60_000 };
