/**
 * What the tools tests share: a real vault, ledger and egress (fake-indexeddb), and the MCP test server
 * made with the official SDK on 127.0.0.1 (test/mcp/server.ts).
 */
import { createEgress } from '../../../src/egress/egress.ts';
import { openLedger } from '../../../src/egress/ledger.ts';
import type { ToolServer } from '../../../src/tools/servers.ts';
import { openVault } from '../../../src/vault/vault.ts';
import type { TestMcpServer } from '../../mcp/server.ts';

let dbs = 0;

export async function toolEgress() {
  const n = ++dbs;
  const vault = await openVault(`tools-vault-${n}`);
  const ledger = await openLedger(`tools-ledger-${n}`);
  const egress = createEgress({ vault, ledger });
  return { vault, ledger, egress };
}

/** The tracker server as Settings stores it once listed, with its tools offered or not. */
export function trackerServer(mcp: TestMcpServer, id = 'tracker'): ToolServer {
  return {
    id,
    url: mcp.url,
    offered: ['search_issues', 'delete_issue'],
    tools: [
      {
        name: 'search_issues',
        description: 'Search the tracker for issues whose title contains the query.',
        inputSchema: {
          type: 'object',
          properties: { query: { type: 'string', minLength: 1 } },
          required: ['query'],
        },
        annotations: { readOnlyHint: true },
      },
      {
        name: 'delete_issue',
        description: 'Delete an issue for good.',
        inputSchema: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
        annotations: { readOnlyHint: false, destructiveHint: true },
      },
    ],
  };
}
