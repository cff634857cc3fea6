import { Inject, Injectable, Optional } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { GuardError, GuardedResponse, OutboundPolicy, checkUrl, guardedFetch } from '@sa/net-guard';
import { type Embedder, type EmbeddingState, WorkspaceEmbedders, serviceContext } from '../embeddings/workspace-embedders';
import { chunkText } from '../ingestion/chunking';
import { extractWebText } from '@sa/doc-text';
import { extractSameSiteLinks, isSitemapUrl, parseSitemap } from '../ingestion/links';
import { RobotsCache } from '../ingestion/robots';
import { HostGate } from '../ingestion/host-gate';
import { KNOWLEDGE_CONFIG, type KnowledgeConfig } from '../config/knowledge.config';
import { KnowledgeFileReader } from '../files/knowledge-file-reader';
import { KNOWLEDGE_LOGGER, OUTBOUND_POLICY } from '../knowledge.tokens';
import { type StoredChunk, VECTOR_STORE, type VectorStore } from '../vector-store/vector-store.port';
import type { ClaimedDocument } from './document-claims.repository';
import { DocumentClaimsRepository } from './document-claims.repository';
import { FetchTimeout, PageGone, PermanentFailure, TransientFailure } from './failures';

export interface ProcessResult {
  chunkCount: number;
  embedder: string;
  discovered: number;
  /** sha256 of the title and text now indexed (null when there is none: a sitemap). */
  contentHash: string | null;
  /** Same content hash and embedder as when last indexed: nothing was embedded or rewritten. */
  unchanged: boolean;
  /** The page vanished from its site (404/410 on a re-fetch) and was removed with its chunks. */
  removed: boolean;
}

const ACCEPT = 'text/html,application/xhtml+xml,text/plain,text/markdown,application/xml,text/xml;q=0.9,*/*;q=0.1';
/** Sitemaps nested in a sitemap index that are followed, at most. */
const MAX_SITEMAPS = 20;
/** Requests to one site at once when the configuration does not say (KNOWLEDGE_HOST_CONCURRENCY). */
const DEFAULT_HOST_CONCURRENCY = 4;
/** Times a document is embedded again because the workspace's embedding model changed meanwhile. */
const MAX_INDEX_ROUNDS = 3;

/**
 * One document from its source to stored, embedded chunks: text as given, or a URL fetched
 * through the outbound guard (robots.txt respected, every redirect re-checked), extracted to its
 * main text; a site root or a sitemap also queues the site's pages as documents of their own.
 *
 * Re-sync (issue 19): the same path fetches a source again. A page whose content hash (sha256 of
 * title and text) and embedder are those it was indexed with is not re-embedded; a changed one has
 * its chunks replaced at once (VectorStore.replaceDocument); a crawled page that answers 404/410,
 * or that its source no longer links, is removed with its chunks.
 *
 * Models per workspace (issue 32): chunks are embedded with the workspace's embedder, and while it
 * switches to another model, with the new one as well, so the re-embedding run misses nothing. A
 * document whose embedding model changed while it was embedded is embedded again with the new one.
 */
@Injectable()
export class DocumentProcessor {
  private readonly robots: RobotsCache;
  /** Per-host politeness: concurrent requests to one site, and its Crawl-delay (issue 36). */
  private readonly hosts: HostGate;

  constructor(
    @Inject(VECTOR_STORE) private readonly store: VectorStore,
    private readonly embedders: WorkspaceEmbedders,
    @Inject(OUTBOUND_POLICY) private readonly policy: OutboundPolicy,
    private readonly claims: DocumentClaimsRepository,
    @Inject(KNOWLEDGE_LOGGER) private readonly logger: Logger,
    private readonly files: KnowledgeFileReader,
    @Optional() @Inject(KNOWLEDGE_CONFIG) config?: Pick<KnowledgeConfig, 'hostConcurrency'>,
  ) {
    this.robots = new RobotsCache((url) => this.fetchText(url), policy.userAgent);
    this.hosts = new HostGate(config?.hostConcurrency ?? DEFAULT_HOST_CONCURRENCY);
  }

  async process(doc: ClaimedDocument, signal: AbortSignal): Promise<ProcessResult> {
    const state = await this.embedders.state(doc.tenant_id);
    let text: string;
    let title = doc.title;
    let discovered = 0;
    if (doc.source_type === 'url' && doc.source_url && doc.content === null) {
      let page: Awaited<ReturnType<DocumentProcessor['fetchPage']>>;
      try {
        page = await this.fetchPage(doc.source_url, signal);
      } catch (err) {
        // A crawled page that was indexed before and is gone now leaves the knowledge base.
        if (err instanceof PageGone && doc.parent_id !== null && doc.content_hash !== null) return this.removeVanished(doc, state);
        throw err;
      }
      if (page.sitemapUrls) {
        discovered = await this.discover(doc, page.sitemapUrls);
        if (!page.text.trim()) return { chunkCount: 0, embedder: this.embedders.activeId(state.row), discovered, contentHash: null, unchanged: false, removed: false };
      }
      text = page.text;
      title = page.title ?? title;
      if (doc.discover && page.links.length) discovered += await this.discover(doc, page.links);
      if (!text.trim()) throw new PermanentFailure(`No text was found at ${doc.source_url}`);
    } else if (doc.source_type === 'file') {
      text = (await this.files.text(doc)).text;
    } else {
      text = doc.content ?? '';
    }
    const contentHash = hashContent(title, text);
    const activeId = this.embedders.activeId(state.row);
    if (doc.content_hash === contentHash && doc.embedder === activeId && doc.chunk_count > 0) {
      return { chunkCount: doc.chunk_count, embedder: activeId, discovered, contentHash, unchanged: true, removed: false };
    }
    // A Q&A pair is retrieved whole: one chunk, never split.
    const chunks = doc.source_type === 'qa' ? (text.trim() ? [{ ordinal: 0, text }] : []) : await chunkText(text);
    if (!chunks.length) throw new PermanentFailure('The document has no text to index');
    const embedder = await this.index(doc, title, chunks, state, signal);
    // Deleted while it was being embedded (knowledge.document.delete): it must not come back.
    if (!(await this.files.stillExists(doc))) {
      await this.store.deleteByDocument(doc.tenant_id, doc.id);
      throw new TransientFailure('the document was deleted while it was processed');
    }
    return { chunkCount: chunks.length, embedder, discovered, contentHash, unchanged: false, removed: false };
  }

  /**
   * Embeds the chunks with the workspace's embedder (and the one it is switching to) and stores
   * them; again when the model changed meanwhile. Returns the id of the searched embedder.
   */
  private async index(doc: ClaimedDocument, title: string, chunks: { ordinal: number; text: string }[], state: EmbeddingState, signal: AbortSignal): Promise<string> {
    const ctx = serviceContext(doc.tenant_id, `knowledge-ingest-${doc.id}`);
    for (let round = 1; ; round++) {
      if (signal.aborted) throw new TransientFailure('cancelled');
      const texts = chunks.map((c) => c.text);
      let stored: StoredChunk[];
      let active: Embedder;
      try {
        const plan = await this.embedders.plan(state, ctx);
        active = plan.active;
        stored = this.toChunks(doc, title, chunks, active, await active.embeddings.embedDocuments(texts));
        if (plan.target) stored.push(...this.toChunks(doc, title, chunks, plan.target, await plan.target.embeddings.embedDocuments(texts)));
      } catch (err) {
        throw new TransientFailure(`Embedding failed: ${(err as Error).message}`);
      }
      // A worker that lost its claim stops here; one that loses it while writing rewrites the same
      // chunks (ids are derived from document, position and embedder), so chunks are never duplicated.
      if (signal.aborted) throw new TransientFailure('cancelled');
      await this.store.replaceDocument(doc.tenant_id, doc.id, stored);
      const now = await this.embedders.state(doc.tenant_id);
      if (now.key === state.key) return active.id;
      if (round === MAX_INDEX_ROUNDS) throw new TransientFailure("the workspace's embedding model kept changing while the document was indexed");
      state = now;
    }
  }

  private toChunks(doc: ClaimedDocument, title: string, chunks: { ordinal: number; text: string }[], embedder: Embedder, vectors: number[][]): StoredChunk[] {
    return chunks.map((c, i) => ({
      id: chunkId(doc.id, c.ordinal, embedder),
      tenantId: doc.tenant_id,
      documentId: doc.id,
      chatbotId: doc.chatbot_id,
      ordinal: c.ordinal,
      text: c.text,
      title,
      sourceUrl: doc.source_url,
      embedder: embedder.id,
      vector: vectors[i],
    }));
  }

  /** The chunks of a document that failed for good leave the vector store (a failed document holds none). */
  async discard(doc: ClaimedDocument): Promise<void> {
    await this.store.deleteByDocument(doc.tenant_id, doc.id);
  }

  /**
   * The pages a crawled source links now become its pages (added, queued again, or removed with
   * their chunks). Nothing found is no evidence that the pages are gone: then nothing changes.
   */
  private async discover(doc: ClaimedDocument, urls: string[]): Promise<number> {
    if (!urls.length) return 0;
    const { added, removed } = await this.claims.syncDiscoveredPages(doc, urls, doc.page_quota ?? 0);
    for (const id of removed) await this.store.deleteByDocument(doc.tenant_id, id);
    if (removed.length) this.logger.info({ document_id: doc.id, removed: removed.length }, 'pages no longer linked were removed');
    return added;
  }

  private async removeVanished(doc: ClaimedDocument, state: EmbeddingState): Promise<ProcessResult> {
    const removed = await this.claims.removeClaimed(doc.id, doc.claimed_by);
    if (!removed) throw new TransientFailure('cancelled');
    await this.store.deleteByDocument(doc.tenant_id, doc.id);
    return { chunkCount: 0, embedder: this.embedders.activeId(state.row), discovered: 0, contentHash: null, unchanged: false, removed: true };
  }

  /** Fetches and extracts one URL. A sitemap gives its URLs; a site root (or `discover`) its same-site links. */
  private async fetchPage(url: string, signal: AbortSignal): Promise<{ text: string; title: string | null; links: string[]; sitemapUrls: string[] | null }> {
    // The address first: a blocked one must fail as blocked, not as "robots.txt unavailable".
    const verdict = await checkUrl(url, this.policy);
    if (!verdict.ok) throw new PermanentFailure(`${url} is not allowed: ${verdict.reason}`);
    const robots = await this.robots.forUrl(url);
    if (!robots.isAllowed(url)) throw new PermanentFailure(`robots.txt of ${new URL(url).origin} does not allow fetching ${url}`);
    // Many workers may hold pages of one site; the site sees only as many requests as the gate lets through.
    const res = await this.hosts.run(new URL(url).origin, robots.crawlDelaySeconds, () => this.fetch(url, signal));
    const contentType = res.headers['content-type'];
    if (isSitemapUrl(res.url, contentType, res.body)) {
      return { text: '', title: null, links: [], sitemapUrls: await this.sitemapUrls(res, robots) };
    }
    let extracted;
    try {
      extracted = extractWebText({ body: res.body, contentType, url: res.url });
    } catch (err) {
      throw new PermanentFailure((err as Error).message);
    }
    const isRoot = new URL(res.url).pathname === '/' || new URL(res.url).pathname === '';
    let links: string[] = [];
    if (isRoot && extracted.kind === 'html') {
      const fromSitemaps = await this.siteSitemapUrls(res.url, robots).catch(() => [] as string[]);
      links = fromSitemaps.length ? fromSitemaps : extractSameSiteLinks(res.body.toString('utf8'), res.url);
      links = links.filter((l) => l !== res.url && l !== url && robots.isAllowed(l));
    }
    return { text: extracted.text, title: extracted.title, links, sitemapUrls: null };
  }

  /** Pages of a sitemap (following a sitemap index a little way), same site only. */
  private async sitemapUrls(res: GuardedResponse, robots: { isAllowed(u: string): boolean }): Promise<string[]> {
    const origin = new URL(res.url).origin;
    const seen = new Set<string>();
    const pages: string[] = [];
    const queue: { body: Buffer }[] = [{ body: res.body }];
    let followed = 0;
    while (queue.length) {
      const { body } = queue.shift()!;
      const parsed = parseSitemap(body.toString('utf8'));
      for (const u of parsed.urls) {
        if (!sameOrigin(u, origin) || seen.has(u) || !robots.isAllowed(u)) continue;
        seen.add(u);
        pages.push(u);
      }
      for (const s of parsed.sitemaps) {
        if (followed >= MAX_SITEMAPS || !sameOrigin(s, origin)) continue;
        followed++;
        const nested = await this.fetch(s).catch(() => null);
        if (nested && nested.status < 300) queue.push({ body: nested.body });
      }
    }
    return pages;
  }

  /** For a site root: the pages of the sitemaps robots.txt names, or of /sitemap.xml. */
  private async siteSitemapUrls(rootUrl: string, robots: { isAllowed(u: string): boolean; sitemaps: string[] }): Promise<string[]> {
    const candidates = robots.sitemaps.length ? robots.sitemaps : [new URL('/sitemap.xml', rootUrl).toString()];
    const pages: string[] = [];
    for (const s of candidates.slice(0, MAX_SITEMAPS)) {
      const res = await this.fetch(s).catch(() => null);
      if (res && res.status < 300 && isSitemapUrl(res.url, res.headers['content-type'], res.body)) pages.push(...(await this.sitemapUrls(res, robots)));
    }
    return [...new Set(pages)];
  }

  private async fetch(url: string, signal?: AbortSignal): Promise<GuardedResponse> {
    let res: GuardedResponse;
    try {
      res = await guardedFetch(url, this.policy, { accept: ACCEPT, signal });
    } catch (err) {
      if (err instanceof GuardError) {
        if (err.code === 'timeout') throw new FetchTimeout(err.message);
        throw err.code === 'network' ? new TransientFailure(err.message) : new PermanentFailure(err.message);
      }
      throw new TransientFailure((err as Error).message);
    }
    if (res.status >= 500 || res.status === 429) throw new TransientFailure(`${url} answered ${res.status}`);
    if (res.status === 404 || res.status === 410) throw new PageGone(`${url} answered ${res.status}${res.status === 404 ? ' (not found)' : ' (gone)'}`);
    if (res.status >= 400) throw new PermanentFailure(`${url} answered ${res.status}${res.status === 404 ? ' (not found)' : ''}`);
    if (res.status >= 300) throw new PermanentFailure(`${url} answered ${res.status} without a usable redirect`);
    return res;
  }

  private async fetchText(url: string): Promise<{ status: number; body: string } | null> {
    try {
      const res = await guardedFetch(url, this.policy, { accept: 'text/plain' });
      return { status: res.status, body: res.body.toString('utf8') };
    } catch (err) {
      this.logger.debug({ url, err: (err as Error).message }, 'robots.txt fetch failed');
      return null;
    }
  }
}

/** What a document's content hash is taken of: its title and its text (both are in its chunks). */
export function hashContent(title: string, text: string): string {
  return createHash('sha256').update(title).update('\n').update(text).digest('hex');
}

/**
 * A stable uuid for the chunk at `ordinal` of a document (deterministic, so rewrites replace). Two
 * embedders' chunks of one document coexist while a workspace switches models: a connection's
 * take its embedder id into theirs; the installation's keep the ids they always had.
 */
export function chunkId(documentId: string, ordinal: number, embedder: Pick<Embedder, 'id' | 'connectionId'>): string {
  const h = createHash('sha256')
    .update(`${documentId}:${ordinal}${embedder.connectionId ? `:${embedder.id}` : ''}`)
    .digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16], 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function sameOrigin(url: string, origin: string): boolean {
  try {
    return new URL(url).origin === origin;
  } catch {
    return false;
  }
}
