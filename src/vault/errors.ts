/**
 * Why a vault operation failed. Messages are for people and name provider ids and origins only: never a
 * key, never a passphrase. Across a worker boundary `instanceof` fails, so switch on `name` and `code`.
 */
export type VaultErrorCode =
  | 'locked' // a passphrase is set and the vault has not been unlocked (or was locked again)
  | 'wrong-passphrase' // the passphrase did not open the verifier; nothing was changed
  | 'weak-passphrase' // empty or shorter than MIN_PASSPHRASE_LENGTH characters
  | 'no-passphrase' // unlock/lock/change/remove asked of a vault without a passphrase
  | 'has-passphrase' // setPassphrase on a vault that already has one (use changePassphrase)
  | 'bad-origin' // not an http(s) URL or origin
  | 'bad-key' // empty, or contains whitespace or control characters
  | 'bad-input' // other invalid arguments (empty provider id, iteration count below the floor)
  | 'not-found' // deleteKey of an unknown id
  | 'corrupt' // a record failed to decrypt (tampered, or moved between records)
  | 'busy'; // the database kept changing under a re-encryption (other tabs); nothing was changed

export class VaultError extends Error {
  override name = 'VaultError';
  constructor(
    readonly code: VaultErrorCode,
    message: string,
  ) {
    super(message);
  }
}
