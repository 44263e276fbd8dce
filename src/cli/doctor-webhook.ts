/**
 * `doctor --webhook <url>`: doctor's checks of the service, then check-receiver's of your webhook
 * endpoint, in one report (their lines named `webhook: …`). Kept apart from both so that neither
 * imports the other.
 */
import { checkReceiver, type CheckReceiverOptions } from './check-receiver.js';
import { reportOf, runDoctor, type DoctorConfig, type DoctorReport } from './doctor.js';

/**
 * doctor's report, with the receiver checks of `webhook` when it is given. The receiver checks
 * that do not apply (a stale timestamp for a scheme that signs none, a handler failure no test
 * hook causes) are left out: they are not settings missing, and would make every run incomplete.
 */
export async function runDoctorWithReceiver(config: DoctorConfig, webhook?: CheckReceiverOptions): Promise<DoctorReport> {
  const report = await runDoctor(config);
  if (!webhook) return report;
  const receiver = (await checkReceiver(webhook)).filter((check) => check.status !== 'skip');
  return reportOf([...report.checks, ...receiver.map((check) => ({ ...check, name: `webhook: ${check.name}` }))]);
}
