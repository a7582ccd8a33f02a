import { describe, expect, it } from 'vitest';
import { isLoopback as catalogIsLoopback } from '../../../src/providers/catalog.ts';
import { isLoopback, localServerUrlProblem } from '../../../src/shared/loopback.ts';

describe('loopback URLs', () => {
  it('are localhost, 127.0.0.0/8 and [::1], as the browser parses the URL', () => {
    for (const url of [
      'http://localhost:11434/v1',
      'http://LOCALHOST:1234/v1',
      'http://127.0.0.1:8080/v1',
      'http://127.1.2.3:8000/v1',
      'http://127.1/v1',
      'http://0x7f000001/v1',
      'http://[::1]:8080/v1',
      'http://[0:0:0:0:0:0:0:1]/v1',
      'https://localhost/v1',
    ]) {
      expect(isLoopback(url), url).toBe(true);
      expect(localServerUrlProblem(url), url).toBeUndefined();
    }
  });

  it('are not look-alikes, other hosts on the network, or the open internet', () => {
    for (const url of [
      'http://localhost.evil.com/v1',
      'http://localhost@evil.com/v1',
      'http://evil.com/localhost',
      'http://127.0.0.1.nip.io/v1',
      'http://128.0.0.1/v1',
      'http://10.0.0.5:11434/v1',
      'http://192.168.1.20:11434/v1',
      'http://[::2]/v1',
      'http://[::ffff:7f00:1]/v1',
      'http://0.0.0.0:11434/v1',
      'not a url',
    ]) {
      expect(isLoopback(url), url).toBe(false);
      expect(localServerUrlProblem(url), url).toBeTruthy();
    }
  });

  it('say why a planner URL is refused, naming the host', () => {
    expect(localServerUrlProblem('https://api.example.com/v1')).toMatch(
      /must run on this machine \(localhost, 127\.x\.x\.x or \[::1\]\), and api\.example\.com is not/,
    );
    expect(localServerUrlProblem('ftp://localhost/v1')).toMatch(/http\(s\) URL, not ftp:/);
    expect(localServerUrlProblem('http://user:pw@localhost/v1')).toMatch(/user name or password/);
  });

  it("are the catalog's too (every 127.x address, not only 127.0.0.1)", () => {
    expect(catalogIsLoopback('http://127.0.0.2:8080/v1')).toBe(true);
    expect(catalogIsLoopback('http://localhost.evil.com/v1')).toBe(false);
  });
});
