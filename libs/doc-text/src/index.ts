export * from './doc-text.exception';
export { decodeBody, decodeWindows1252, charsetParam } from './charset';
export { type DomDocument, type DomElement, type DomNode, htmlToText, linkedom, normaliseText, parseDocument, removeBoilerplate, removeConsentBanners } from './html-text';
export { type Extracted, type ExtractedKind, type ExtractInput, extractHtml, extractWebText, markdownTitle } from './web-text';
export { FILE_EXTENSIONS, FILE_KINDS, type FileInput, type FileKind, type FileLimits, type FileText, extractFileText, fileKindOf } from './file-text';
