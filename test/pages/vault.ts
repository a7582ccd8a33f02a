// Harness: drives the real vault against the browser's real IndexedDB, with a minimal form so browser
// tests can go through the passphrase flow as a user would (type, click, read the error text).
import { deriveKey, MIN_PBKDF2_ITERATIONS, randomBytes } from '../../src/vault/crypto.ts';
import { openVault, type Vault } from '../../src/vault/vault.ts';

declare global {
  interface Window {
    __vault?: Vault;
    __vaultHarness?: {
      /** Derives a passphrase key exactly as the vault does (to check it is not extractable). */
      deriveKey: typeof deriveKey;
      randomBytes: typeof randomBytes;
      iterations: number;
    };
  }
}

const stateOut = document.querySelector<HTMLOutputElement>('[data-testid="vault-state"]')!;
const errorOut = document.querySelector<HTMLElement>('[data-testid="vault-error"]')!;
const list = document.querySelector<HTMLUListElement>('[data-testid="keys"]')!;
const saveForm = document.querySelector<HTMLFormElement>('[data-testid="save-form"]')!;
const passForm = document.querySelector<HTMLFormElement>('[data-testid="passphrase-form"]')!;

const vault = await openVault();
window.__vault = vault;
window.__vaultHarness = { deriveKey, randomBytes, iterations: MIN_PBKDF2_ITERATIONS };

async function render(): Promise<void> {
  stateOut.textContent = vault.state();
  stateOut.dataset.hasPassphrase = String(vault.hasPassphrase());
  const keys = await vault.listKeys();
  list.replaceChildren(
    ...keys.map((k) => {
      const item = document.createElement('li');
      item.textContent = `${k.providerId} ${k.origin} …${k.last4}`;
      return item;
    }),
  );
  document.body.dataset.ready = 'true';
}

async function run(action: () => Promise<unknown> | unknown): Promise<void> {
  errorOut.textContent = '';
  try {
    await action();
  } catch (error) {
    errorOut.textContent = error instanceof Error ? error.message : String(error);
  }
  await render();
}

saveForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const data = new FormData(saveForm);
  const keyInput = saveForm.elements.namedItem('key') as HTMLInputElement;
  const key = String(data.get('key') ?? '');
  keyInput.value = ''; // the key leaves the page as soon as it is saved
  void run(async () => {
    const saved = await vault.saveKey({
      providerId: String(data.get('providerId')),
      origin: String(data.get('origin')),
      key,
    });
    keyInput.placeholder = `saved …${saved.last4}`;
  });
});

passForm.addEventListener('click', (event) => {
  const action = (event.target as HTMLElement).closest('button')?.dataset.action;
  if (!action) return;
  const passInput = passForm.elements.namedItem('passphrase') as HTMLInputElement;
  const nextInput = passForm.elements.namedItem('next') as HTMLInputElement;
  const passphrase = passInput.value;
  const next = nextInput.value;
  passInput.value = '';
  nextInput.value = '';
  void run(() => {
    switch (action) {
      case 'set':
        return vault.setPassphrase(passphrase);
      case 'unlock':
        return vault.unlock(passphrase);
      case 'lock':
        return vault.lock();
      case 'change':
        return vault.changePassphrase(passphrase, next);
      case 'remove':
        return vault.removePassphrase(passphrase);
      case 'forget':
        return vault.forgetEverything();
      default:
        return undefined;
    }
  });
});

vault.onChange(() => void render());
await render();
