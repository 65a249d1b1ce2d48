/**
 * The `file` connector's spec: CSV, JSON and NDJSON files of one directory as objects. Each object
 * names a file, or a glob of files read one after another (a drop folder); records are filtered,
 * ordered and paged in memory, and a write rewrites its file atomically under a lock.
 *
 * The connection holds the directory and the defaults of the format options; an object sets its
 * own where its files differ; the connection's defaults (file-object.ts) are the schema's too.
 */
import type { ConnectorSpec, JsonSchema } from '../../definitions/connector-spec.js';
import { checkFileSystem } from './check-system.js';
import { encodingNames } from './encodings.js';
import { connectionDefaults } from './file-object.js';

const oneCharacter = { type: 'string', minLength: 1, maxLength: 1 };

/** The format options a connection sets as defaults and an object may set for itself. */
function formatOptions(scope: 'connection' | 'object'): Record<string, JsonSchema> {
  const inherited = (what: string) =>
    scope === 'connection' ? { default: connectionDefaults[what as keyof typeof connectionDefaults] } : {};
  const fallback = scope === 'connection' ? '' : " Default: the connection's.";
  return {
    encoding: {
      enum: [...encodingNames],
      ...inherited('encoding'),
      description: `Text encoding of the files: utf8, utf16le, latin1 (ISO-8859-1) or ascii. A value a write gives that the encoding cannot hold is refused.${fallback}`,
    },
    delimiter: {
      ...oneCharacter,
      ...inherited('delimiter'),
      description: `CSV: the character between cells, e.g. ';' or '\\t' (files ending .tsv: a tab).${fallback}`,
    },
    quote: {
      ...oneCharacter,
      ...inherited('quote'),
      description: `CSV: the character quoting a cell; a quote inside is doubled.${fallback}`,
    },
    bom: {
      type: 'boolean',
      ...inherited('bom'),
      description: `Whether a file the connector creates starts with a byte order mark. A file that has one keeps it; one is always accepted on reading.${fallback}`,
    },
    lineEnding: {
      enum: ['lf', 'crlf'],
      ...inherited('lineEnding'),
      description: `Line ending of the files the connector creates; a file that has lines keeps its own (any is read).${fallback}`,
    },
  };
}

export const spec: ConnectorSpec = Object.freeze({
  name: 'file',
  description: 'CSV, JSON and NDJSON files in a directory, each object a file or a glob of files.',
  connectionSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['directory'],
    description: 'The directory of the files, and defaults of the format options that objects may override.',
    properties: {
      directory: {
        type: 'string',
        minLength: 1,
        description:
          'Directory holding the files: relative to the definitions directory, or absolute. It must exist and lie inside one of the allowed roots (SYNCLINE_FILE_ROOTS; by default the definitions directory).',
      },
      ...formatOptions('connection'),
      maxJsonSize: {
        $ref: 'common.json#/$defs/size',
        default: connectionDefaults.maxJsonSize,
        description:
          'Largest JSON file (an array of records, which is parsed whole) read or rewritten; a larger one is refused as too large. CSV and NDJSON files are streamed and have no such limit.',
      },
      lockWait: {
        $ref: 'common.json#/$defs/duration',
        default: connectionDefaults.lockWait,
        description:
          'How long a write waits for another writer of the same file (in this or another process) before it is refused as busy.',
      },
    },
  },
  objectProperties: {
    path: {
      type: 'string',
      minLength: 1,
      description:
        "The file, or a glob of files read in the order of their paths (inbox/orders-*.csv), relative to the connection's directory; '..' and absolute paths are refused. Writes need one file, not a glob.",
    },
    format: {
      enum: ['csv', 'json', 'ndjson'],
      description:
        'csv, json (an array of records) or ndjson (one record per line). Default: from the extension of path (.csv, .tsv, .json, .ndjson, .jsonl).',
    },
    header: {
      type: 'boolean',
      description: 'CSV: whether the first line names the columns. Default: true, unless columns is set.',
    },
    columns: {
      type: 'array',
      minItems: 1,
      uniqueItems: true,
      items: { type: 'string', minLength: 1 },
      description:
        'CSV without a header line: the names of its columns in order (fields, and group fields as group.type.field). Needs header: false.',
    },
    columnNames: {
      type: 'object',
      additionalProperties: { type: 'string', minLength: 1 },
      description:
        "Names in the file of fields named otherwise here, field → CSV column or JSON property, e.g. { CustomerId: 'Customer ID' }. Default: the field's own name.",
    },
    ...formatOptions('object'),
    archive: {
      type: 'object',
      additionalProperties: false,
      required: ['moveTo'],
      description:
        'After a sync run reads this object whole and ends Complete with no failed record, move the files it read into a directory. Plain reads never move a file.',
      properties: {
        moveTo: {
          type: 'string',
          minLength: 1,
          description:
            "Directory the files are moved to, relative to the connection's directory (created when missing); a name taken gets a numbered suffix, nothing is overwritten.",
        },
      },
    },
  },
  requiredObjectProperties: ['path'],
  groupProperties: {},
  requiredGroupProperties: [],
  capabilities: Object.freeze({
    filterPushDown: false,
    limit: true,
    skip: true,
    order: true,
    count: true,
    typedGroups: true,
    transactions: true,
    readOnlyQuery: false,
  }),
  checkSystem: checkFileSystem,
});
