/** Overview: queue counts, active daemons, schedules with their next run, the last reload, version. */
import type { Api } from '../api/client.js';
import type { QueueStatus, ReloadProblem } from '../api/types.js';
import { useLoad, when } from '../use-load.js';
import { ErrorLine, PageTitle } from '../page-parts.js';

const statuses: QueueStatus[] = ['Pending', 'InProgress', 'Complete', 'Failed'];

/** A problem as `syncline validate` prints it: file:line:col, so it can be found in the editor. */
const place = (problem: ReloadProblem) => `${problem.file}:${problem.line}:${problem.column}`;

export function OverviewPage({ api }: { api: Api }) {
  const { value: overview, error, loading, reload } = useLoad(() => api.overview(), [api]);
  return (
    <>
      <PageTitle title="Overview" loading={loading} onRefresh={() => void reload()} />
      <ErrorLine error={error} />
      {overview && (
        <>
          <p>
            Syncline {overview.version}, this process runs {overview.role === 'api+daemon' ? 'the API and a daemon' : 'the API only'}.
          </p>
          <section aria-labelledby="queue-counts">
            <h2 id="queue-counts">Queue</h2>
            <table>
              <caption>Queue items by status</caption>
              <thead>
                <tr>
                  {statuses.map((status) => (
                    <th scope="col" key={status} class="number">
                      {status}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                <tr>
                  {statuses.map((status) => (
                    <td key={status} class="number">
                      {overview.queue[status]}
                    </td>
                  ))}
                </tr>
              </tbody>
            </table>
          </section>
          <section aria-labelledby="daemons">
            <h2 id="daemons">Active daemons: {overview.daemons.count}</h2>
            {overview.daemons.count === 0 ? (
              <p>No daemon is active: queued items stay Pending until one runs.</p>
            ) : (
              <table>
                <caption>Daemons across the cluster, oldest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Host</th>
                    <th scope="col">PID</th>
                    <th scope="col">Command</th>
                    <th scope="col">Version</th>
                    <th scope="col">Running</th>
                    <th scope="col">Started</th>
                    <th scope="col">Last heartbeat</th>
                  </tr>
                </thead>
                <tbody>
                  {overview.daemons.daemons.map((daemon) => (
                    <tr key={daemon.id}>
                      <td>{daemon.host}</td>
                      <td class="number">{daemon.pid}</td>
                      <td>{daemon.command}</td>
                      <td>{daemon.version}</td>
                      <td class="number">
                        {daemon.running} of {daemon.concurrency}
                      </td>
                      <td>{when(daemon.startedAt)}</td>
                      <td>{when(daemon.lastHeartbeatAt)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
          <section aria-labelledby="schedules">
            <h2 id="schedules">Schedules</h2>
            {overview.schedules.length === 0 ? (
              <p>Nothing is scheduled.</p>
            ) : (
              <table>
                <caption>Scheduled syncs and flows</caption>
                <thead>
                  <tr>
                    <th scope="col">Sync or flow</th>
                    <th scope="col">Schedule</th>
                    <th scope="col">Next run</th>
                    <th scope="col">Last run</th>
                  </tr>
                </thead>
                <tbody>
                  {overview.schedules.map((schedule) => (
                    <tr key={schedule.id}>
                      <th scope="row">{schedule.name ? `${schedule.name} (${schedule.id})` : schedule.id}</th>
                      <td>{schedule.every ? `every ${schedule.every}` : `${schedule.cron} ${schedule.timezone ?? ''}`}</td>
                      <td>{schedule.active ? when(schedule.nextRun) : 'not running: no active daemon'}</td>
                      <td>
                        {schedule.lastRun ? (
                          <a href={`/console/queue/${schedule.lastRun.itemId}`}>
                            {when(schedule.lastRun.slotAt)}: {schedule.lastRun.status ?? 'pruned'}
                          </a>
                        ) : (
                          'never'
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
          <section aria-labelledby="reload">
            <h2 id="reload">Last reload</h2>
            <p>
              {when(overview.lastReload.at)}: {overview.lastReload.ok ? 'loaded' : 'refused; the previous definitions keep serving'} in{' '}
              {Math.round(overview.lastReload.durationMs)} ms.
            </p>
            {overview.lastReload.problems.length > 0 && (
              <ul class="problems">
                {overview.lastReload.problems.map((problem) => (
                  <li key={`${place(problem)}-${problem.code}`}>
                    <code>{place(problem)}</code> {problem.severity}: {problem.kind && problem.id ? `${problem.kind}/${problem.id}: ` : ''}
                    {problem.message}
                  </li>
                ))}
              </ul>
            )}
            {overview.lastReload.hiddenProblems > 0 && (
              <p>{overview.lastReload.hiddenProblems} problem(s) of definitions this token may not see are left out.</p>
            )}
          </section>
        </>
      )}
    </>
  );
}
