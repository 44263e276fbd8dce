// Node, Bun and Deno: `<runtime> run.mjs` with the configuration in SMOKE_CONFIG; prints JSON.
import { smoke } from './server.mjs';

const result = await smoke(JSON.parse(process.env.SMOKE_CONFIG));
console.log(JSON.stringify(result));
