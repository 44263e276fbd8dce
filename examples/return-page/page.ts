/**
 * The return page's script, bundled for the browser (`app.ts` serves it as `/return-page.js`):
 * it shows where the request stands until the result is final, with no reload.
 */
import { awaitIdentity, type ReturnPageState } from '@acme/identity/return-page';

const WORDS: Record<ReturnPageState['state'], string> = {
  awaiting: 'Checking…',
  processing: 'Checking your result…',
  verified: 'Verified: thank you.',
  partial: 'We need more documents from you: we will email you.',
  invalid: 'We could not verify your identity: we will email you.',
  cancelled: 'Cancelled: nothing was shared.',
  failed: 'This is taking longer than usual: we will email you.',
  missing: 'This is taking longer than usual: we will email you.',
  unknown: 'We could not find this verification.',
};
const LATE: Record<string, string> = {
  completed: 'You finished: your result is on its way…',
  'in-progress': 'Your verification is not finished yet.',
  'not-started': 'Your verification has not started yet.',
  expired: 'This verification has expired.',
};

const state = document.querySelector<HTMLElement>('#state');
if (!state) throw new Error('the page has no #state');
const show = (update: ReturnPageState) => {
  state.dataset['state'] = update.state;
  state.textContent = (update.service && update.state === 'awaiting' ? LATE[update.service] : undefined) ?? WORDS[update.state];
};

awaitIdentity('/identity/status', { onUpdate: show }).catch(() => {
  state.dataset['state'] = 'unknown';
  state.textContent = WORDS.unknown;
});
