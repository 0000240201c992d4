import { describe, expect, it } from 'vitest';
import { linkified } from '../../src/platform/web/linkify.js';

describe('people’s text with links', () => {
  it('escapes everything and makes only http(s) addresses links, leaving sentence punctuation out', () => {
    expect(linkified('See https://example.org/a?b=1&c=2. Then <b>bold</b>').text).toBe(
      'See <a href="https://example.org/a?b=1&amp;c=2" rel="nofollow ugc noopener noreferrer">https://example.org/a?b=1&amp;c=2</a>. Then &lt;b&gt;bold&lt;/b&gt;',
    );
  });

  it('makes no link of another scheme, nor of markup smuggled into an address', () => {
    expect(linkified('javascript:alert(1) data:text/html,x').text).toBe(
      'javascript:alert(1) data:text/html,x',
    );
    const smuggled = linkified('http://x.example/"onmouseover="alert(1)').text;
    expect(smuggled).toBe(
      '<a href="http://x.example/" rel="nofollow ugc noopener noreferrer">http://x.example/</a>&quot;onmouseover=&quot;alert(1)',
    );
    expect(linkified('(see http://x.example/page)').text).toContain('>http://x.example/page</a>)');
  });
});
