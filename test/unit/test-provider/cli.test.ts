import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { afterEach, expect, it } from 'vitest';

let child: ChildProcess | undefined;
afterEach(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  child = undefined;
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

it('`npm run provider` prints its URL and models, serves open CORS, and stops on Ctrl+C', async () => {
  const port = await freePort();
  // What `npm run provider -- --port N` runs (tsx test/provider/cli.ts), as one process we can signal.
  child = spawn(process.execPath, ['--import', 'tsx', 'test/provider/cli.ts', '--port', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  await expect.poll(() => out, { timeout: 15_000 }).toContain('Ctrl+C');
  expect(out).toContain(`http://127.0.0.1:${port}`);
  expect(out).toMatch(/Models: echo, upper/);
  expect(out).toContain('CORS open');

  const preflight = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
    method: 'OPTIONS',
    headers: {
      origin: 'http://localhost:5173',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type,x-stainless-os',
    },
  });
  expect(preflight.status).toBe(204);

  const exited = new Promise<number | null>((resolve) => child!.on('exit', (code) => resolve(code)));
  child.kill('SIGINT');
  expect(await exited).toBe(0);
  await expect(fetch(`http://127.0.0.1:${port}/v1/models`)).rejects.toThrow();
});

it('`npm run provider -- --dialect gemini` speaks that dialect, and an unknown dialect is refused by name', async () => {
  const port = await freePort();
  child = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/provider/cli.ts', '--port', String(port), '--dialect', 'gemini'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  await expect.poll(() => out, { timeout: 15_000 }).toContain('Ctrl+C');
  expect(out).toContain('gemini dialect');
  expect(out).toMatch(/Models: models\/echo/);
  const exited = new Promise<number | null>((resolve) => child!.on('exit', (code) => resolve(code)));
  child.kill('SIGINT');
  expect(await exited).toBe(0);

  const bad = spawn(process.execPath, ['--import', 'tsx', 'test/provider/cli.ts', '--dialect', 'klingon'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = bad;
  let err = '';
  bad.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const code = await new Promise<number | null>((resolve) => bad.on('exit', (c) => resolve(c)));
  expect(code).toBe(2);
  expect(err).toContain('--dialect must be one of openai, mistral');
});
