import { BadRequest } from '@sa/errors';

/** A document whose content type (or format) cannot be turned into text; the message says which. */
export class UnsupportedContent extends BadRequest {}

/** A file larger than the configured limit (bytes, or extracted characters). */
export class DocumentTooLarge extends BadRequest {}

/** A file of a supported kind that cannot be read (corrupt, encrypted, not what its name says). */
export class UnreadableDocument extends BadRequest {}
