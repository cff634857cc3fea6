import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON documents of any shape
type Json = Record<string, any>;

/**
 * Validates an OpenAPI document with @seriousme/openapi-schema-validator. The validator is ESM
 * only, so it runs in a plain Node child process.
 */
export function validateWithOpenApiSchemaValidator(spec: unknown): { valid: boolean; version?: string; errors?: unknown } {
  const validatorDir = dirname(require.resolve('@seriousme/openapi-schema-validator/package.json'));
  const entry = pathToFileURL(join(validatorDir, 'index.js')).href;
  const script = `
    import { Validator } from ${JSON.stringify(entry)};
    let input = '';
    for await (const chunk of process.stdin) input += chunk;
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(input));
    process.stdout.write(JSON.stringify({ ...result, version: validator.version }));
  `;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { input: JSON.stringify(spec), encoding: 'utf8' });
  if (child.status !== 0) throw new Error(`validator process failed: ${child.stderr}`);
  return JSON.parse(child.stdout);
}

/**
 * ajv with JSON Schema 2020-12 (strict), loaded from where the validator finds it, with the
 * document's component schemas registered under `$id` so `#/components/...` refs resolve.
 */
export function newAjv2020(id: string, schemas: Record<string, Json>): { compile(schema: unknown): ((data: unknown) => boolean) & { errors?: unknown } } {
  const validatorDir = dirname(require.resolve('@seriousme/openapi-schema-validator/package.json'));
  const load = (mod: string) => require(require.resolve(mod, { paths: [validatorDir] }));
  const Ajv2020 = load('ajv/dist/2020').default;
  const addFormats = load('ajv-formats').default;
  const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true, allErrors: true });
  addFormats(ajv);
  // OpenAPI allows x- extension keywords in schemas; the documents use one to mark non-spec members.
  ajv.addKeyword('x-extension');
  ajv.addKeyword('components');
  ajv.addSchema({ $id: id, components: { schemas: structuredClone(schemas) } });
  return ajv;
}

/** Every `$ref` in a document. */
export function collectRefs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => collectRefs(v, out));
  else if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (key === '$ref' && typeof v === 'string') out.push(v);
      else collectRefs(v, out);
    }
  }
  return out;
}

/** Follows a local JSON pointer (`#/a/b`) in `root`. */
export function resolvePointer(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  return ref
    .slice(2)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, part) => (node && typeof node === 'object' ? (node as Json)[part] : undefined), root);
}

/** Asserts that a document is a valid OpenAPI 3.1 document; a failure shows the validator's errors. */
export function expectValidOpenApi31(spec: unknown): void {
  const result = validateWithOpenApiSchemaValidator(spec);
  expect(result.valid ? 'valid' : result.errors).toBe('valid');
  expect(result.version).toBe('3.1');
}
