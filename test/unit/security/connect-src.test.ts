import { describe, expect, it } from 'vitest';
import { connectSrcAllows } from '../../../src/security/connect-src.ts';
import { cspDirectives } from '../../../src/security/csp.ts';

const PAGE = 'http://localhost:5173';
const allows = (url: string, sources = cspDirectives()['connect-src']!) =>
  connectSrcAllows(new URL(url), sources, PAGE);

describe("the page's connect-src, read where a host is typed", () => {
  it('allows the catalog, the model hosts, this machine on any port, and the page itself', () => {
    expect(allows('https://api.openai.com/v1')).toBe(true);
    expect(allows('https://huggingface.co/x')).toBe(true);
    expect(allows('https://cdn-lfs.hf.co/file')).toBe(true);
    expect(allows('http://127.0.0.1:11434/v1')).toBe(true);
    expect(allows('http://localhost:1234/v1')).toBe(true);
    expect(allows(`${PAGE}/assets/a.js`)).toBe(true);
  });

  it('refuses any other host: a custom endpoint, a server on another machine, another port of a cloud host', () => {
    expect(allows('https://llm.example.com/v1')).toBe(false);
    expect(allows('http://192.168.1.20:11434/v1')).toBe(false);
    expect(allows('https://api.openai.com:8443/v1')).toBe(false);
    expect(allows('http://api.openai.com/v1')).toBe(false);
    // A wildcard covers subdomains, not the domain itself.
    expect(allows('https://hf.co/x')).toBe(false);
  });

  it('allows what BATON_CONNECT_SRC adds, with its wildcards', () => {
    const sources = cspDirectives({
      extraConnectSrc: ['https://llm.example.com', 'http://192.168.1.20:*', 'https://*.example.org'],
    })['connect-src']!;
    expect(allows('https://llm.example.com/v1', sources)).toBe(true);
    expect(allows('http://192.168.1.20:11434/v1', sources)).toBe(true);
    expect(allows('https://a.b.example.org/v1', sources)).toBe(true);
    expect(allows('https://llm.example.com:8443/v1', sources)).toBe(false);
  });
});
