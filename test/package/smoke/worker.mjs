// workerd: bundled with the configuration defined in, answers its smoke result as JSON.
import { smoke } from './server.mjs';

export default {
  async fetch() {
    try {
      return Response.json(await smoke(__SMOKE_CONFIG__));
    } catch (error) {
      return Response.json({ error: `${error.code ?? error.name}: ${error.message}` }, { status: 500 });
    }
  },
};
