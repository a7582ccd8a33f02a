import OpenAI from 'openai';
import { startProvider } from './server.ts';

/** Headers a browser adds or forbids a page to set: not part of what the SDK itself chooses to send. */
const TRANSPORT_HEADERS = new Set([
  'host',
  'connection',
  'content-length',
  'accept-encoding',
  'accept-language',
  'sec-fetch-mode',
  'user-agent',
]);

/**
 * The headers the real openai SDK sends with a chat completion, read off the test provider's record
 * (transport headers dropped). Browser tests replay their names to show which preflights fail.
 */
export async function openaiSdkHeaders(): Promise<Record<string, string>> {
  const provider = await startProvider({ cors: 'open' });
  try {
    const client = new OpenAI({ baseURL: provider.baseURL, apiKey: 'sk-test', maxRetries: 0 });
    await client.chat.completions.create({ model: 'echo', messages: [{ role: 'user', content: 'hi' }] });
    const sent = provider.requests.find((r) => r.method === 'POST')!.headers;
    return Object.fromEntries(Object.entries(sent).filter(([name]) => !TRANSPORT_HEADERS.has(name)));
  } finally {
    await provider.close();
  }
}
