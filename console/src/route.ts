/**
 * The console's few routes (/console, /console/queue, /console/queue/{id}) on the History API.
 * Three paths do not need a router library; the server answers index.html for every path under
 * /console, so a reload or a bookmark of any of them opens the same page.
 */
import { useEffect, useState } from 'preact/hooks';

export const base = '/console';

export type Route =
  | { page: 'overview' }
  | { page: 'queue' }
  | { page: 'systems' }
  | { page: 'definitions' }
  | { page: 'item'; id: string }
  | { page: 'item'; id: string }
  | { page: 'webhooks' }
  | { page: 'webhook'; id: string }
  | { page: 'unknown'; path: string };

export function parseRoute(pathname: string): Route {
  const path = pathname.replace(/\/+$/, '');
  if (path === base || path === '') return { page: 'overview' };
  if (path === `${base}/queue`) return { page: 'queue' };
  if (path === `${base}/systems`) return { page: 'systems' };
  if (path === `${base}/definitions`) return { page: 'definitions' };
  const item = new RegExp(`^${base}/queue/([^/]+)$`).exec(path);
  if (item) return { page: 'item', id: decodeURIComponent(item[1]!) };
  if (path === `${base}/webhooks`) return { page: 'webhooks' };
  const webhook = new RegExp(`^${base}/webhooks/([^/]+)$`).exec(path);
  if (webhook) return { page: 'webhook', id: decodeURIComponent(webhook[1]!) };
  return { page: 'unknown', path };
}

export function navigate(path: string): void {
  history.pushState(null, '', path);
  dispatchEvent(new PopStateEvent('popstate'));
}

/** Follows links of the console without reloading the page; other clicks (new tab) stay the browser's. */
export function followLink(event: MouseEvent): void {
  const link = (event.target as Element | null)?.closest('a');
  if (!link || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const url = new URL(link.href, location.href);
  if (url.origin !== location.origin || !url.pathname.startsWith(base)) return;
  event.preventDefault();
  navigate(url.pathname + url.search);
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.pathname));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.pathname));
    addEventListener('popstate', update);
    return () => removeEventListener('popstate', update);
  }, []);
  return route;
}
