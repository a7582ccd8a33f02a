import { describe, expect, it } from 'vitest';
import { injectMeta } from '../../../build/csp-plugin.ts';
import { CATALOG, cloudOrigins } from '../../../src/providers/catalog.ts';
import {
  cspDirectives,
  parseConnectSrc,
  parseSandboxOrigin,
  serializeCsp,
} from '../../../src/security/csp.ts';

describe('content security policy', () => {
  it('allows no inline script, wasm compilation, blob workers, and the catalog, model and local hosts', () => {
    const d = cspDirectives();
    expect(d['script-src']).toEqual(["'self'", "'wasm-unsafe-eval'"]);
    expect(d['worker-src']).toEqual(["'self'", 'blob:']);
    for (const origin of cloudOrigins(CATALOG)) expect(d['connect-src']).toContain(origin);
    for (const host of [
      'https://huggingface.co',
      'https://raw.githubusercontent.com',
      'http://localhost:*',
    ]) {
      expect(d['connect-src']).toContain(host);
    }
    expect(d['object-src']).toEqual(["'none'"]);
    expect(JSON.stringify(d)).not.toContain('unsafe-inline');
    expect(d['connect-src']).not.toContain('*');
  });

  it('keeps frame-ancestors out of the meta policy (browsers ignore it there) and in the header', () => {
    const d = cspDirectives();
    expect(serializeCsp(d, 'meta')).not.toContain('frame-ancestors');
    expect(serializeCsp(d, 'header')).toContain("frame-ancestors 'none'");
  });

  it('adds custom hosts from BATON_CONNECT_SRC, and refuses anything that is not an origin', () => {
    expect(
      parseConnectSrc('https://llm.example.com, http://192.168.1.20:11434 https://*.example.org/'),
    ).toEqual(['https://llm.example.com', 'http://192.168.1.20:11434', 'https://*.example.org']);
    expect(parseConnectSrc(undefined)).toEqual([]);
    for (const bad of [
      '*',
      "'unsafe-inline'",
      'https://a.com; script-src *',
      'ftp://x.org',
      'https://a.com/path',
    ]) {
      expect(() => parseConnectSrc(bad), bad).toThrow(/BATON_CONNECT_SRC/);
    }
    const d = cspDirectives({ extraConnectSrc: ['https://llm.example.com'] });
    expect(d['connect-src']).toContain('https://llm.example.com');
  });

  it('puts the meta right after the charset, before any script', () => {
    const html =
      '<html><head>\n<meta charset="UTF-8" />\n<script type="module" src="/a.js"></script></head></html>';
    const out = injectMeta(html, "default-src 'self'");
    const meta = out.indexOf('http-equiv="Content-Security-Policy"');
    expect(meta).toBeGreaterThan(out.indexOf('charset'));
    expect(meta).toBeLessThan(out.indexOf('<script'));
    expect(out).toContain('content="default-src \'self\'"');
    expect(injectMeta('<html><head><title>x</title></head></html>', 'a')).toMatch(
      /<head>\s*<meta http-equiv/,
    );
  });
});

describe('the code-runner sandbox origin (BATON_SANDBOX_ORIGIN)', () => {
  it('accepts an http(s) origin and lets the page frame it beside its own', () => {
    expect(parseSandboxOrigin(undefined)).toBeUndefined();
    expect(parseSandboxOrigin(' ')).toBeUndefined();
    expect(parseSandboxOrigin('https://sandbox.example.net/')).toBe('https://sandbox.example.net');
    expect(parseSandboxOrigin('http://localhost:4195')).toBe('http://localhost:4195');
    expect(cspDirectives({ frameSrc: ['https://sandbox.example.net'] })['frame-src']).toEqual([
      "'self'",
      'https://sandbox.example.net',
    ]);
    expect(cspDirectives()['frame-src']).toEqual(["'self'"]);
  });

  it('refuses anything that is not an origin, naming the value', () => {
    for (const bad of [
      'sandbox.example.net',
      'ftp://x.example',
      'https://x.example/sandbox',
      'javascript:alert(1)',
    ]) {
      expect(() => parseSandboxOrigin(bad)).toThrow(
        `BATON_SANDBOX_ORIGIN: "${bad}" is not an http(s) origin`,
      );
    }
  });
});
