import type { Logger } from 'pino';
import type { KnowledgeConfig } from '../config/knowledge.config';
import type { ClaimedDocument, DocumentClaimsRepository } from './document-claims.repository';
import type { DocumentProcessor, ProcessResult } from './document-processor';
import { FetchTimeout, TransientFailure } from './failures';
import { IngestionWorker } from './ingestion.worker';

// IngestionWorker.pump() with fakes, for the interleavings a real database cannot produce on
// demand. ingestion.int-spec.ts covers the worker with its real dependencies.

const silent = { info: () => undefined, warn: () => undefined, debug: () => undefined, child: () => silent } as unknown as Logger;
const config = { concurrency: 2, leaseMs: 60_000, maxAttempts: 3, pollMs: 60_000, shutdownGraceMs: 10 } as KnowledgeConfig;

function doc(id: string): ClaimedDocument {
  return { id, tenant_id: 't', chatbot_id: null, title: id, source_url: null, source_type: 'snippet', status: 'processing', chunk_count: 0, failure_reason: null, content: 'x', parent_id: null, discover: false, page_quota: null, attempts: 1, created_at: new Date(), claimed_by: 'w', content_hash: null, embedder: null, resync_schedule: 'none', last_synced_at: null, next_sync_at: null };
}

/** A queue of documents; `hold()` makes the next claim wait until the returned function is called (it then answers from the queue as it was when the claim started). */
function fakeClaims() {
  const queue: ClaimedDocument[] = [];
  let held: ((release: () => void) => void) | null = null;
  const claims = {
    failExhausted: async () => 0,
    claim: async (): Promise<ClaimedDocument | null> => {
      const snapshot = queue.shift() ?? null;
      if (held) {
        const h = held;
        held = null;
        await new Promise<void>((resolve) => h(resolve));
      }
      return snapshot;
    },
    renew: async () => true,
    markReady: async () => true,
    markFailed: async () => true,
    retryLater: async () => undefined,
    release: async () => undefined,
  };
  return {
    claims: claims as unknown as DocumentClaimsRepository,
    queue,
    hold: () => new Promise<() => void>((resolve) => (held = resolve)),
  };
}

function fakeProcessor(processed: string[]) {
  return { process: async (d: ClaimedDocument): Promise<ProcessResult> => (processed.push(d.id), { chunkCount: 1, embedder: 'fake', discovered: 0, contentHash: 'h', unchanged: false, removed: false }) } as unknown as DocumentProcessor;
}

const tick = () => new Promise((r) => setTimeout(r, 20));

describe('IngestionWorker.pump', () => {
  it('claims until the queue is empty or every slot is busy', async () => {
    const { claims, queue } = fakeClaims();
    const processed: string[] = [];
    queue.push(doc('a'), doc('b'), doc('c'));
    const worker = new IngestionWorker(claims, fakeProcessor(processed), config, silent);
    await worker.pump();
    await tick();
    // Two at once (concurrency 2); the third is claimed when a slot frees.
    expect(processed).toEqual(['a', 'b', 'c']);
    expect(worker.busy).toBe(0);
  });

  it('does not lose a wake-up that arrives while a pump is claiming', async () => {
    const { claims, queue, hold } = fakeClaims();
    const processed: string[] = [];
    const worker = new IngestionWorker(claims, fakeProcessor(processed), config, silent);
    const held = hold();
    const first = worker.pump(); // its claim sees an empty queue, and is slow to answer
    const release = await held;
    queue.push(doc('new')); // a document is committed...
    await worker.pump(); // ...and its NOTIFY wakes the worker while the first pump runs
    release();
    await first;
    await tick();
    expect(processed).toEqual(['new']);
  });
});

describe('IngestionWorker: a fetch that timed out (issue 36)', () => {
  /** Runs one document whose processing throws `err`, at attempt `attempts`; what the worker recorded. */
  async function outcome(err: Error, attempts: number) {
    const { claims, queue } = fakeClaims();
    const recorded: string[] = [];
    Object.assign(claims, {
      markFailed: async (_id: string, _w: string, reason: string) => (recorded.push(`failed: ${reason}`), true),
      retryLater: async (_id: string, _w: string, reason: string) => void recorded.push(`retry: ${reason}`),
    });
    const failing = { process: async () => Promise.reject(err) } as unknown as DocumentProcessor;
    queue.push({ ...doc('page'), source_type: 'url', source_url: 'https://example.com/a', content: null, attempts });
    await new IngestionWorker(claims, failing, config, silent).pump();
    await tick();
    return recorded;
  }

  it('is retried once, then fails (not a third time), while other transient failures get every attempt', async () => {
    expect(await outcome(new FetchTimeout('timed out after 10000 ms'), 1)).toEqual(['retry: timed out after 10000 ms']);
    expect(await outcome(new FetchTimeout('timed out after 10000 ms'), 2)).toEqual(['failed: Failed after 2 attempts: timed out after 10000 ms']);
    expect(await outcome(new TransientFailure('https://example.com/a answered 500'), 2)).toEqual(['retry: https://example.com/a answered 500']);
    expect(await outcome(new TransientFailure('https://example.com/a answered 500'), 3)).toEqual(['failed: Failed after 3 attempts: https://example.com/a answered 500']);
  });
});

describe('IngestionWorker shutdown', () => {
  it('gives back a document whose claim was on its way when the replica began stopping, instead of starting it', async () => {
    const { claims, queue, hold } = fakeClaims();
    const released: string[] = [];
    (claims as unknown as { release: (id: string) => Promise<void> }).release = async (id) => void released.push(id);
    const processed: string[] = [];
    queue.push(doc('late'));
    const worker = new IngestionWorker(claims, fakeProcessor(processed), config, silent);
    const holding = hold();
    const pumping = worker.pump();
    const letGo = await holding; // the claim is on its way
    const stopping = worker.beforeApplicationShutdown();
    letGo();
    await Promise.all([stopping, pumping]);
    await tick();
    // Left claimed, it would have waited out its lease (KNOWLEDGE_LEASE_MS) before another replica took it.
    expect([released, processed]).toEqual([['late'], []]);
  });
});
