// `npm run provider [-- --port N] [-- --cors strict|anthropic|open|off] [-- --dialect mistral|…] [-- --no-usage]`:
// the test provider for local demos.
import { parseArgs } from 'node:util';
import { DIALECT_MODES, type DialectMode } from './dialects/index.ts';
import { SEARCHER } from './dialects/web-search.ts';
import { plannerModel } from './planner-model.ts';
import { type CorsMode, IMAGE_MODELS, startProvider } from './server.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8787' },
    cors: { type: 'string', default: 'open' },
    'api-key': { type: 'string' },
    dialect: { type: 'string', default: 'openai' },
    'no-usage': { type: 'boolean', default: false },
  },
});
const cors = values.cors as CorsMode;
if (!['strict', 'anthropic', 'open', 'off'].includes(cors)) {
  console.error(`--cors must be strict, anthropic, open or off (got ${values.cors})`);
  process.exit(2);
}

const dialect = values.dialect as DialectMode;
if (!DIALECT_MODES.includes(dialect)) {
  console.error(`--dialect must be one of ${DIALECT_MODES.join(', ')} (got ${values.dialect})`);
  process.exit(2);
}

const provider = await startProvider({
  port: Number(values.port),
  cors,
  dialect,
  ...(values['no-usage'] ? { usage: 'never' as const } : {}),
  // A local planner for the setup screen's "local server" engine (base URL above, model `planner`), a model
  // that searches the web (test/provider/dialects/web-search.ts), and the image models (`images`, `text-only`).
  models: [plannerModel(), SEARCHER, ...IMAGE_MODELS],
  ...(values['api-key'] ? { apiKey: values['api-key'] } : {}),
});
const list = (
  (await await fetch(`${provider.baseURL}/models`, {
    headers: values['api-key'] ? { authorization: `Bearer ${values['api-key']}` } : {},
  }).then((r) => r.json())) as { data: { id: string }[] }
).data.map((m) => m.id);

console.log(`Baton test provider (CORS ${cors}, ${dialect} dialect) at ${provider.url}`);
console.log(`Base URL for an OpenAI-compatible client: ${provider.baseURL}`);
console.log(`Anthropic Messages API: POST ${provider.baseURL}/messages (anthropic-version, x-api-key)`);
console.log(`Models: ${list.join(', ')}, fixed:<any text>, fault:<kind>x<N>`);
console.log('Fault header: x-test-fault: 401|403|404|429|500|503|cut|stall|malformed[xN]');
console.log('Ctrl+C stops it.');
provider.clearRequests();

const stop = async () => {
  await provider.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
