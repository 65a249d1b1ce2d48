/**
 * The JSON bodies of AddAction and ExecuteProcess, declared as JSON Schemas (which the interface
 * description publishes as they are) and checked whole before anything is enqueued or run: every
 * bad field is reported at once, each as `{path, message}` (body-schema.ts).
 *
 * A property nobody reads is refused, so a misspelt `WhereClause` cannot silently run a sync
 * unfiltered. Values are data: they are stored in bound columns and never become SQL or code; how
 * long they may be is the queue's to say (valueLimits).
 */
import { parseStartType, startTypes, valueLimits, type ActionParam, type StartType } from '../queue/queue-item.js';
import { notBlank } from './body-messages.js';
import { requestBody } from './body-schema.js';

/** What a start says beyond its process. */
export interface StartRequest {
  startType: StartType;
  sourceId?: string;
  whereClause?: string;
  actionParams?: ActionParam[];
}

export interface AddActionRequest extends StartRequest {
  processId: string;
}

/** ExecuteProcess runs a whole sync; AdHoc needs a source record, which only the ad-hoc routes and AddAction carry. */
export const executeStartTypes: readonly StartType[] = ['manual', 'repeat', 'planned', 'Single'];

const whereClause = {
  type: ['string', 'null'],
  maxLength: valueLimits.whereClause,
  description:
    "A filter on the sync's source records (a flow's: its first sync's), AND-ed with the sync's own; the expression grammar of GETDATA_WHERE. #params.Name# takes an ActionParam. Empty or null: none.",
};

export const actionParamSchema = {
  type: 'object',
  required: ['Name', 'Value'],
  properties: {
    Name: { type: 'string', title: 'the parameter name', pattern: notBlank, maxLength: valueLimits.processId },
    Value: { type: 'string', maxLength: valueLimits.actionParamValue },
  },
  additionalProperties: false,
};

// A name given twice is allowed: the later value wins, as the sync engine reads them (action-params.ts).
const actionParams = {
  type: ['array', 'null'],
  maxItems: valueLimits.actionParams,
  items: actionParamSchema,
  description:
    "Parameters of the run: $params in the mapping, #params.Name# in filters. One name is the runtime's own: FULL_RUN with the Value true makes a sync with a cursor (source.cursor) read every record instead of only those past its high-water mark (for a flow: each of its syncs).",
};

const startTypeOf = (allowed: readonly StartType[]) => ({ enum: [...allowed], description: 'Any case is accepted.' });

interface StartBody {
  StartType: StartType;
  WhereClause?: string | null;
  ActionParams?: ActionParam[] | null;
}

export const addActionBody = requestBody<StartBody & { ProcessId: string; SourceId?: string | null }>({
  type: 'object',
  required: ['ProcessId', 'StartType'],
  properties: {
    ProcessId: { type: 'string', title: 'the id of the sync or flow to start', pattern: notBlank, maxLength: valueLimits.processId },
    StartType: startTypeOf(startTypes),
    SourceId: {
      type: ['string', 'null'],
      pattern: notBlank,
      maxLength: valueLimits.sourceId,
      description: "One source record: its key, or a record-store GUID (a flow's: its first step's).",
    },
    WhereClause: whereClause,
    ActionParams: actionParams,
  },
  additionalProperties: false,
});

export const executeProcessBody = requestBody<StartBody>(
  {
    type: 'object',
    required: ['StartType'],
    properties: { WhereClause: whereClause, StartType: startTypeOf(executeStartTypes), ActionParams: actionParams },
    additionalProperties: false,
  },
  {
    message: ({ path, value, message }) =>
      path === '/StartType' && typeof value === 'string' && parseStartType(value) === 'AdHoc'
        ? `${message} AdHoc starts one source record: use StartProcessDirect/{syncId}/{sourceId}.`
        : message,
  },
);

export function parseAddActionBody(body: unknown): AddActionRequest {
  const parsed = addActionBody.parse(body);
  return { processId: parsed.ProcessId, ...startOf(parsed), ...(parsed.SourceId == null ? {} : { sourceId: parsed.SourceId }) };
}

export function parseExecuteProcessBody(body: unknown): StartRequest {
  return startOf(executeProcessBody.parse(body));
}

function startOf(body: StartBody): StartRequest {
  // An empty filter means "no filter" to many clients.
  const whereClause = body.WhereClause == null || body.WhereClause.trim() === '' ? undefined : body.WhereClause;
  return {
    startType: body.StartType,
    ...(whereClause === undefined ? {} : { whereClause }),
    ...(body.ActionParams == null ? {} : { actionParams: body.ActionParams.map(({ Name, Value }) => ({ Name, Value })) }),
  };
}
