export { UnsupportedContent } from '@sa/doc-text';
