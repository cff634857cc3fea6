export const KNOWLEDGE_LOGGER = Symbol('KNOWLEDGE_LOGGER');
/** The configured embedder (EmbedderChoice). */
export const EMBEDDER = Symbol('EMBEDDER');
/** The outbound-URL policy for crawling (OutboundPolicy). */
export const OUTBOUND_POLICY = Symbol('OUTBOUND_POLICY');
