/**
 * Systems: the connected systems with their objects (GET /api/systems); the chosen system's
 * capabilities, each object's key, fields and typed groups, and its queries' columns
 * (GET /api/systems/{id}) before anything is read; a read of an object (RunConnectionGetData with
 * WHERE, ORDER, LIMIT and SKIP) shows the records, and a free query (RunConnectionGetQueryData,
 * scope systems:query) its rows. A refused call shows the problem.
 */
import { useState } from 'preact/hooks';
import { describeError, type Api } from '../api/client.js';
import type { FieldType, QueryAnswer, QueryColumn, ReadAnswer, ReadParameters, SystemDetail } from '../api/types.js';
import { useLoad } from '../use-load.js';
import { ErrorLine, PageTitle } from '../page-parts.js';

type ObjectDetail = SystemDetail['objects'][number];
type Capabilities = SystemDetail['capabilities'];

const fieldTypes: FieldType[] = ['String', 'Integer', 'Number', 'Boolean', 'Date', 'DateTime', 'Json'];

/** A value as a cell shows it: groups and JSON as JSON text, empty as a dash. */
const cell = (value: unknown) =>
  value === null || value === undefined ? '—' : typeof value === 'object' ? JSON.stringify(value) : String(value);

function RecordsTable({ caption, columns, records }: { caption: string; columns: string[]; records: Array<Record<string, unknown>> }) {
  if (records.length === 0) return <p>No records match.</p>;
  return (
    <table>
      <caption>{caption}</caption>
      <thead>
        <tr>
          {columns.map((column) => (
            <th scope="col" key={column}>
              {column}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {records.map((record, index) => (
          <tr key={index}>
            {columns.map((column) => (
              <td key={column}>{cell(record[column])}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** "id:Integer, name" → the query's columns (String where no type is given). */
function parseColumns(text: string): QueryColumn[] {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const [name, type] = part.split(':').map((piece) => piece.trim());
      const known = fieldTypes.find((candidate) => candidate.toLowerCase() === (type ?? 'string').toLowerCase());
      if (!known) throw new Error(`The column ${name} has the unknown type ${type}; use one of ${fieldTypes.join(', ')}.`);
      return { Name: name!, ColumnType: known };
    });
}

/** An object's fields and its typed groups' fields, with which of them make its key. */
function FieldsTable({ caption, object }: { caption: string; object: ObjectDetail }) {
  const key = new Set(object.key);
  return (
    <table>
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">Type</th>
          <th scope="col">Key</th>
          <th scope="col">Required</th>
          <th scope="col">Read-only</th>
        </tr>
      </thead>
      <tbody>
        {object.fields.map((description) => (
          <tr key={description.name}>
            <th scope="row">{description.name}</th>
            <td>{description.type}</td>
            <td>{key.has(description.name) ? 'key' : ''}</td>
            <td>{description.required ? 'yes' : ''}</td>
            <td>{description.readOnly ? 'yes' : ''}</td>
          </tr>
        ))}
        {object.groups.flatMap((group) =>
          group.fields.map((description) => (
            <tr key={`${group.name}.${description.name}`}>
              <th scope="row">
                {group.name}[{group.types.join('|')}].{description.name}
              </th>
              <td>{description.type}</td>
              <td />
              <td>{description.required ? 'yes' : ''}</td>
              <td>{description.readOnly ? 'yes' : ''}</td>
            </tr>
          )),
        )}
      </tbody>
    </table>
  );
}

function ReadForm({ api, system, objects }: { api: Api; system: string; objects: ObjectDetail[] }) {
  const [objectName, setObjectName] = useState(objects[0]?.name ?? '');
  const [form, setForm] = useState({ where: '', order: '', limit: '', skip: '' });
  const [answer, setAnswer] = useState<{ label: string; value: ReadAnswer } | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const object = objects.find((candidate) => candidate.name === objectName);

  const read = async () => {
    const parameters: ReadParameters = [];
    if (form.where.trim()) parameters.push({ name: 'GETDATA_WHERE', value: form.where.trim() });
    if (form.order.trim()) parameters.push({ name: 'GETDATA_ORDER', value: form.order.trim() });
    if (form.limit.trim()) parameters.push({ name: 'GETDATA_LIMIT', value: form.limit.trim() });
    if (form.skip.trim()) parameters.push({ name: 'GETDATA_SKIP', value: form.skip.trim() });
    setBusy(true);
    try {
      setAnswer({ label: `${system} ${objectName}`, value: await api.read(system, objectName, parameters) });
      setProblem(undefined);
    } catch (error) {
      setAnswer(undefined);
      setProblem(describeError(error));
    } finally {
      setBusy(false);
    }
  };
  const field = (name: keyof typeof form, label: string, inputMode?: 'numeric') => (
    <label>
      {label}
      <input
        type="text"
        inputMode={inputMode}
        value={form[name]}
        onInput={(event) => setForm({ ...form, [name]: event.currentTarget.value })}
      />
    </label>
  );
  const value = answer?.value;
  return (
    <section aria-labelledby={`read-${system}`}>
      <h3 id={`read-${system}`}>Read an object of {system}</h3>
      <form
        class="filters"
        aria-label={`Read ${system}`}
        onSubmit={(event) => {
          event.preventDefault();
          void read();
        }}
      >
        <label>
          Object
          <select
            value={objectName}
            onChange={(event) => {
              setObjectName(event.currentTarget.value);
              setAnswer(undefined);
            }}
          >
            {objects.map((candidate) => (
              <option key={candidate.name}>{candidate.name}</option>
            ))}
          </select>
        </label>
        {field('where', 'WHERE')}
        {field('order', 'ORDER')}
        {field('limit', 'LIMIT', 'numeric')}
        {field('skip', 'SKIP', 'numeric')}
        <button type="submit" disabled={busy || !object}>
          Read
        </button>
      </form>
      {object && (
        <>
          <p>
            {object.description ? `${object.description} ` : ''}
            Key: <code>{object.key.join(', ')}</code>
            {object.readOnly ? '; read-only.' : '.'}
          </p>
          <FieldsTable caption={`Fields of ${system} ${object.name}`} object={object} />
        </>
      )}
      <ErrorLine error={problem} />
      {value && answer && (
        <>
          <p role="status">
            {value.records.length} of {value.total} matching record(s).
          </p>
          <RecordsTable
            caption={`Records of ${answer.label}`}
            columns={[...value.fields.map((description) => description.name), ...value.groups.map((group) => group.name)]}
            records={value.records}
          />
        </>
      )}
    </section>
  );
}

function QueryForm({ api, system }: { api: Api; system: string }) {
  const [statement, setStatement] = useState('');
  const [columns, setColumns] = useState('');
  const [answer, setAnswer] = useState<QueryAnswer | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    try {
      setAnswer(await api.query(system, { Statement: statement, columns: parseColumns(columns) }));
      setProblem(undefined);
    } catch (error) {
      setAnswer(undefined);
      setProblem(describeError(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby={`query-${system}`}>
      <h3 id={`query-${system}`}>Free query on {system}</h3>
      <p>A single read-only statement (scope systems:query); name each column of the result with its type.</p>
      <form
        class="start"
        aria-label={`Query ${system}`}
        onSubmit={(event) => {
          event.preventDefault();
          void run();
        }}
      >
        <label>
          Statement
          <textarea rows={3} value={statement} onInput={(event) => setStatement(event.currentTarget.value)} />
        </label>
        <label>
          Columns (name:Type, comma-separated)
          <input type="text" value={columns} onInput={(event) => setColumns(event.currentTarget.value)} />
        </label>
        <button type="submit" disabled={busy || !statement.trim() || !columns.trim()}>
          Run query
        </button>
      </form>
      <ErrorLine error={problem} />
      {answer && (
        <RecordsTable
          caption={`Rows of the query on ${system}`}
          columns={answer.columns.map((column) => column.Name)}
          records={answer.records}
        />
      )}
    </section>
  );
}

const capabilityLabels: Record<keyof Capabilities, string> = {
  filterPushDown: 'filters run in the system',
  limit: 'limit',
  skip: 'skip',
  order: 'order',
  count: 'count',
  typedGroups: 'typed groups',
  transactions: 'transactions',
  readOnlyQuery: 'read-only free queries',
};

/** The chosen system: what its connector can do, its objects to read and its queries' columns. */
function SystemPanel({ api, id }: { api: Api; id: string }) {
  const { value: system, error } = useLoad(() => api.system(id), [api, id]);
  if (error) return <ErrorLine error={error} />;
  if (!system) return null;
  const names = Object.keys(capabilityLabels) as Array<keyof Capabilities>;
  const can = names.filter((name) => system.capabilities[name]).map((name) => capabilityLabels[name]);
  const cannot = names.filter((name) => !system.capabilities[name]).map((name) => capabilityLabels[name]);
  return (
    <section aria-labelledby={`system-${system.id}`}>
      <h2 id={`system-${system.id}`}>{system.name ? `${system.name} (${system.id})` : system.id}</h2>
      <p>
        Connector <code>{system.connector}</code>
        {system.readOnly ? ', read-only' : ''}. Can: {can.join(', ') || 'nothing beyond reading'}
        {cannot.length > 0 ? `; cannot: ${cannot.join(', ')}` : ''}.
      </p>
      <ReadForm api={api} system={system.id} objects={system.objects} />
      {system.queries.length > 0 && (
        <table>
          <caption>Queries of {system.id}</caption>
          <thead>
            <tr>
              <th scope="col">Query</th>
              <th scope="col">Columns</th>
              <th scope="col">Description</th>
            </tr>
          </thead>
          <tbody>
            {system.queries.map((query) => (
              <tr key={query.name}>
                <th scope="row">{query.name}</th>
                <td>{query.columns.map((column) => `${column.name}:${column.type}`).join(', ')}</td>
                <td>{query.description ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <QueryForm api={api} system={system.id} />
    </section>
  );
}

export function SystemsPage({ api }: { api: Api }) {
  const { value, error, loading, reload } = useLoad(() => api.systems(), [api]);
  const [chosen, setChosen] = useState('');
  const systems = value?.systems ?? [];
  const system = systems.find((candidate) => candidate.id === chosen) ?? systems[0];
  return (
    <>
      <PageTitle title="Systems" loading={loading} onRefresh={() => void reload()} />
      <ErrorLine error={error} />
      {value && systems.length === 0 && <p>No system is loaded, or this token may use none.</p>}
      {value && system && (
        <>
          <table>
            <caption>Connected systems and their objects</caption>
            <thead>
              <tr>
                <th scope="col">System</th>
                <th scope="col">Name</th>
                <th scope="col">Connector</th>
                <th scope="col">Objects</th>
                <th scope="col">File</th>
              </tr>
            </thead>
            <tbody>
              {systems.map((candidate) => (
                <tr key={candidate.id}>
                  <th scope="row">{candidate.id}</th>
                  <td>{candidate.name ?? '—'}</td>
                  <td>{candidate.connector}</td>
                  <td>{candidate.objects.join(', ') || '—'}</td>
                  <td>
                    <code>
                      {candidate.file}:{candidate.line}
                    </code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <label class="inline">
            System
            <select value={system.id} onChange={(event) => setChosen(event.currentTarget.value)}>
              {systems.map((candidate) => (
                <option key={candidate.id} value={candidate.id}>
                  {candidate.id}
                </option>
              ))}
            </select>
          </label>
          <SystemPanel key={system.id} api={api} id={system.id} />
        </>
      )}
    </>
  );
}
