import { expect, test } from 'vitest';
import { harness, person } from '../helpers.js';

test('creates, reads and deletes an identity request', async () => {
  const { client } = await harness();
  const created = await client.identityRequests.create(person());
  const codes = { accessRequestCode: created.data.access_request_code, identitySessionCode: created.data.identity_session_code };
  const details = await client.identityRequests.get(codes);
  expect(details.data.first_name).toBe('Jane');
  const deleted = await client.identityRequests.delete(codes);
  expect(deleted.data.message).toBeTypeOf('string');
});
