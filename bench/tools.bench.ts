// P27: the page's own time per tool call. A step's granted tool is called as the executor's transport calls
// it (src/tools/step-tools.ts): the grant is checked, the arguments are checked against the server's schema,
// the call goes through egress (the vault's keys scrubbed out of the body, a ledger row written, the answer
// counted and scrubbed) to the MCP test server made with the official SDK on 127.0.0.1, and the result is
// fenced for the model. From the model's tool call arriving to the result leaving, minus the server's own
// time (from the request's arrival to the tool having run, as its log says): what Baton adds to a call.
import 'fake-indexeddb/auto';
import { createEgress } from '../src/egress/egress.ts';
import { openLedger } from '../src/egress/ledger.ts';
import { stepTools } from '../src/tools/step-tools.ts';
import { openVault } from '../src/vault/vault.ts';
import { startMcpServer } from '../test/mcp/server.ts';
import { median, quantile, round } from './stats.ts';
import type { Benchmark } from './types.ts';

const CALLS = 60;
/** A saved key of another host, scrubbed from every body and answer as in the app. */
const OTHER_KEY = 'sk-other-host-0123456789abcdef';

export const benchmarks: Benchmark[] = [
  {
    id: 'p27-tool-overhead',
    title: "The page's own ms per tool call (the model's call in → the result out, minus the server's time)",
    async run() {
      const mcp = await startMcpServer();
      try {
        const vault = await openVault('bench-tools-vault');
        await vault.saveKey({ providerId: 'openai', origin: 'https://api.openai.com', key: OTHER_KEY });
        const ledger = await openLedger('bench-tools-ledger');
        const egress = createEgress({ vault, ledger });
        const tools = stepTools({
          egress,
          servers: [
            {
              id: 'tracker',
              url: mcp.url,
              offered: ['search_issues'],
              tools: [
                {
                  name: 'search_issues',
                  description: 'Search issues.',
                  inputSchema: {
                    type: 'object',
                    properties: { query: { type: 'string', minLength: 1 } },
                    required: ['query'],
                  },
                  annotations: { readOnlyHint: true },
                },
              ],
            },
          ],
          grant: ['tracker.search_issues'],
          runId: 'bench',
          stepIndex: 0,
          pageOrigin: 'http://localhost',
          confirm: async () => true,
        });
        if (!tools) throw new Error('no tools');
        const own: number[] = [];
        let first = 0;
        for (let i = 0; i <= CALLS; i++) {
          const before = mcp.calls.length;
          const start = performance.now();
          await tools.call(
            { id: `c${i}`, name: 'tracker__search_issues', arguments: '{"query":"login"}' },
            new AbortController().signal,
          );
          const total = performance.now() - start;
          const server = mcp.calls[before]?.serverMs ?? 0;
          // The first call of a step also connects (initialize, initialized): reported apart.
          if (i === 0) first = total - server;
          else own.push(total - server);
        }
        return {
          value: round(median(own)),
          goal: 20,
          unit: 'ms',
          better: 'lower',
          notes: `p90 ${round(quantile(own, 0.9))} ms over ${CALLS} calls; a step's first call, which also connects: ${round(first)} ms`,
        };
      } finally {
        await mcp.close();
      }
    },
  },
];
