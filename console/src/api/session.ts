/**
 * The signed-in token. sessionStorage only: it ends with the tab, is not shared with other tabs
 * and is never written to localStorage, a cookie or a URL, where it would outlive the session or
 * leak into logs and the browser history.
 */
const key = 'syncline.console.token';

export function storedToken(): string | null {
  return sessionStorage.getItem(key);
}

export function storeToken(token: string): void {
  sessionStorage.setItem(key, token);
}

export function clearToken(): void {
  sessionStorage.removeItem(key);
}
