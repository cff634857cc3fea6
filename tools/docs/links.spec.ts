import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Every relative link and image in the project's Markdown (README.md, CONTRIBUTING.md, docs/ and
 * bench/README.md) points at a file that exists, and every `#anchor` at a heading of its file, as
 * GitHub renders them. External links (http, https, mailto) are not followed.
 *
 * The slugs follow github-slugger (lowercase; drop everything but letters, marks, digits,
 * connector punctuation, hyphens and spaces; spaces become hyphens; a repeated slug gets -1, -2 …).
 * github-slugger is not installed here, so this is the small function itself.
 */
const ROOT = path.resolve(__dirname, '..', '..');
const README_MAX_LINES = 250;

function githubSlugger(): (heading: string) => string {
  const seen = new Map<string, number>();
  return (heading) => {
    const base = heading.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
    let slug = base;
    while (seen.has(slug)) {
      const n = (seen.get(base) ?? 0) + 1;
      seen.set(base, n);
      slug = `${base}-${n}`;
    }
    seen.set(slug, 0);
    return slug;
  };
}

/** The text of the Markdown without fenced code blocks (their lines are left empty, so line numbers stay). */
function withoutFences(markdown: string): string[] {
  let fence: string | null = null;
  return markdown.split('\n').map((line) => {
    const open = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence === null && open) {
      fence = open[1];
      return '';
    }
    if (fence !== null) {
      if (open && open[1][0] === fence[0] && open[1].length >= fence.length && line.trim() === open[1]) fence = null;
      return '';
    }
    return line;
  });
}

/** Code spans (`…`, within a paragraph) blanked out: a link inside one is no link. */
function withoutCodeSpans(lines: string[]): string[] {
  const text = lines.join('\n');
  const blanked = text
    .split(/(\n[ \t]*\n)/)
    .map((para) => para.replace(/(`+)[\s\S]*?\1/g, (span) => span.replace(/[^\n]/g, ' ')))
    .join('');
  return blanked.split('\n');
}

/** What a heading shows as text: links and images by their text, without code marks or HTML tags. */
function headingText(raw: string): string {
  return raw
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/`/g, '')
    .trim();
}

/** The anchors GitHub gives the headings (ATX and setext) and the HTML ids/names of a Markdown file. */
function anchorsOf(markdown: string): Set<string> {
  const slug = githubSlugger();
  const anchors = new Set<string>();
  const lines = withoutFences(markdown);
  lines.forEach((line, i) => {
    const atx = /^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/.exec(line);
    if (atx) {
      anchors.add(slug(headingText(atx[1] ?? '')));
      return;
    }
    const next = lines[i + 1] ?? '';
    if (line.trim() !== '' && !/^\s*[|#>*+-]/.test(line) && /^ {0,3}(=+|-+)[ \t]*$/.test(next) && (lines[i - 1] ?? '').trim() === '') {
      anchors.add(slug(headingText(line)));
    }
  });
  for (const m of markdown.matchAll(/<a\s+(?:[^>]*\s)?(?:id|name)="([^"]+)"/gi)) anchors.add(m[1]);
  return anchors;
}

interface Link {
  line: number;
  target: string;
}

/** Inline links and images `[text](target "title")` and reference definitions `[ref]: target`. */
function linksOf(markdown: string): Link[] {
  const lines = withoutCodeSpans(withoutFences(markdown));
  const links: Link[] = [];
  const inline = /!?\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*(<[^>]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)/g;
  lines.forEach((line, i) => {
    for (const m of line.matchAll(inline)) links.push({ line: i + 1, target: m[1].replace(/^<|>$/g, '') });
    const def = /^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/.exec(line);
    if (def) links.push({ line: i + 1, target: def[1].replace(/^<|>$/g, '') });
  });
  return links;
}

interface Target {
  exists: boolean;
  /** The file's text when it is Markdown (its anchors are checked). */
  markdown?: string;
}

/** The links of one file that point nowhere: `file:line: target (why)`. */
function brokenLinks(file: string, markdown: string, read: (absolute: string) => Target): string[] {
  const broken: string[] = [];
  for (const { line, target } of linksOf(markdown)) {
    if (/^(https?:|mailto:)/i.test(target)) continue;
    const where = `${path.relative(ROOT, file)}:${line}: ${target}`;
    if (target === '') {
      broken.push(`${where} (empty target)`);
      continue;
    }
    const hash = target.indexOf('#');
    const filePart = hash < 0 ? target : target.slice(0, hash);
    const anchor = hash < 0 ? null : decodeURIComponent(target.slice(hash + 1));
    let text: string | undefined = markdown;
    if (filePart !== '') {
      const decoded = decodeURIComponent(filePart);
      const absolute = decoded.startsWith('/') ? path.join(ROOT, decoded) : path.resolve(path.dirname(file), decoded);
      const found = read(absolute);
      if (!found.exists) {
        broken.push(`${where} (no such file)`);
        continue;
      }
      text = found.markdown;
    }
    if (anchor !== null) {
      if (text === undefined) broken.push(`${where} (an anchor into a file that is not Markdown)`);
      else if (!anchorsOf(text).has(anchor)) broken.push(`${where} (no heading with this anchor)`);
    }
  }
  return broken;
}

function readFromDisk(absolute: string): Target {
  if (!fs.existsSync(absolute)) return { exists: false };
  if (absolute.endsWith('.md') && fs.statSync(absolute).isFile()) return { exists: true, markdown: fs.readFileSync(absolute, 'utf8') };
  return { exists: true };
}

function markdownFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? markdownFiles(path.join(dir, e.name)) : e.name.endsWith('.md') ? [path.join(dir, e.name)] : []))
    .sort();
}

const FILES = [
  path.join(ROOT, 'README.md'),
  path.join(ROOT, 'CONTRIBUTING.md'),
  ...markdownFiles(path.join(ROOT, 'docs')),
  ...[path.join(ROOT, 'bench', 'README.md')].filter((f) => fs.existsSync(f)),
];

describe('the project\'s Markdown', () => {
  it(`README.md has at most ${README_MAX_LINES} lines`, () => {
    const text = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    expect(lines).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it('covers README.md, CONTRIBUTING.md, bench/README.md and the guides and decisions in docs/', () => {
    const relative = FILES.map((f) => path.relative(ROOT, f));
    expect(relative).toEqual(expect.arrayContaining(['README.md', 'CONTRIBUTING.md', 'docs/decisions/README.md', 'docs/widget.md']));
  });

  it.each(FILES.map((f) => [path.relative(ROOT, f), f]))('every relative link and anchor of %s resolves', (_name, file) => {
    expect(brokenLinks(file, fs.readFileSync(file, 'utf8'), readFromDisk)).toEqual([]);
  });
});

describe('the link check itself', () => {
  it('makes the anchors GitHub makes', () => {
    const slug = githubSlugger();
    expect(
      [
        'Visitors: the widget API, leads and bookings',
        "The console's content pages",
        'Beside npm start',
        'Configuration',
        'Configuration',
        'Configuration-1',
        'Issue 18: the widget in the console (settings, snippet, identity secret)',
        'Ümlaut & 日本語',
      ].map(slug),
    ).toEqual([
      'visitors-the-widget-api-leads-and-bookings',
      'the-consoles-content-pages',
      'beside-npm-start',
      'configuration',
      'configuration-1',
      'configuration-1-1',
      'issue-18-the-widget-in-the-console-settings-snippet-identity-secret',
      'ümlaut--日本語',
    ]);
  });

  it('finds inline links, images and reference definitions, but none in code', () => {
    const md = [
      'See [a](a.md), ![pic](screenshots/x.png "title") and [b](b.md#part).',
      '`[not](code.md)`',
      '```',
      '[not](fenced.md)',
      '```',
      '[ref]: <c.md>',
    ].join('\n');
    expect(linksOf(md)).toEqual([
      { line: 1, target: 'a.md' },
      { line: 1, target: 'screenshots/x.png' },
      { line: 1, target: 'b.md#part' },
      { line: 6, target: 'c.md' },
    ]);
  });

  it('reports a missing file, a missing anchor and an anchor of its own file, and skips external links', () => {
    const file = path.join(ROOT, 'docs', 'guide.md');
    const files: Record<string, string> = { [path.join(ROOT, 'docs', 'other.md')]: '# Other\n\n## `Code` and more\n' };
    const read = (absolute: string): Target => (absolute in files ? { exists: true, markdown: files[absolute] } : { exists: false });
    const md = [
      '# Guide',
      '## A part',
      '## A part',
      '[ok](#a-part-1) [ok](other.md#code-and-more) [ok](../docs/other.md) [ok](https://example.com/x.md) [ok](mailto:a@b.c)',
      '[bad](#nowhere) [bad](other.md#nowhere) [bad](missing.md) [bad](#a-part-2)',
    ].join('\n');
    expect(brokenLinks(file, md, read)).toEqual([
      'docs/guide.md:5: #nowhere (no heading with this anchor)',
      'docs/guide.md:5: other.md#nowhere (no heading with this anchor)',
      'docs/guide.md:5: missing.md (no such file)',
      'docs/guide.md:5: #a-part-2 (no heading with this anchor)',
    ]);
  });
});
