import { describe, expect, it } from 'vitest';
import { storageErrorText } from '../../../src/shared/storage-error.ts';

describe('storageErrorText', () => {
  it('says a full storage in words, whether or not the browser gave a message', () => {
    const full = "this browser's storage for Baton is full";
    expect(storageErrorText(new DOMException('', 'QuotaExceededError'))).toBe(full);
    expect(storageErrorText(new DOMException('The quota has been exceeded.', 'QuotaExceededError'))).toBe(
      full,
    );
  });

  it("keeps another error's message beside its cause, and never leaves a name with an empty reason", () => {
    expect(storageErrorText(new DOMException('Database closed.', 'InvalidStateError'))).toBe(
      'the database was closed (another tab may be upgrading it): Database closed.',
    );
    expect(storageErrorText(new DOMException('', 'NotReadableError'))).toBe(
      'NotReadableError (no reason given)',
    );
    expect(storageErrorText(new Error('disk on fire'))).toBe('disk on fire');
    expect(storageErrorText(new Error(''))).toBe('no reason given');
    expect(storageErrorText('odd')).toBe('odd');
  });
});
