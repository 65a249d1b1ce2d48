/**
 * The console's frame: sign-in until a token is accepted, then the navigation and the page of
 * the current route. A 401 from any call ends the session (the token was removed or changed on
 * the server) and returns to sign-in saying why.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, apiFor, type Api } from './api/client.js';
import { clearToken, storedToken, storeToken } from './api/session.js';
import { DefinitionsPage } from './pages/definitions.js';
import { OverviewPage } from './pages/overview.js';
import { QueueItemPage } from './pages/queue-item.js';
import { QueuePage } from './pages/queue.js';
import { SignInPage } from './pages/sign-in.js';
import { SystemsPage } from './pages/systems.js';
import { WebhookPage, WebhooksPage } from './pages/webhooks.js';
import { base, followLink, useRoute } from './route.js';

/** Every call of `api`, with a 401 handed to `onUnauthorized` before it is thrown on. */
function guarded(api: Api, onUnauthorized: () => void): Api {
  const wrapped: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(api) as Array<[string, (...args: unknown[]) => Promise<unknown>]>) {
    wrapped[name] = async (...args: unknown[]) => {
      try {
        return await fn(...args);
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) onUnauthorized();
        throw error;
      }
    };
  }
  return wrapped as Api;
}

export function App() {
  const [token, setToken] = useState(storedToken);
  const [notice, setNotice] = useState<string | undefined>();
  const route = useRoute();
  const main = useRef<HTMLElement>(null);

  const signOut = (message?: string) => {
    clearToken();
    setToken(null);
    setNotice(message);
  };
  const api = useMemo(
    () => (token ? guarded(apiFor(token), () => signOut('The server refused the token (401): sign in again.')) : undefined),
    [token],
  );

  // Links of the console open their page in place (route.ts); Enter on a link clicks it too.
  useEffect(() => {
    document.addEventListener('click', followLink);
    return () => document.removeEventListener('click', followLink);
  }, []);

  // A new page moves focus to its heading, as a page load would, so keyboard and screen-reader users start there.
  useEffect(() => {
    main.current?.querySelector('h1')?.focus();
  }, [route, token]);

  if (!api) {
    return (
      <main ref={main}>
        <SignInPage
          notice={notice}
          onSignedIn={(accepted) => {
            storeToken(accepted);
            setNotice(undefined);
            setToken(accepted);
          }}
        />
      </main>
    );
  }
  const current = route.page === 'item' ? 'queue' : route.page === 'webhook' ? 'webhooks' : route.page;
  return (
    <>
      <header class="bar">
        <span class="brand">Syncline console</span>
        <nav aria-label="Console">
          <a href={base} aria-current={current === 'overview' ? 'page' : undefined}>
            Overview
          </a>
          <a href={`${base}/queue`} aria-current={current === 'queue' ? 'page' : undefined}>
            Queue
          </a>
          <a href={`${base}/systems`} aria-current={current === 'systems' ? 'page' : undefined}>
            Systems
          </a>
          <a href={`${base}/definitions`} aria-current={current === 'definitions' ? 'page' : undefined}>
            Definitions
          </a>
          <a href={`${base}/webhooks`} aria-current={current === 'webhooks' ? 'page' : undefined}>
            Webhooks
          </a>
        </nav>
        <button type="button" class="secondary" onClick={() => signOut('Signed out.')}>
          Sign out
        </button>
      </header>
      <main ref={main}>
        {route.page === 'overview' && <OverviewPage api={api} />}
        {route.page === 'queue' && <QueuePage api={api} />}
        {route.page === 'item' && <QueueItemPage api={api} id={route.id} />}
        {route.page === 'systems' && <SystemsPage api={api} />}
        {route.page === 'definitions' && <DefinitionsPage api={api} />}
        {route.page === 'webhooks' && <WebhooksPage api={api} />}
        {route.page === 'webhook' && <WebhookPage api={api} id={route.id} />}
        {route.page === 'unknown' && (
          <>
            <h1 tabIndex={-1}>Not found</h1>
            <p>
              The console has no page at {route.path}. <a href={base}>Go to the overview</a>.
            </p>
          </>
        )}
      </main>
    </>
  );
}
