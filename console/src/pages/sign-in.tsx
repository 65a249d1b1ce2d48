/**
 * Sign-in: the token is tried on GET /api/console/overview, the route the first page needs, so a
 * token that is accepted here can open the console; only then is it kept (session.ts).
 */
import { useState } from 'preact/hooks';
import { ApiError, apiFor } from '../api/client.js';
import { ErrorLine } from '../page-parts.js';

export function SignInPage({ notice, onSignedIn }: { notice: string | undefined; onSignedIn: (token: string) => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await apiFor(token.trim()).overview();
      onSignedIn(token.trim());
    } catch (failure) {
      if (failure instanceof ApiError && failure.status === 401) setError('The server does not know this token (401).');
      else if (failure instanceof ApiError && failure.status === 403) setError('This token lacks the scope console (403).');
      else setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="sign-in">
      <h1 tabIndex={-1}>Sign in to the Syncline console</h1>
      {notice && <p role="status">{notice}</p>}
      <form onSubmit={submit}>
        <label for="token">API token</label>
        <input
          id="token"
          name="token"
          type="password"
          autocomplete="off"
          required
          value={token}
          onInput={(event) => setToken(event.currentTarget.value)}
          aria-describedby="token-help"
        />
        <p id="token-help" class="help">
          The token of an ApiClient with the scope console (queue:read and queue:write for the queue), or the admin token. It is kept in
          this tab only.
        </p>
        <button type="submit" disabled={busy}>
          Sign in
        </button>
        <ErrorLine error={error} />
      </form>
    </section>
  );
}
