/**
 * Systems: the connected systems and their objects; a read of an object (RunConnectionGetData with
 * WHERE, ORDER, LIMIT and SKIP) shows its fields and the records, and a free query
 * (RunConnectionGetQueryData, scope systems:query) shows its rows. A refused call shows the problem.
 */
import { useState } from 'preact/hooks';
import { describeError, type Api } from '../api/client.js';
import type { FieldType, QueryAnswer, QueryColumn, ReadAnswer, ReadParameters } from '../api/types.js';
import { useLoad } from '../use-load.js';
import { ErrorLine } from '../page-parts.js';

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

function ReadForm({ api, system, objects }: { api: Api; system: string; objects: string[] }) {
  const [object, setObject] = useState(objects[0] ?? '');
  const [form, setForm] = useState({ where: '', order: '', limit: '', skip: '' });
  const [answer, setAnswer] = useState<{ label: string; value: ReadAnswer } | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  const read = async () => {
    const parameters: ReadParameters = [];
    if (form.where.trim()) parameters.push({ name: 'GETDATA_WHERE', value: form.where.trim() });
    if (form.order.trim()) parameters.push({ name: 'GETDATA_ORDER', value: form.order.trim() });
    if (form.limit.trim()) parameters.push({ name: 'GETDATA_LIMIT', value: form.limit.trim() });
    if (form.skip.trim()) parameters.push({ name: 'GETDATA_SKIP', value: form.skip.trim() });
    setBusy(true);
    try {
      setAnswer({ label: `${system} ${object}`, value: await api.read(system, object, parameters) });
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
  const key = new Set(value?.key ?? []);
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
          <select value={object} onChange={(event) => setObject(event.currentTarget.value)}>
            {objects.map((name) => (
              <option key={name}>{name}</option>
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
      <ErrorLine error={problem} />
      {value && answer && (
        <>
          <table>
            <caption>Fields of {answer.label}</caption>
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
              {value.fields.map((description) => (
                <tr key={description.name}>
                  <th scope="row">{description.name}</th>
                  <td>{description.type}</td>
                  <td>{key.has(description.name) ? 'key' : ''}</td>
                  <td>{description.required ? 'yes' : ''}</td>
                  <td>{description.readOnly ? 'yes' : ''}</td>
                </tr>
              ))}
              {value.groups.flatMap((group) =>
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

export function SystemsPage({ api }: { api: Api }) {
  const { value, error } = useLoad(async () => {
    const [definitions, objects] = await Promise.all([api.definitions(), api.objects()]);
    return { systems: definitions.definitions.System, objects };
  }, [api]);
  const [chosen, setChosen] = useState('');
  const system = value?.systems.find((candidate) => candidate.id === chosen) ?? value?.systems[0];
  return (
    <>
      <div class="title">
        <h1 tabIndex={-1}>Systems</h1>
      </div>
      <ErrorLine error={error} />
      {value && value.systems.length === 0 && <p>No system is loaded, or this token may use none.</p>}
      {value && system && (
        <>
          <table>
            <caption>Connected systems and their objects</caption>
            <thead>
              <tr>
                <th scope="col">System</th>
                <th scope="col">Name</th>
                <th scope="col">Objects</th>
                <th scope="col">File</th>
              </tr>
            </thead>
            <tbody>
              {value.systems.map((candidate) => (
                <tr key={candidate.id}>
                  <th scope="row">{candidate.id}</th>
                  <td>{candidate.name ?? '—'}</td>
                  <td>{(value.objects[candidate.id] ?? []).join(', ') || '—'}</td>
                  <td>
                    <code>
                      {candidate.file}:{candidate.line}
                    </code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <label>
            System
            <select value={system.id} onChange={(event) => setChosen(event.currentTarget.value)}>
              {value.systems.map((candidate) => (
                <option key={candidate.id} value={candidate.id}>
                  {candidate.id}
                </option>
              ))}
            </select>
          </label>
          <ReadForm key={system.id} api={api} system={system.id} objects={value.objects[system.id] ?? []} />
          <QueryForm key={`query-${system.id}`} api={api} system={system.id} />
        </>
      )}
    </>
  );
}
