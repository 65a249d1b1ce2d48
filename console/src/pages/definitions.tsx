/** Definitions: what is loaded (kind, id, file:line) and the problems of the last reload as file:line:col. */
import type { Api } from '../api/client.js';
import type { DefinitionKind, ReloadProblem } from '../api/types.js';
import { useLoad, when } from '../use-load.js';
import { ErrorLine, PageTitle } from '../page-parts.js';

const kinds: DefinitionKind[] = ['System', 'Sync', 'Flow', 'Webhook', 'ApiClient'];
const place = (problem: ReloadProblem) => `${problem.file}:${problem.line}:${problem.column}`;

export function DefinitionsPage({ api }: { api: Api }) {
  const { value: answer, error, loading, reload } = useLoad(() => api.definitions(), [api]);
  const rows = answer ? kinds.flatMap((kind) => answer.definitions[kind].map((definition) => ({ kind, ...definition }))) : [];
  const lastReload = answer?.lastReload;
  return (
    <>
      <PageTitle title="Definitions" loading={loading} onRefresh={() => void reload()} />
      <ErrorLine error={error} />
      {answer && lastReload && (
        <>
          <section aria-labelledby="reload-problems">
            <h2 id="reload-problems">Last reload</h2>
            <p>
              {when(lastReload.at)}: {lastReload.ok ? 'loaded' : 'refused; the previous definitions keep serving'}
              {lastReload.problems.length === 0 ? ', without problems.' : `, with ${lastReload.problems.length} problem(s).`}
            </p>
            {lastReload.problems.length > 0 && (
              <table>
                <caption>Problems of the last reload</caption>
                <thead>
                  <tr>
                    <th scope="col">Place</th>
                    <th scope="col">Severity</th>
                    <th scope="col">Definition</th>
                    <th scope="col">Message</th>
                  </tr>
                </thead>
                <tbody>
                  {lastReload.problems.map((problem) => (
                    <tr key={`${place(problem)}-${problem.code}-${problem.message}`}>
                      <th scope="row">
                        <code>{place(problem)}</code>
                      </th>
                      <td>{problem.severity}</td>
                      <td>{problem.kind && problem.id ? `${problem.kind}/${problem.id}` : '—'}</td>
                      <td>{problem.message}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            {lastReload.hiddenProblems > 0 && (
              <p>{lastReload.hiddenProblems} problem(s) of definitions this token may not see are left out.</p>
            )}
          </section>
          <section aria-labelledby="loaded">
            <h2 id="loaded">Loaded</h2>
            <p>
              Loaded {when(answer.loadedAt)}, digest <code>{answer.digest.slice(0, 12)}</code>.
            </p>
            <table>
              <caption>Loaded definitions by kind</caption>
              <thead>
                <tr>
                  <th scope="col">Kind</th>
                  <th scope="col">Id</th>
                  <th scope="col">Name</th>
                  <th scope="col">File</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => (
                  <tr key={`${row.kind}/${row.id}`}>
                    <td>{row.kind}</td>
                    <th scope="row">{row.id}</th>
                    <td>{row.name ?? '—'}</td>
                    <td>
                      <code>
                        {row.file}:{row.line}
                      </code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        </>
      )}
    </>
  );
}
