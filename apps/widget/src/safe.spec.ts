import { linkText, safeHref, sourceLinks } from './safe';

describe('source links', () => {
  it('keeps absolute http(s) URLs only', () => {
    expect(safeHref('https://docs.example.com/a?b=1')).toBe('https://docs.example.com/a?b=1');
    expect(safeHref('http://example.com')).toBe('http://example.com/');
    for (const bad of ['javascript:alert(1)', 'JAVASCRIPT:alert(1)', 'data:text/html,x', '/relative', 'vbscript:x', 'file:///etc/passwd', ' ', 'blob:https://a/b']) {
      expect(safeHref(bad)).toBeUndefined();
    }
  });

  it('drops unsafe and duplicate sources, at most five', () => {
    const urls = ['https://a.example/1', 'javascript:x', 'https://a.example/1', ...Array.from({ length: 8 }, (_, i) => `https://b.example/${i}`)];
    expect(sourceLinks(urls)).toEqual(['https://a.example/1', 'https://b.example/0', 'https://b.example/1', 'https://b.example/2', 'https://b.example/3']);
    expect(sourceLinks(undefined)).toEqual([]);
  });

  it('shows host and path', () => {
    expect(linkText('https://docs.example.com/')).toBe('docs.example.com');
    expect(linkText('https://docs.example.com/plans?x=1')).toBe('docs.example.com/plans?x=1');
  });
});
