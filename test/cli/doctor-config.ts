/** doctor's settings for a fake service, every credential given: what the doctor tests start from. */
import type { DoctorConfig } from '../../src/cli/doctor.js';
import { DEFAULT_CLIENT, type FakeService } from '../../src/testing/index.js';

export function soundConfig(service: Pick<FakeService, 'baseUrl' | 'authUrl' | 'fetch'>): DoctorConfig {
  return {
    baseUrl: service.baseUrl,
    authUrl: service.authUrl,
    clientId: DEFAULT_CLIENT.clientId,
    clientSecret: DEFAULT_CLIENT.clientSecret,
    tenantId: DEFAULT_CLIENT.tenantId,
    fetch: service.fetch,
  };
}
