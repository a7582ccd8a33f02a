import { useEffect, useState } from 'preact/hooks';
import { formatTime } from '../app/format.ts';
import { IDLE_LOCK_MINUTES } from '../app/idle-lock.ts';
import { withArticle } from '../app/indefinite-article.ts';
import { type KeyOutcome, keyName } from '../app/keys.ts';
import { CATALOG, presetById } from '../providers/catalog.ts';
import { useAppState } from './app-context.ts';
import { Field } from './Field.tsx';

/**
 * API keys: add (a password field, cleared after saving; only the last four characters are shown again),
 * delete, and the optional passphrase lock. The keys and the lock are the app's (src/app/keys.ts); this
 * panel keeps only what is being typed and the last action's message.
 */
export function VaultPanel() {
  const app = useAppState();
  const keys = app.keys;
  const lockAfter = app.prefs.vaultPrefs.value.lockAfterMinutes;
  const [providerId, setProviderId] = useState(CATALOG[0]?.id ?? 'openai');
  const [origin, setOrigin] = useState('');
  const [key, setKey] = useState('');
  const [pass, setPass] = useState('');
  const [newPass, setNewPass] = useState('');
  const [newRepeat, setNewRepeat] = useState('');
  const [currentPass, setCurrentPass] = useState('');
  const [nextPass, setNextPass] = useState('');
  const [nextRepeat, setNextRepeat] = useState('');
  const [outcome, setOutcome] = useState<KeyOutcome | undefined>();
  const preset = presetById(providerId);
  const vaultOpen = keys.vault.value !== undefined;
  const locked = keys.locked.value;
  const hasPass = keys.hasPassphrase.value;
  const message: KeyOutcome | undefined =
    outcome ?? (keys.readError.value ? { kind: 'error', text: keys.readError.value } : undefined);

  useEffect(() => {
    void keys.watch();
  }, []);

  // Resolves whether it worked, so a form keeps what was typed when it did not.
  const act = async (action: Promise<KeyOutcome>): Promise<boolean> => {
    setOutcome(undefined);
    const done = await action;
    setOutcome(done);
    return done.kind === 'ok';
  };
  const clearPassphrases = (done: boolean) => {
    if (!done) return;
    setCurrentPass('');
    setNextPass('');
    setNextRepeat('');
  };

  const keyOrigin = preset?.baseURLEditable ? origin || preset.baseURL : (preset?.baseURL ?? origin);

  return (
    <section class="card" aria-labelledby="keys-title" data-testid="vault-panel">
      <h2 id="keys-title">API keys</h2>
      <p class="small muted">
        Keys are encrypted in this browser (AES-GCM) and sent only to their own provider. After saving, only
        the last four characters are shown.
      </p>
      {message && (
        <p class="alert" data-kind={message.kind} role={message.kind === 'error' ? 'alert' : 'status'}>
          {message.text}
        </p>
      )}
      {locked ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void act(keys.unlock(pass)).then(() => setPass(''));
          }}
        >
          <Field
            id="unlock-pass"
            label="Passphrase"
            type="password"
            autocomplete="current-password"
            value={pass}
            onValue={setPass}
          />
          <button type="submit" class="primary" data-testid="unlock">
            Unlock
          </button>
        </form>
      ) : (
        <>
          {keys.list.value.length > 0 && (
            <ul class="history-list" data-testid="key-list">
              {keys.list.value.map((k) => (
                <li key={k.id}>
                  <span class="q">
                    <strong>{keyName(k)}</strong> <span class="muted small">{k.origin}</span>
                  </span>
                  <code data-testid="key-last4">…{k.last4}</code>
                  <span class="small muted">{formatTime(k.createdAt)}</span>
                  <button
                    type="button"
                    class="small danger"
                    aria-label={`Delete the key for ${keyName(k)}`}
                    onClick={() => void act(keys.remove(k.id))}
                  >
                    Delete
                  </button>
                </li>
              ))}
            </ul>
          )}
          <form
            onSubmit={(e) => {
              e.preventDefault();
              const secret = key;
              setKey('');
              void act(keys.save({ providerId, origin: keyOrigin, key: secret }));
            }}
          >
            <div class="row">
              <div class="field">
                <label for="key-provider">Provider</label>
                <select
                  id="key-provider"
                  value={providerId}
                  onChange={(e) => setProviderId(e.currentTarget.value)}
                >
                  {CATALOG.map((p) => (
                    <option key={p.id} value={p.id}>
                      {p.name}
                    </option>
                  ))}
                </select>
              </div>
              {preset?.baseURLEditable && (
                <Field
                  id="key-origin"
                  label="Server URL"
                  type="url"
                  placeholder={preset.baseURL || 'https://…'}
                  value={origin}
                  onValue={setOrigin}
                />
              )}
              <Field
                id="key-value"
                label="API key"
                type="password"
                autocomplete="off"
                spellcheck={false}
                value={key}
                onValue={setKey}
                style={{ flex: 1 }}
              />
            </div>
            <div class="row">
              <button
                type="submit"
                class="primary"
                disabled={!key.trim() || !vaultOpen}
                data-testid="save-key"
              >
                Save key
              </button>
              {preset?.keyURL && (
                <a href={preset.keyURL} target="_blank" rel="noopener noreferrer" class="small">
                  Get {withArticle(preset.name)} key
                </a>
              )}
            </div>
          </form>
        </>
      )}
      <details style={{ marginTop: '0.75rem' }}>
        <summary>Passphrase lock</summary>
        {!hasPass && (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              // Refused (the repeat differs, too short): what was typed stays, to be corrected.
              void act(keys.setPassphrase(newPass, newRepeat)).then((done) => {
                if (!done) return;
                setNewPass('');
                setNewRepeat('');
              });
            }}
          >
            <p class="small muted">
              With a passphrase, keys can only be used after you unlock the vault in this browser session.
            </p>
            <Field
              id="new-pass"
              label="New passphrase (8 characters or more)"
              type="password"
              autocomplete="new-password"
              value={newPass}
              onValue={setNewPass}
            />
            <Field
              id="new-pass-repeat"
              label="Repeat the passphrase"
              type="password"
              autocomplete="new-password"
              value={newRepeat}
              onValue={setNewRepeat}
            />
            <button type="submit" disabled={!newPass || !newRepeat}>
              Set passphrase
            </button>
          </form>
        )}
        {hasPass && !locked && (
          <div class="row">
            <button type="button" onClick={() => void act(keys.lock())} data-testid="lock">
              Lock now
            </button>
          </div>
        )}
        {hasPass && (
          <div class="field">
            <label for="lock-after">Lock the vault after</label>
            <select
              id="lock-after"
              data-testid="lock-after"
              value={String(lockAfter ?? '')}
              onChange={(e) => {
                const minutes = Number(e.currentTarget.value);
                app.prefs.vaultPrefs.value = minutes > 0 ? { lockAfterMinutes: minutes } : {};
              }}
            >
              <option value="">never: unlocked until this tab closes</option>
              {IDLE_LOCK_MINUTES.map((m) => (
                <option key={m} value={String(m)}>
                  {m} minutes without use
                </option>
              ))}
            </select>
          </div>
        )}
        {hasPass && (
          // Both re-encrypt every key in one transaction: if anything fails, the old passphrase still works.
          <form
            data-testid="change-passphrase"
            onSubmit={(e) => {
              e.preventDefault();
              void act(keys.changePassphrase(currentPass, nextPass, nextRepeat)).then(clearPassphrases);
            }}
          >
            <p class="small muted">
              Change the passphrase, or remove it (keys stay encrypted under a key kept in this browser).
            </p>
            <div class="row">
              <Field
                id="current-pass"
                label="Current passphrase"
                type="password"
                autocomplete="current-password"
                value={currentPass}
                onValue={setCurrentPass}
              />
              <Field
                id="next-pass"
                label="New passphrase (8 characters or more)"
                type="password"
                autocomplete="new-password"
                value={nextPass}
                onValue={setNextPass}
              />
              <Field
                id="next-pass-repeat"
                label="Repeat the new passphrase"
                type="password"
                autocomplete="new-password"
                value={nextRepeat}
                onValue={setNextRepeat}
              />
            </div>
            <div class="row">
              <button type="submit" disabled={!currentPass || !nextPass || !nextRepeat}>
                Change passphrase
              </button>
              <button
                type="button"
                class="danger"
                disabled={!currentPass}
                onClick={() => void act(keys.removePassphrase(currentPass)).then(clearPassphrases)}
              >
                Remove passphrase
              </button>
            </div>
          </form>
        )}
      </details>
    </section>
  );
}
