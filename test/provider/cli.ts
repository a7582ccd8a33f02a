// `npm run provider [-- --port N] [-- --cors strict|anthropic|open]`: the test provider for local demos.
import { parseArgs } from 'node:util';
import { plannerModel } from './planner-model.ts';
import { type CorsMode, startProvider } from './server.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8787' },
    cors: { type: 'string', default: 'open' },
    'api-key': { type: 'string' },
  },
});
const cors = values.cors as CorsMode;
if (!['strict', 'anthropic', 'open'].includes(cors)) {
  console.error(`--cors must be strict, anthropic or open (got ${values.cors})`);
  process.exit(2);
}

const provider = await startProvider({
  port: Number(values.port),
  cors,
  // A local planner for the setup screen's "local server" engine (base URL above, model `planner`).
  models: [plannerModel()],
  ...(values['api-key'] ? { apiKey: values['api-key'] } : {}),
});
const list = (
  (await await fetch(`${provider.baseURL}/models`, {
    headers: values['api-key'] ? { authorization: `Bearer ${values['api-key']}` } : {},
  }).then((r) => r.json())) as { data: { id: string }[] }
).data.map((m) => m.id);

console.log(`Baton test provider (CORS ${cors}) at ${provider.url}`);
console.log(`Base URL for an OpenAI-compatible client: ${provider.baseURL}`);
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
