export { MIN_PBKDF2_ITERATIONS } from './crypto.ts';
export { isVaultError, VaultError, type VaultErrorCode } from './errors.ts';
export { lastFour, maskKey, REDACTED_KEY, redactSecrets, removeSecrets } from './redact.ts';
export {
  type KeyInfo,
  MIN_PASSPHRASE_LENGTH,
  normalizeOrigin,
  openVault,
  passphraseProblem,
  type SaveKeyInput,
  Vault,
  type VaultChange,
  type VaultOptions,
  type VaultState,
} from './vault.ts';
