export const KNOWLEDGE_LOGGER = Symbol('KNOWLEDGE_LOGGER');
/** The installation's embedder, EMBEDDINGS_* (EmbedderChoice); a workspace may choose its own (WorkspaceEmbedders). */
export const EMBEDDER = Symbol('EMBEDDER');
/** The outbound-URL policy for crawling (OutboundPolicy). */
export const OUTBOUND_POLICY = Symbol('OUTBOUND_POLICY');
