/** Pieces every page repeats: its title with a Refresh button, and a refused call's message. */

/** The page's heading (focused on a page change, hence tabIndex) and a Refresh button. */
export function PageTitle({ title, loading, onRefresh }: { title: string; loading: boolean; onRefresh: () => void }) {
  return (
    <div class="title">
      <h1 tabIndex={-1}>{title}</h1>
      <button type="button" class="secondary" onClick={onRefresh} disabled={loading}>
        Refresh
      </button>
    </div>
  );
}

/** A failure's message, announced to screen readers; nothing without one. */
export function ErrorLine({ error }: { error: string | undefined }) {
  if (!error) return null;
  return (
    <p role="alert" class="error">
      {error}
    </p>
  );
}
