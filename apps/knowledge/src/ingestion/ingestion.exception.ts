import { BadRequest } from '@sa/errors';

/** A document whose content type (or format) cannot be turned into text; the message says which. */
export class UnsupportedContent extends BadRequest {}
